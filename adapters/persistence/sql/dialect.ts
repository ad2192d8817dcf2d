import { type Kysely, PostgresAdapter } from 'kysely';

/**
 * Whether `db` talks to Postgres rather than SQLite: for the few places where the shared SQL
 * differs by dialect (migrations, the copy's read snapshot, the `q` listing plan).
 */
export function isPostgres<DB>(db: Kysely<DB>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}
