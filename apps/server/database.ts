import type { Kysely } from 'kysely';
import type { HangarDatabase } from '../../adapters/persistence/sql/schema.js';
import { openSqliteDatabase } from '../../adapters/persistence/sqlite/sqlite-database.js';
import type { ChangeFeed } from '../../core/shared/change-feed.js';
import type { Config } from './config.js';

/** An open, migrated database and how to close it. */
export interface OpenDatabase {
  db: Kysely<HangarDatabase>;
  /** Changes committed by every process on this database (SQLite: the WAL index; Postgres: LISTEN). */
  changes: ChangeFeed;
  /** Postgres only: the node-postgres pool under `db` (shared-state stores such as rate limits use it). */
  postgresPool?: unknown;
  close(): Promise<void>;
}

/** One JSON line on stderr, like the server's other operational messages. */
function warn(event: string, fields: Record<string, unknown>): void {
  process.stderr.write(`${JSON.stringify({ level: 'warn', event, ...fields })}\n`);
}

/**
 * Opens (and migrates) the database `database` names: the SQLite file, or a pool of
 * `poolSize` connections to Postgres. Postgres warnings (a lost idle connection, a missing search
 * index) go to stderr as JSON lines.
 * @throws Error when the database cannot be opened or migrated (see openSqliteDatabase, openPostgresDatabase)
 */
export async function openDatabase(database: Config['database']): Promise<OpenDatabase> {
  switch (database.kind) {
    case 'sqlite':
      return openSqliteDatabase({ path: database.path });
    case 'postgres': {
      // Loaded only when chosen, like the GCS and Cloudflare clients: a SQLite start never reads node-postgres's modules.
      const { openPostgresDatabase } = await import('../../adapters/persistence/postgres/postgres-database.js');
      const open = await openPostgresDatabase({
        url: database.url,
        poolSize: database.poolSize,
        onIdleConnectionError: (error) => warn('database_connection_lost', { error: String(error) }),
        onWarning: (message) => warn('database_warning', { message }),
        listenUrl: database.listenUrl,
        onChangeFeedState: (state, error) =>
          state === 'down'
            ? warn('change_feed_down', { error: String(error), fallback: 'caches are dropped every 5 s until it listens again' })
            : process.stderr.write(`${JSON.stringify({ level: 'info', event: 'change_feed_listening' })}\n`),
      });
      return { db: open.db, changes: open.changes, close: open.close, postgresPool: open.pool };
    }
  }
}
