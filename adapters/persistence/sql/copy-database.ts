import { type Kysely, sql } from 'kysely';
import { isPostgres } from './dialect.js';
import type { HangarDatabase } from './schema.js';

/**
 * Every table, parents before children (foreign keys), each with its primary key, by which it is
 * read in batches. The compiler checks that no table of {@link HangarDatabase} is missing.
 */
const TABLES = [
  { name: 'users', key: ['id'] },
  { name: 'one_time_tokens', key: ['id'] },
  { name: 'sessions', key: ['id'] },
  { name: 'refresh_tokens', key: ['token_hash'] },
  { name: 'api_keys', key: ['id'] },
  { name: 'files', key: ['id'] },
  { name: 'account_totals', key: ['user_id'] },
  // Stored variants' bytes are in account_totals: copied from the same snapshot, so they match on arrival.
  { name: 'image_variants', key: ['file_record_id', 'variant'] },
  { name: 'file_media', key: ['file_record_id'] },
  { name: 'usage_periods', key: ['user_id', 'period_start'] },
  { name: 'activity_logs', key: ['id'] },
  // Copied from the same snapshot as `activity_logs`, so it matches them on arrival.
  { name: 'activity_log_totals', key: ['user_id'] },
  { name: 'custom_domains', key: ['user_id'] },
  { name: 'shares', key: ['id'] },
  // Mail not yet sent goes with the data: the new database's servers send it.
  { name: 'mail_outbox', key: ['id'] },
  { name: 'passkeys', key: ['id'] },
  // Challenges live minutes: copied so a ceremony begun just before the copy can still end after it.
  { name: 'passkey_challenges', key: ['challenge'] },
  // Unfinished uploads go with the reservations `account_totals` holds for them.
  { name: 'resumable_uploads', key: ['id'] },
  // Sealed under the key in service_secrets, which is not copied: see docs/account-security.md.
  { name: 'totp_factors', key: ['user_id'] },
  { name: 'recovery_codes', key: ['user_id', 'code_hash'] },
  { name: 'mfa_challenges', key: ['token_hash'] },
  { name: 'oidc_identities', key: ['issuer', 'subject'] },
  // Sign-ins in progress (minutes long) go along too: a callback may land on the new database's servers.
  { name: 'oidc_flows', key: ['state_hash'] },
  { name: 'oidc_sign_in_codes', key: ['code_hash'] },
  { name: 'invites', key: ['id'] },
  { name: 'admin_audit', key: ['id'] },
  { name: 'plan_overrides', key: ['name'] },
  // A background deletion in progress resumes on the new database's servers.
  { name: 'account_deletions', key: ['user_id'] },
  // Outstanding upload URLs keep working (their single-use mark comes along).
  { name: 'upload_urls', key: ['id'] },
  // Last: copied `files` and `shares` rows then find no endpoint on the destination, so its webhook
  // triggers (migration 0044) queue nothing; pending deliveries come over as they are.
  { name: 'webhooks', key: ['id'] },
  { name: 'webhook_deliveries', key: ['id'] },
] as const satisfies readonly { name: keyof HangarDatabase; key: readonly string[] }[];

/**
 * Tables derived from `files` by triggers (SQLite's trigram index, migration 0042): a SQLite
 * destination fills them as the files arrive; the copy never writes them.
 */
type DerivedTable = 'files_trigram' | 'files_trigram_keys';

// A table added to HangarDatabase but not above fails to compile here, instead of being left behind by a copy.
type Uncopied = Exclude<keyof HangarDatabase, (typeof TABLES)[number]['name'] | DerivedTable>;
const everyTableCopied: [Uncopied] extends [never] ? true : Uncopied = true;
void everyTableCopied;

/**
 * `service_secrets` (migration 0011, outside {@link HangarDatabase}): the keys the service
 * generated once and keeps in the database (the session-token key unless `JWT_SECRET` is set, the
 * key that seals TOTP secrets, …). Copied last, replacing whatever the destination holds: the
 * copied accounts' TOTP factors are sealed under the source's key and their session tokens signed
 * with it, while the destination holds no accounts, so nothing of value depends on its own keys.
 */
const SECRETS_TABLE = 'service_secrets';

/** A table {@link copyDatabase} copies. */
export type CopiedTableName = Exclude<keyof HangarDatabase, DerivedTable> | typeof SECRETS_TABLE;

/** Names of the tables {@link copyDatabase} copies, in the order it copies them. */
export const COPIED_TABLES: readonly CopiedTableName[] = [...TABLES.map((table) => table.name), SECRETS_TABLE];

/** Rows per batch: read with one SELECT, written with one INSERT (10 columns at most, far below every parameter limit). */
const DEFAULT_BATCH_SIZE = 500;

