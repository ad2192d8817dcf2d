import { Kysely, PostgresDialect, sql, type LogEvent } from 'kysely';
import pg from 'pg';
import type { ChangeFeed } from '../../../core/shared/change-feed.js';
import { translateDatabaseError, withUnavailableErrors } from '../sql/database-unavailable.js';
import type { SharedLookups } from '../sql/shared-lookups.js';
import { PostgresChangeFeed } from './postgres-change-feed.js';
import { PostgresLookupCache } from './postgres-lookup-cache.js';
import { planResultChanged, preparingPool, StatementNames } from './prepared-statements.js';
import { REPEATED_STATEMENTS } from '../sql/precompiled-query.js';
import { observingWrites } from './write-observer.js';
import { ASYNCHRONOUS_COMMIT_SETTING, DURABILITY_FLUSH_SQL, groupCommit } from './group-commit.js';
import { migrateToLatest } from '../sql/migrate.js';
import { redactPostgresUrl } from './postgres-url.js';
import type { HangarDatabase } from '../sql/schema.js';

/** Options of {@link openPostgresDatabase}. */
export interface PostgresDatabaseOptions {
  /** Told about every query run through Kysely: its duration in ms, and whether it failed (metrics). Default: nothing. */
  onQuery?: (durationMs: number, failed: boolean) => void;
  /**
   * A libpq connection URL, `postgres://user:password@host:5432/database?sslmode=require` (or
   * `postgresql://`). Query parameters are node-postgres's (pg-connection-string): `sslmode`,
   * `sslrootcert`, `sslcert`, `sslkey`, `application_name`, `options` (e.g. `-c search_path=hangar`)…
   * `sslmode` has libpq's meaning (see {@link postgresConnectionString}).
   */
  url: string;
  /** Most connections the pool opens (DATABASE_POOL_SIZE); at least 1. */
  poolSize: number;
  /**
   * A schema to keep every table in (tests give each run its own): created when missing, and put
   * alone on the `search_path` of every pooled connection. Lower-case letters, digits and `_`.
   */
  schema?: string;
  /** Longest a statement may run before the server cancels it, in ms (default 30 000). */
  statementTimeoutMs?: number;
  /** Longest to wait for a connection (opening one, or a free one from a full pool), in ms (default 10 000). */
  connectTimeoutMs?: number;
  /** Longest to wait for another process's migration lock at start, in ms (default 300 000). */
  migrationLockTimeoutMs?: number;
  /**
   * Called when an idle pooled connection fails (the server restarted, the network dropped it).
   * The pool drops that connection and opens another on the next query; without a listener
   * node-postgres would crash the process.
   */
  onIdleConnectionError?: (error: Error) => void;
  /** Told, once at start, of what works but slowly: the `q` search index is missing (pg_trgm unavailable). */
  onWarning?: (message: string) => void;
  /**
   * Keep the lookups on every request's path in this process (PostgresLookupCache), invalidated by
   * the change feed (default true). Off, every lookup is a round trip (named prepared statements).
   */
  lookupCache?: boolean;
  /**
   * Group commit (group-commit.ts; default true): the pool's sessions start with
   * `synchronous_commit=off` (the `options` startup parameter) and each write waits for a shared
   * synchronous flush. Off: synchronous commits, nothing sent at startup, for a pooler that
   * refuses the `options` startup parameter (PgBouncer unless `ignore_startup_parameters` has it).
   */
  groupCommit?: boolean;
  /**
   * Where the change feed listens (DATABASE_LISTEN_URL): a URL of the same database reached without
   * a transaction-pooling proxy (LISTEN needs a session of its own). Default: `url`.
   */
  listenUrl?: string;
  /** While the change feed is down, caches are dropped every this many ms (default 5 000; PostgresChangeFeed). */
  changeFeedFallbackMs?: number;
  /** Told when the change feed goes down (with the reason) or listens again. */
  onChangeFeedState?: (state: 'listening' | 'down', error?: unknown) => void;
}

