import BetterSqlite3 from 'better-sqlite3';
import { existsSync, statSync } from 'node:fs';
import { redactPostgresUrl } from '../../adapters/persistence/postgres/postgres-url.js';
import type { Config } from '../server/config.js';

/**
 * The table Kysely's Migrator keeps (adapters/persistence/sql/migrations.ts): a database holds a
 * Hangar schema when it has this table with at least one migration recorded in it.
 */
const MIGRATION_TABLE = 'kysely_migration';

/** What the CLI found where the configuration points (see {@link findHangarDatabase}). */
export type DatabaseState = { found: true } | { found: false; where: string; why: string };

/** Longest wait for Postgres to answer the check, in ms. */
const POSTGRES_CHECK_TIMEOUT_MS = 10_000;

/**
 * Whether `database` already holds a Hangar schema, looked at without creating or migrating
 * anything (issue #61: the CLI must never create an empty database because DATA_DIR was wrong):
 * - SQLite: the file exists, opens read-only as a SQLite database, and has Kysely's migration table
 *   with at least one row; `sqlite::memory:` never does (it would be empty and gone at exit).
 * - Postgres: the server answers and the migration table is on the connection's `search_path`
 *   (the URL's `options=-c search_path=…`, else `public`) with at least one row.
 * @returns `{ found: true }`, or where it looked (the path, or the URL without its password) and why it refused
 * @throws Error only for a Postgres server that cannot be reached (the message says so)
 */
export async function findHangarDatabase(database: Config['database']): Promise<DatabaseState> {
  if (database.kind === 'sqlite') {
    const where = database.path;
    if (where === ':memory:') return { found: false, where: 'sqlite::memory:', why: 'an in-memory database is empty and belongs to one process' };
    if (!existsSync(where)) return { found: false, where, why: 'the file does not exist' };
    if (!statSync(where).isFile()) return { found: false, where, why: 'it is not a file' };
    let connection: BetterSqlite3.Database | undefined;
    try {
      connection = new BetterSqlite3(where, { readonly: true, fileMustExist: true, timeout: 5_000 });
      const table = connection.prepare("select 1 from sqlite_master where type = 'table' and name = ?").get(MIGRATION_TABLE);
      if (!table) return { found: false, where, why: 'it holds no Hangar tables' };
      const row = connection.prepare(`select count(*) as n from ${MIGRATION_TABLE}`).get() as { n: number };
      return row.n > 0 ? { found: true } : { found: false, where, why: 'no migration was ever applied to it' };
    } catch (error) {
      return { found: false, where, why: `it is not a readable SQLite database (${error instanceof Error ? error.message : String(error)})` };
    } finally {
      connection?.close();
    }
  }
  const where = redactPostgresUrl(database.url);
  // Loaded only for Postgres, as the server does (apps/server/database.ts).
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: database.url, connectionTimeoutMillis: POSTGRES_CHECK_TIMEOUT_MS });
  try {
    await client.connect();
  } catch (error) {
    throw new Error(`cannot connect to Postgres at ${where}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  try {
    const table = await client.query<{ present: boolean }>(`select to_regclass($1) is not null as present`, [MIGRATION_TABLE]);
    if (!table.rows[0]?.present) return { found: false, where, why: 'its search_path holds no Hangar tables' };
    const rows = await client.query<{ n: string }>(`select count(*) as n from ${MIGRATION_TABLE}`);
    return Number(rows.rows[0]?.n ?? 0) > 0 ? { found: true } : { found: false, where, why: 'no migration was ever applied to it' };
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * The operator's message for a database the CLI refuses (see {@link findHangarDatabase}): names
 * the place, why, and the two ways out (the right variable, or an explicit `init`).
 */
export function noDatabaseMessage(state: { where: string; why: string }): string {
  return `no Hangar database at ${state.where} (${state.why}); set DATA_DIR or DATABASE_URL to the instance's, or run "hangar init" to create a new one there.`;
}
