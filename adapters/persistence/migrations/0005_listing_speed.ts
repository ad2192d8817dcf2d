import { type Kysely } from 'kysely';

// Kysely<any>: a migration runs against the schema as it was when it was written, not today's HangarDatabase.

/**
 * 0005: listings of large accounts (measured with the list bench of the time, kept in git history).
 * - `account_totals.changes`, a counter raised by every insert and delete of the account's files. A
 *   process keeps the exact totals of filtered listings it counted, each with the counter it was
 *   counted at, and counts again only when the counter has moved (SqlFileRepository): the counter
 *   is read from the database, so several processes never serve a stale total.
 * - SQLite only: `files (user_id, created_at, id, search_text)` replaces `files (user_id,
 *   created_at, id)` (a prefix of it): a `q` search walks it in list order without reading rows.
 *   Postgres has the trigram index for `q` instead (0003).
 */

export async function sqlite(db: Kysely<any>): Promise<void> {
  await postgres(db);
  await db.schema.createIndex('files_user_id_created_at_id_search_text').on('files').columns(['user_id', 'created_at', 'id', 'search_text']).execute();
  await db.schema.dropIndex('files_user_id_created_at_id').execute();
}

/** The counter only. */
export async function postgres(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('account_totals').addColumn('changes', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
}
