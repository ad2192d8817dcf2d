import type { SqlDatabaseHandle } from '../../adapters/persistence/sql/create-sql-repositories.js';
import { openSqliteDatabase } from '../../adapters/persistence/sqlite/sqlite-database.js';
import type { ChangeFeed } from '../../core/shared/change-feed.js';
import type { Logger } from '../../core/shared/logger.js';
import type { Config } from './config.js';

/**
 * An open, migrated database and how to close it; with the SQLite fast path (`direct`) or the
 * Postgres lookups (`lookups`) its adapter offers, which the repositories receive (createSqlRepositories).
 */
export interface OpenDatabase extends SqlDatabaseHandle {
  /** Changes committed by every process on this database (SQLite: the WAL index; Postgres: LISTEN). */
  changes: ChangeFeed;
  /** Postgres only: the node-postgres pool under `db` (shared-state stores such as rate limits use it). */
  postgresPool?: unknown;
  close(): Promise<void>;
}

/**
 * Opens (and migrates) the database `database` names: the SQLite file, or a pool of
 * `poolSize` connections to Postgres. Warnings (a lost idle Postgres connection, a missing search
 * index, SQLite's checkpoint worker failing) go to `logger` at level `warn`; `options.onQuery` is told
 * each query's duration (ms) and failure (metrics). `options.shortLived`: the process runs one command and
 * exits (the admin CLI), so SQLite's checkpoints stay on its own connection instead of a worker thread
 * started for them (SqliteDatabaseOptions.checkpointWorker).
 * @throws Error when the database cannot be opened or migrated (see openSqliteDatabase, openPostgresDatabase)
 */
export async function openDatabase(
  database: Config['database'],
  logger: Logger,
  options: { onQuery?: (durationMs: number, failed: boolean) => void; shortLived?: boolean } = {},
): Promise<OpenDatabase> {
  const { onQuery } = options;
  const warn = (event: string, fields: Record<string, unknown>) => logger.warn(event, fields);
  switch (database.kind) {
    case 'sqlite':
      return openSqliteDatabase({
        path: database.path,
        fastPath: database.fastPath,
        cacheBytes: database.cacheBytes,
        checkpointWorker: options.shortLived !== true,
        onQuery,
        onCheckpointWorkerFailed: (error) =>
          warn('checkpoint_worker_failed', {
            error: error.message,
            action: "the service's own connection checkpoints and writes batches again, on the event loop",
          }),
      });
    case 'postgres': {
      // Loaded only when chosen, like the GCS and Cloudflare clients: a SQLite start never reads node-postgres's modules.
      const { openPostgresDatabase } = await import('../../adapters/persistence/postgres/postgres-database.js');
      const open = await openPostgresDatabase({
        url: database.url,
        poolSize: database.poolSize,
        onQuery,
        onIdleConnectionError: (error) => warn('database_connection_lost', { error: String(error) }),
        onWarning: (message) => warn('database_warning', { message }),
        listenUrl: database.listenUrl,
        groupCommit: database.groupCommit,
        onChangeFeedState: (state, error) =>
          state === 'down'
            ? warn('change_feed_down', { error: String(error), fallback: 'caches are dropped every 5 s until it listens again' })
            : logger.info('change_feed_listening', {}),
      });
      return { db: open.db, lookups: open.lookups, changes: open.changes, close: open.close, postgresPool: open.pool };
    }
  }
}
