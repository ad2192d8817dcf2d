import { type Kysely, sql } from 'kysely';
import type { FileDeletionReason } from '../../../core/webhooks/webhook.js';
import { isPostgres } from './dialect.js';
import type { HangarDatabase } from './schema.js';

/**
 * Declares to the transaction `trx` why the files it deletes go, for the `file.deleted` webhook
 * trigger of migration 0044 (docs/webhooks.md): on Postgres the transaction-local setting
 * `hangar.file_delete_reason` (`set_config(…, true)` ends with the transaction), on SQLite the one
 * row of `webhook_delete_context` (SQLite has one writer at a time: no other transaction sees it, and
 * {@link clearFileDeletionReason} removes it before the commit). `deleted`, the trigger's default,
 * needs no statement.
 */
export async function declareFileDeletionReason(trx: Kysely<HangarDatabase>, reason: FileDeletionReason | undefined): Promise<void> {
  if (reason === undefined || reason === 'deleted') return;
  if (isPostgres(trx)) await sql`select set_config('hangar.file_delete_reason', ${reason}, true)`.execute(trx);
  else await sql`insert into webhook_delete_context (id, reason) values (1, ${reason}) on conflict (id) do update set reason = excluded.reason`.execute(trx);
}

/** Ends what {@link declareFileDeletionReason} declared, in the same transaction (SQLite; nothing to do on Postgres). */
export async function clearFileDeletionReason(trx: Kysely<HangarDatabase>, reason: FileDeletionReason | undefined): Promise<void> {
  if (reason === undefined || reason === 'deleted' || isPostgres(trx)) return;
  await sql`delete from webhook_delete_context where id = 1`.execute(trx);
}
