import { type Kysely, sql } from 'kysely';

// Kysely<any>: a migration runs against the schema as it was when it was written, not today's HangarDatabase.

/**
 * 0008: `activity_log_totals`, per account the number of its `activity_logs` entries, kept exact by
 * the batch inserts and the pruning (SqlActivityLogRepository), so that the total of `GET /logs` is
 * read, not counted: counting one account's million entries took ~120–140 ms on Postgres
 * (the listing measurements of the time, kept in git history, "The other lists"). Backfilled from the stored entries; rows go
 * with their account (`on delete cascade`).
 */

export async function sqlite(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('activity_log_totals')
    .addColumn('user_id', 'text', (c) => c.primaryKey().notNull().references('users.id').onDelete('cascade'))
    .addColumn('entries', 'bigint', (c) => c.notNull())
    .execute();
  await sql`insert into activity_log_totals (user_id, entries) select user_id, count(*) from activity_logs group by user_id`.execute(db);
}

/** The same statements as on SQLite. */
export async function postgres(db: Kysely<any>): Promise<void> {
  await sqlite(db);
}
