import { mkdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { migrateToLatest } from '../sql/migrations.js';
import type { HangarDatabase } from '../sql/schema.js';

/** Options of {@link openSqliteDatabase}. */
export interface SqliteDatabaseOptions {
  /** Database file; its parent directory is created when missing. `:memory:` opens a private in-memory database (tests). */
  path: string;
}

/** An open, migrated SQLite database. */
export interface SqliteDatabase {
  db: Kysely<HangarDatabase>;
  /** Closes the connection; pending queries finish first. */
  close(): Promise<void>;
}

/** How long a statement waits for another process's write lock before failing with SQLITE_BUSY, in ms. */
const BUSY_TIMEOUT_MS = 5000;

/**
 * Opens (creating if needed) the SQLite database at `options.path` and brings its schema to the
 * latest migration. Pragmas: `busy_timeout=5000` (ms), `journal_mode=WAL` (readers and one writer
 * at once, across processes), `synchronous=FULL` (a committed write survives power loss),
 * `foreign_keys=ON` (children go with their user). Migrations run inside `BEGIN IMMEDIATE`, so
 * processes starting together take turns and a failed migration leaves the schema untouched.
 * @throws Error when the directory cannot be created, the file cannot be opened, or a migration fails
 *         (`Database migration <name> failed: …`); the connection is closed then
 */
export async function openSqliteDatabase(options: SqliteDatabaseOptions): Promise<SqliteDatabase> {
  const inMemory = options.path === ':memory:' || options.path === '';
  if (!inMemory) await mkdir(dirname(resolve(options.path)), { recursive: true });

  const database = new BetterSqlite3(options.path, { timeout: BUSY_TIMEOUT_MS });
  const db = new Kysely<HangarDatabase>({ dialect: new SqliteDialect({ database }) });
  try {
    database.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    database.pragma('journal_mode = WAL');
    database.pragma('synchronous = FULL');
    // Has no effect inside a transaction, so it is set before the migrations' one.
    database.pragma('foreign_keys = ON');
    // Kysely's SQLite adapter neither locks nor wraps migrations in a transaction (it assumes a
    // single connection); the statements it issues run on this connection, inside this one.
    database.exec('BEGIN IMMEDIATE');
    try {
      await migrateToLatest(db);
      database.exec('COMMIT');
    } catch (error) {
      if (database.inTransaction) database.exec('ROLLBACK');
      throw error;
    }
  } catch (error) {
    await db.destroy();
    // Kysely closes the file only if it ever ran a query.
    if (database.open) database.close();
    throw error;
  }
  return { db, close: () => db.destroy() };
}