/** How many rows of one table were copied. */
export interface CopiedTable {
  table: CopiedTableName;
  rows: number;
}

/** The destination of a copy already holds accounts; nothing was written. */
export class DestinationNotEmptyError extends Error {
  constructor(readonly accounts: number) {
    super(`the destination database already holds ${accounts} account${accounts === 1 ? '' : 's'}; copy into an empty database.`);
    this.name = 'DestinationNotEmptyError';
  }
}

/**
 * Copies every row of every table from `from` to `to`, both migrated to the same (latest) schema,
 * e.g. from SQLite to Postgres, the service's generated keys (`service_secrets`) included, so the
 * copy is the same deployment: its TOTP factors open and its session tokens verify. A server
 * already running on the destination keeps the keys it read at its start: start it after the copy.
 * The destination is written in one transaction: it holds all of the source or, on any failure,
 * nothing new. The source is read in one transaction too (a snapshot on
 * Postgres with REPEATABLE READ; on SQLite WAL a read transaction is one), so a server may keep
 * running on it, though writes made after the copy began are not copied.
 * Tables go in foreign-key order, each in batches of `batchSize` rows ordered by primary key
 * (keyset pagination, so a large table costs no more per batch at its end than at its start).
 * Values pass through unchanged: both dialects store the same integers and text.
 * @returns rows copied per table, in copy order (each checked against a count in the destination)
 * @throws DestinationNotEmptyError when `to` has any user; the driver's error otherwise (nothing written then)
 */
export async function copyDatabase(options: { from: Kysely<HangarDatabase>; to: Kysely<HangarDatabase>; batchSize?: number }): Promise<CopiedTable[]> {
  const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
  const source = options.from.transaction();
  const read = isPostgres(options.from) ? source.setIsolationLevel('repeatable read').setAccessMode('read only') : source;
  return read.execute((from) =>
    options.to.transaction().execute(async (to) => {
      const accounts = await countOf(to, 'users');
      if (accounts > 0) throw new DestinationNotEmptyError(accounts);
      const copied: CopiedTable[] = [];
      for (const table of TABLES) {
        let rows = 0;
        let last: unknown[] | undefined;
        for (;;) {
          const batch = await readBatch(from, table.name, table.key, last, batchSize);
          if (batch.length === 0) break;
          await to.insertInto(table.name).values(batch).execute();
          rows += batch.length;
          const end = batch[batch.length - 1];
          last = table.key.map((column) => end[column]);
          if (batch.length < batchSize) break;
        }
        const written = await countOf(to, table.name);
        if (written !== rows) throw new Error(`copying ${table.name}: ${rows} rows read but ${written} in the destination.`);
        copied.push({ table: table.name, rows });
      }
      copied.push({ table: SECRETS_TABLE, rows: await copySecrets(from, to) });
      return copied;
    }),
  );
}

/**
 * Replaces the destination's `service_secrets` with the source's (a handful of rows: one read).
 * @returns rows copied (checked against a count in the destination)
 */
async function copySecrets(from: Kysely<HangarDatabase>, to: Kysely<HangarDatabase>): Promise<number> {
  const { rows } = await sql<{ name: string; value: string; created_at: number | string }>`
    select name, value, created_at from ${sql.table(SECRETS_TABLE)} order by name
  `.execute(from);
  await sql`delete from ${sql.table(SECRETS_TABLE)}`.execute(to);
  for (const row of rows) {
    await sql`insert into ${sql.table(SECRETS_TABLE)} (name, value, created_at) values (${row.name}, ${row.value}, ${row.created_at})`.execute(to);
  }
  const written = await countOf(to, SECRETS_TABLE);
  if (written !== rows.length) throw new Error(`copying ${SECRETS_TABLE}: ${rows.length} rows read but ${written} in the destination.`);
  return rows.length;
}

/** Up to `limit` rows of `table` after the key `after` (all columns), in key order. */
async function readBatch(
  db: Kysely<HangarDatabase>,
  table: keyof HangarDatabase,
  key: readonly string[],
  after: unknown[] | undefined,
  limit: number,
): Promise<Record<string, unknown>[]> {
  const keyColumns = sql.join(key.map((column) => sql.ref(column)));
  const where = after === undefined ? sql`` : sql`where (${keyColumns}) > (${sql.join(after.map((value) => sql`${value}`))})`;
  const { rows } = await sql<Record<string, unknown>>`
    select * from ${sql.table(table)} ${where} order by ${keyColumns} limit ${limit}
  `.execute(db);
  return rows;
}

async function countOf(db: Kysely<HangarDatabase>, table: CopiedTableName): Promise<number> {
  const { rows } = await sql<{ count: number | string }>`select count(*) as count from ${sql.table(table)}`.execute(db);
  return Number(rows[0].count);
}
