import { type Kysely, sql } from 'kysely';

// Kysely<any>: a migration runs against the schema as it was when it was written, not today's HangarDatabase.

/**
 * 0017: the account's actions in the activity log (`GET /logs?kind=actions`, the dashboard's
 * default), a partial index on `(user_id, created_at, id)` of the entries whose method is not a
 * read: a page and its count read only the actions, however many reads (API listings, page loads)
 * the account has. The predicate must stay the one SqlActivityLogRepository writes (ACTIONS_SQL),
 * literally, or the planners of SQLite and Postgres will not use the index.
 */

export async function sqlite(db: Kysely<any>): Promise<void> {
  await sql`create index activity_logs_actions on activity_logs (user_id, created_at, id) where method not in ('GET', 'HEAD', 'OPTIONS')`.execute(db);
}

/** The same statements as on SQLite. */
export async function postgres(db: Kysely<any>): Promise<void> {
  await sqlite(db);
}