/** An open, migrated Postgres database. */
export interface PostgresDatabase {
  db: Kysely<HangarDatabase>;
  /** The pool under `db`, for stores that need node-postgres itself (the rate limiter's counters). */
  pool: pg.Pool;
  /**
   * The lookup cache (absent with `lookupCache: false`) and prepared lookups, to hand to the
   * repositories (`createSqlRepositories(database)` does).
   */
  lookups: SharedLookups;
  /** The changes of every process on this database (`LISTEN`, PostgresChangeFeed). */
  changes: ChangeFeed;
  /** Ends every pooled connection; queries in flight finish first. */
  close: () => Promise<void>;
}

const DEFAULT_STATEMENT_TIMEOUT_MS = 30_000;

/**
 * How long a pooled connection may stay idle before it is closed (ms). Long, so that the pool's
 * sessions outlive a lull: a new Postgres session's first statements that read many rows are slower
 * than the same statements later (its process maps the shared buffers it reads the first time;
 * up to 130 ms more for a count of 10,000 search matches among 1,000,000 files: docs/scale-out.md,
 * "Pool sizing").
 */
const POOL_IDLE_TIMEOUT_MS = 300_000;

const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
const DEFAULT_MIGRATION_LOCK_TIMEOUT_MS = 300_000;
/**
 * A session left idle inside a transaction this long is ended by the server, so that a stuck
 * process cannot keep rows (an account's totals) locked for everyone else, in ms.
 */
const IDLE_IN_TRANSACTION_TIMEOUT_MS = 60_000;
/** TCP keep-alive from this idle time on, so a connection to a vanished server fails instead of waiting forever, in ms. */
const KEEP_ALIVE_DELAY_MS = 10_000;
/**
 * Key of the session-level advisory lock held while migrating: the bytes of "HANGAR". One key
 * for the whole database (every schema), so processes starting together migrate one at a time.
 */
const MIGRATION_LOCK_KEY = '79445323366738';

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * The connection string handed to node-postgres for `url`:
 * - `sslmode` keeps libpq's meaning (`uselibpqcompat=true` is added unless the URL sets it):
 *   `disable` plain TCP; `require` encrypted without verifying the certificate (verified against
 *   `sslrootcert` when given); `verify-ca` checks the chain (needs `sslrootcert`); `verify-full` checks
 *   chain and host name. Without it node-postgres would treat `require` as `verify-full`. Unlike
 *   libpq, `prefer` also insists on TLS (no plain-text fallback); without `sslmode` the connection is plain.
 * - `schema` is appended to the `options` parameter as `-c search_path=<schema>`, and each of
 *   `settings` (`name=value`, plain words) as `-c name=value`: settings of the session from its start.
 * Only the query string is rewritten, so URLs node-postgres accepts but WHATWG URL does not (a
 * Unix-socket `host=` parameter with an empty host) stay as they are.
 * @throws Error when `schema` is not a plain lower-case identifier, or a setting not `name=value`
 */
export function postgresConnectionString(url: string, options: { schema?: string; settings?: readonly string[] } = {}): string {
  const at = url.indexOf('?');
  const base = at === -1 ? url : url.slice(0, at);
  const query = new URLSearchParams(at === -1 ? '' : url.slice(at + 1));
  if (query.has('sslmode') && !query.has('uselibpqcompat')) query.set('uselibpqcompat', 'true');
  if (options.schema !== undefined) {
    if (!SCHEMA_NAME.test(options.schema)) throw new Error(`Invalid Postgres schema name "${options.schema}": use lower-case letters, digits and _.`);
    query.set('options', [query.get('options'), `-c search_path=${options.schema}`].filter(Boolean).join(' '));
  }
  for (const setting of options.settings ?? []) {
    if (!/^[a-z_.]+=[a-z0-9_]+$/.test(setting)) throw new Error(`Invalid Postgres setting "${setting}".`);
    query.set('options', [query.get('options'), `-c ${setting}`].filter(Boolean).join(' '));
  }
  const rest = query.toString();
  return rest === '' ? base : `${base}?${rest}`;
}

