import { type Kysely, sql } from 'kysely';
import { isPostgres } from './dialect.js';

/** The outbox tables that share the claim's columns (`next_attempt_at`, `claimed_by`, `claimed_until`, `attempts`, `sent_at`, `failed_at`). */
export type LeasedTable = 'mail_outbox' | 'webhook_deliveries';

/** A database with either outbox table: one statement serves both, and the caller types the rows (Row). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the two tables' columns differ; Kysely cannot express "either"
type EitherOutbox = Kysely<any>;

/**
 * Claims the oldest due row of an outbox table for `owner`, with a lease of `leaseMs` from `now`
 * (Unix ms), and counts the attempt; undefined when no row is due. Due: not sent, not failed,
 * `next_attempt_at <= now`, and not held by a lease still running (a process killed mid-delivery
 * leaves a lapsed lease, so its row is claimed again: at least once, never lost).
 *
 * One conditional update claims (`… where id = (oldest due) and <due>`), which the database runs
 * atomically (SQLite's single writer; Postgres's row lock and re-check). On Postgres the candidate is
 * picked `for update skip locked`, so processes claiming at once take different rows; when another
 * process still took the candidate first, the claim is tried again (a few times).
 * Used by SqlMailOutbox and SqlWebhookOutbox.
 * @param options.columns the columns the claim returns (trusted identifiers, never user input)
 */
export async function claimDueRow<Row>(options: {
  db: EitherOutbox;
  table: LeasedTable;
  owner: string;
  leaseMs: number;
  now: () => number;
  columns: readonly string[];
}): Promise<Row | undefined> {
  const { db, owner, leaseMs } = options;
  const table = sql.table(options.table);
  const skipLocked = isPostgres(db) ? sql` for update skip locked` : sql``;
  const returning = sql.join(options.columns.map((column) => sql.ref(column)));
  for (let tries = 0; tries < 5; tries++) {
    const now = options.now();
    const due = sql`sent_at is null and failed_at is null and next_attempt_at <= ${now} and (claimed_until is null or claimed_until < ${now})`;
    const result = await sql<Row>`
      update ${table}
         set claimed_by = ${owner}, claimed_until = ${now + leaseMs}, attempts = attempts + 1
       where id = (select id from ${table} where ${due} order by next_attempt_at, id limit 1${skipLocked})
         and ${due}
      returning ${returning}`.execute(db);
    if (result.rows[0]) return result.rows[0];
    const left = await sql<{ id: string }>`select id from ${table} where ${due} limit 1`.execute(db);
    if (left.rows.length === 0) return undefined;
  }
  return undefined;
}