/**
 * Opens a pool of `options.poolSize` connections to the Postgres at `options.url` and brings the
 * schema to the latest migration first.
 *
 * Every connection has `statement_timeout` (default 30 s; a statement waiting for a row lock counts),
 * `idle_in_transaction_session_timeout` (60 s), TCP keep-alive, and `application_name=hangar`
 * (unless the URL names one); opening a connection or waiting for a free one gives up after
 * `connectTimeoutMs` (default 10 s); an idle connection is closed after {@link POOL_IDLE_TIMEOUT_MS}. Values come back as node-postgres gives them (int8 as a string,
 * see rows.ts).
 *
 * Migrations: on a connection of its own, the process takes a session-level `pg_advisory_lock`
 * (one key per database, waiting at most `migrationLockTimeoutMs`), creates `options.schema` if given,
 * runs the pending migrations in one transaction with no statement timeout (an index build on a
 * large table may take minutes), and unlocks. Several processes starting at once thus migrate one
 * after the other; the later ones find nothing to do.
 * @throws Error `Postgres at <url without password>: …` when the server cannot be reached, the
 *         schema cannot be created or a migration fails; nothing is left open then
 */
export async function openPostgresDatabase(options: PostgresDatabaseOptions): Promise<PostgresDatabase> {
  if (!Number.isInteger(options.poolSize) || options.poolSize < 1) throw new Error(`Postgres pool size must be a whole number ≥ 1, not ${options.poolSize}.`);
  const base: pg.ClientConfig = {
    connectionString: postgresConnectionString(options.url, { schema: options.schema }),
    connectionTimeoutMillis: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEP_ALIVE_DELAY_MS,
    application_name: 'hangar',
  };
  try {
    await migrate(base, options);
  } catch (error) {
    throw new Error(`Postgres at ${redactPostgresUrl(options.url)}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }

  const grouped = options.groupCommit ?? true;
  const pool = new pg.Pool({
    ...base,
    // Group commit (group-commit.ts): the pool's sessions commit asynchronously from their start.
    connectionString: postgresConnectionString(options.url, { schema: options.schema, settings: grouped ? [ASYNCHRONOUS_COMMIT_SETTING] : [] }),
    max: options.poolSize,
    idleTimeoutMillis: POOL_IDLE_TIMEOUT_MS,
    statement_timeout: options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS,
    idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_TIMEOUT_MS,
  });
  pool.on('error', (error) => options.onIdleConnectionError?.(error));
  // pg-pool listens for errors only on idle clients: a connection lost while checked out (between
  // two statements of a transaction, say) would be an uncaught 'error' event and end the process.
  // With this listener the client's next query fails instead (503 DATABASE_UNAVAILABLE) and the
  // pool drops the broken client when it is released.
  pool.on('connect', (client) => client.on('error', () => {}));
  const feed = await PostgresChangeFeed.start({
    client: {
      ...base,
      connectionString: postgresConnectionString(options.listenUrl ?? options.url, { schema: options.schema }),
      application_name: 'hangar-changes',
    },
    fallbackMs: options.changeFeedFallbackMs,
    onStateChange: options.onChangeFeedState,
  });
  const cache = options.lookupCache === false ? undefined : new PostgresLookupCache(feed);
  // Outages (server down or unreachable, pool timeouts, shutdowns) answer 503 DATABASE_UNAVAILABLE.
  // This process's writes to cached rows drop the cache at once (read your own writes).
  const flush = async () => {
    try {
      await pool.query(DURABILITY_FLUSH_SQL);
    } catch (error) {
      throw translateDatabaseError(error);
    }
  };
  const names = new StatementNames();
  const plain = withUnavailableErrors(new PostgresDialect({ pool: preparingPool(pool, REPEATED_STATEMENTS, names) }));
  const dialect = grouped ? groupCommit(plain, flush) : plain;
  const onQuery = options.onQuery;
  const db = new Kysely<HangarDatabase>({
    dialect: cache ? observingWrites(dialect, () => cache.dropAll()) : dialect,
    ...(onQuery ? { log: (event: LogEvent) => onQuery(event.queryDurationMillis, event.level === 'error') } : {}),
  });
  const lookups: SharedLookups = { ...(cache ? { cache } : {}), prepared: preparedReads(pool, names) };
  const close = async () => {
    cache?.close();
    await feed.close();
    await db.destroy();
  };
  try {
    if (!(await hasSearchIndex(db))) {
      options.onWarning?.(
        "the pg_trgm extension is not available, so file search (GET /files?q=) scans each account's files; " +
          'install pg_trgm, then run: CREATE INDEX files_search_text_trgm ON files USING gin (search_text gin_trgm_ops)',
      );
    }
  } catch (error) {
    await close();
    throw error;
  }
  return { db, pool, lookups, changes: feed, close };
}

/**
 * Lookups as named prepared statements: each connection parses and plans a lookup's SQL once and
 * then only binds and executes it (node-postgres keeps the names per connection). The name is
 * derived from the SQL text, so one text always has one name. When the schema changed under a
 * prepared statement (a newer release's migration added a column while this process runs: Postgres
 * answers SQLSTATE 0A000 "cached plan must not change result type"), the lookup runs again unnamed
 * and the SQL gets a new name, prepared afresh on each connection. Errors as Kysely's path gives
 * them (outages as DATABASE_UNAVAILABLE).
 */
function preparedReads(pool: pg.Pool, names: StatementNames): (sql: string, parameters: readonly unknown[]) => Promise<unknown[]> {
  return async (sql, parameters) => {
    try {
      return (await pool.query<Record<string, unknown>>({ name: names.of(sql), text: sql, values: parameters as unknown[] })).rows;
    } catch (error) {
      if (!planResultChanged(error)) throw translateDatabaseError(error);
      names.rename(sql);
      try {
        return (await pool.query<Record<string, unknown>>({ text: sql, values: parameters as unknown[] })).rows;
      } catch (again) {
        throw translateDatabaseError(again);
      }
    }
  };
}

/** Whether the current schema's `files` has the trigram index of migration 0042 (0042_search_on_database_indexes.ts). */
async function hasSearchIndex(db: Kysely<HangarDatabase>): Promise<boolean> {
  const { rows } = await sql<{ found: boolean }>`
    select exists (
      select 1 from pg_indexes where schemaname = current_schema() and tablename = 'files' and indexname = 'files_search_text_trgm'
    ) as found
  `.execute(db);
  return rows[0]?.found === true;
}

/** Takes the migration lock, creates the schema if asked, migrates, unlocks (see openPostgresDatabase). */
async function migrate(base: pg.ClientConfig, options: PostgresDatabaseOptions): Promise<void> {
  const lockTimeout = options.migrationLockTimeoutMs ?? DEFAULT_MIGRATION_LOCK_TIMEOUT_MS;
  const lock = new pg.Client({ ...base, lock_timeout: lockTimeout });
  // An error on this idle connection (server gone) surfaces through the next query instead.
  lock.on('error', () => {});
  await lock.connect();
  try {
    await lock.query('select pg_advisory_lock($1::bigint)', [MIGRATION_LOCK_KEY]);
    if (options.schema !== undefined) await lock.query(`create schema if not exists ${pg.escapeIdentifier(options.schema)}`);
    const { rows } = await lock.query<{ schema: string | null }>('select current_schema() as schema');
    const schema = rows[0]?.schema ?? null;
    if (schema === null) throw new Error('no schema of the search_path exists; create it, or name one that exists in the URL (options=-c search_path=…).');

    // The migrations run on this same session (a new connection costs Postgres a process start):
    // Kysely's migrator runs its statements one after the other, in one transaction, so a "pool"
    // that lends this one client, and never ends it, is all it needs.
    const session = { connect: async () => ({ query: lock.query.bind(lock), release: () => {} }), end: async () => {} };
    const db = new Kysely<HangarDatabase>({ dialect: new PostgresDialect({ pool: session }) });
    try {
      await migrateToLatest(db, undefined, { migrationTableSchema: schema });
    } finally {
      await db.destroy();
    }
    await lock.query('select pg_advisory_unlock($1::bigint)', [MIGRATION_LOCK_KEY]);
  } finally {
    // Ending the session also releases the lock if unlocking was never reached.
    await lock.end();
  }
}
