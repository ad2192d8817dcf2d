import { mkdir, open } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import {
  CompiledQuery,
  type QueryResult,
  type DatabaseConnection,
  type Driver,
  Kysely,
  SqliteDialect,
  SqliteDriver,
  type SqliteDatabase as KyselySqliteDatabase,
  type SqliteStatement as KyselySqliteStatement,
  type LogEvent,
} from 'kysely';
import { translateDatabaseError, withUnavailableErrors } from '../sql/database-unavailable.js';
import { type CachedReadGate, DIRECT_BUSY, type DirectExecutor, type DirectReader, type DirectTransaction } from '../sql/direct-access.js';
import { LookupCache } from './lookup-cache.js';
import { SqliteChangeFeed } from './sqlite-change-feed.js';
import type { ChangeFeed } from '../../../core/shared/change-feed.js';
import { migrateToLatest } from '../sql/migrate.js';
import type { HangarDatabase } from '../sql/schema.js';
import { backgroundCheckpoints, SAFETY_NET_AUTOCHECKPOINT_PAGES, type WalCheckpoints } from './wal-checkpointer.js';
import { BUSY_TIMEOUT_MS, isBusy, retryWhileBusy, WalFlusher } from './wal-flusher.js';

/** Options of {@link openSqliteDatabase}. */
export interface SqliteDatabaseOptions {
  /** Told about every query run through Kysely: its duration in ms, and whether it failed (metrics). Default: nothing. */
  onQuery?: (durationMs: number, failed: boolean) => void;
  /** Database file; its parent directory is created when missing. `:memory:` opens a private in-memory database (tests), a copy of the first one the process migrated. */
  path: string;
  /**
   * Told when the background checkpoint worker fails and this connection takes its work back
   * (a warning: the service goes on). Default: one line on stderr.
   */
  onCheckpointWorkerFailed?: (error: Error) => void;
  /**
   * Offer the fast path (`SqliteDatabase.direct`: lookups, transaction scripts and batches without
   * Kysely's executor, lookups answered from the lookup cache while the file is unchanged). Default
   * true. Off (SQLITE_FAST_PATH=false), `direct` is absent and every statement goes through Kysely:
   * the same answers, slower; for diagnosis, and for hosts that want one way in.
   */
  fastPath?: boolean;
  /**
   * The connection's page cache, in bytes (SQLite's `cache_size`); default
   * {@link DEFAULT_SQLITE_CACHE_BYTES}. 0 leaves the SQLite build's default (better-sqlite3's:
   * 16,000 KiB). Pages are cached only as they are read, so a database smaller than this never fills it.
   */
  cacheBytes?: number;
  /**
   * Checkpoint the WAL and write batches on a worker thread of its own (wal-checkpointer.ts), off
   * the event loop. Default true: what a server wants. False for a process that runs one command
   * and exits (the admin CLI): starting the thread costs more CPU than such a process spends on its
   * work, and this connection then checkpoints itself as SQLite does by default (every 1,000 pages).
   */
  checkpointWorker?: boolean;
}

/**
 * The page cache a service connection keeps by default: 64 MiB (better-sqlite3's build default is
 * 16,000 KiB), so a search that reads ten thousand rows of a million-file database finds their
 * pages in memory when asked again, instead of reading each from the file system. Each worker
 * process keeps its own, filled only as pages are read; Postgres's default `shared_buffers` is 128 MiB.
 */
export const DEFAULT_SQLITE_CACHE_BYTES = 64 * 1024 * 1024;

/** An open, migrated SQLite database. */
export interface SqliteDatabase {
  db: Kysely<HangarDatabase>;
  /**
   * The fast path, to hand to the repositories (`createSqlRepositories(database)` does): statements
   * on the connection without Kysely's executor (see {@link directAccess}). Absent when
   * `fastPath: false`.
   */
  direct?: DirectExecutor;
  /**
   * Commits of every connection to the file (other processes', and this one's writes), checked
   * through the lookup cache's WAL-index check and delivered as `everything` (SqliteChangeFeed).
   */
  changes: ChangeFeed;
  /** Closes the connection; pending queries finish first. */
  close: () => Promise<void>;
}

/**
 * Opens (creating if needed) the SQLite database at `options.path` and brings its schema to the
 * latest migration. Pragmas: `busy_timeout=5000` (ms) while migrating, then 0 with the driver
 * waiting asynchronously for the same 5 s (BusyWaitingConnection), `journal_mode=WAL` (readers and one writer
 * at once, across processes), `foreign_keys=ON` (children go with their user). Migrations run
 * inside `BEGIN IMMEDIATE`, so processes starting together take turns and a failed migration
 * leaves the schema untouched.
 *
 * Durability: a write (a statement or a transaction) resolves only once it is on disk, as with
 * `synchronous=FULL`, but without blocking the event loop on the fsync; see {@link GroupCommitSqliteDriver}.
 * @throws Error when the directory cannot be created, the file cannot be opened, or a migration fails
 *         (`Database migration <name> failed: …`); the connection is closed then
 */
export async function openSqliteDatabase(options: SqliteDatabaseOptions): Promise<SqliteDatabase> {
  const inMemory = options.path === ':memory:' || options.path === '';
  if (!inMemory) {
    await mkdir(dirname(resolve(options.path)), { recursive: true });
    await createPrivately(options.path);
  }

  // A private in-memory database starts as a copy of the first one this process created and migrated.
  const image = inMemory ? memoryImage : undefined;
  const database = new BetterSqlite3(image ?? options.path, { timeout: BUSY_TIMEOUT_MS });
  const writes = { happened: false };
  const wal = inMemory ? undefined : new WalFlusher(`${resolve(options.path)}-wal`);
  // Outages (SQLITE_BUSY past busy_timeout, I/O errors, a full disk) answer 503 DATABASE_UNAVAILABLE.
  let checkpoints: WalCheckpoints | undefined;
  let direct: DirectExecutor | undefined;
  const access = directAccess(database, wal);
  const inTransaction = () => database.inTransaction;
  const onQuery = options.onQuery;
  const db = new Kysely<HangarDatabase>({
    dialect: withUnavailableErrors(new GroupCommitSqliteDialect({ database: preparedStatementCache(database, writes), writes, wal, inTransaction })),
    ...(onQuery ? { log: (event: LogEvent) => onQuery(event.queryDurationMillis, event.level === 'error') } : {}),
  });
  try {
    database.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    const cacheBytes = options.cacheBytes ?? DEFAULT_SQLITE_CACHE_BYTES;
    // A negative cache_size is in KiB.
    if (cacheBytes > 0) database.pragma(`cache_size = ${-Math.max(1, Math.round(cacheBytes / 1024))}`);
    await switchToWal(database);
    // FULL while migrating (the COMMIT below is not Kysely's); NORMAL afterwards, where the
    // driver flushes the WAL itself before any write resolves.
    database.pragma('synchronous = FULL');
    // Has no effect inside a transaction, so it is set before the migrations' one.
    database.pragma('foreign_keys = ON');
    // Kysely's SQLite adapter neither locks nor wraps migrations in a transaction (it assumes a
    // single connection); the statements it issues run on this connection, inside this one.
    database.exec('BEGIN IMMEDIATE');
    try {
      // A copy of the image is at the latest migration already: this process made it so.
      if (!image) await migrateToLatest(db);
      database.exec('COMMIT');
      if (inMemory && !image) memoryImage ??= database.serialize();
    } catch (error) {
      if (database.inTransaction) database.exec('ROLLBACK');
      throw error;
    }
    if (wal) database.pragma('synchronous = NORMAL');
    // From here on the driver waits for other processes' locks itself, off the event loop.
    database.pragma('busy_timeout = 0');
    if (wal && options.checkpointWorker !== false) {
      // Checkpoints off the event loop (wal-checkpointer.ts); this connection keeps a safety net.
      const path = resolve(options.path);
      checkpoints = backgroundCheckpoints(path, (error) => {
        if (options.onCheckpointWorkerFailed) options.onCheckpointWorkerFailed(error);
        else console.error(`${error.message}; the service's own connection checkpoints and writes batches again, on the event loop`);
        if (database.open) database.pragma('wal_autocheckpoint = 1000');
      });
      database.pragma(`wal_autocheckpoint = ${SAFETY_NET_AUTOCHECKPOINT_PAGES}`);
      wal.onFlushed = () => checkpoints?.wrote();
    }
    const background = checkpoints;
    if (options.fastPath !== false) {
      direct = {
        read: access.read,
        beforeCachedRead: access.beforeCachedRead,
        transaction: access.transaction,
        // Batches (the activity log's) are written by the same worker, on its connection.
        ...(background ? { background: (statements: readonly CompiledQuery[]) => background.write(statements) } : {}),
      };
    }
  } catch (error) {
    access.close();
    await checkpoints?.close();
    await db.destroy();
    await wal?.close();
    // Kysely closes the file only if it ever ran a query.
    if (database.open) database.close();
    throw error;
  }
  return {
    db,
    ...(direct ? { direct } : {}),
    changes: new SqliteChangeFeed(access.lookups),
    close: async () => {
      // The checkpointer's connection first, so that this one is the last and its close
      // checkpoints and removes the WAL, as SQLite does.
      access.close();
      await checkpoints?.close();
      await db.destroy();
      await wal?.close();
    },
  };
}

/**
 * The image (`sqlite3_serialize`) of a private in-memory database right after its migrations, kept
 * from the first one this process opens; each later one opens a copy of it (`new Database(image)`,
 * `sqlite3_deserialize`), without running the migrations again. Creating the schema statement
 * by statement costs about 18 ms of CPU, opening a copy of its 0.5 MiB 2.4 ms; tests and programs
 * that embed the adapters open thousands of such databases (decision 0026). The image holds the
 * schema and the migrations' own rows only (never a user's data): it is taken before the database
 * is returned.
 */
let memoryImage: Buffer | undefined;

/**
 * Creates the database file, empty, readable and writable by this user only (0600, like
 * `jwt-secret`: it holds password hashes and tokens); SQLite gives its -wal and -shm files the
 * same mode. An existing file is left as it is (its mode is the operator's choice).
 */
async function createPrivately(path: string): Promise<void> {
  try {
    await (await open(path, 'wx', 0o600)).close();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

/**
 * `PRAGMA journal_mode = WAL`, tried again for up to 5 s while it fails with SQLITE_BUSY
 * ({@link retryWhileBusy}). Switching a new file to WAL writes its header under a lock, and when
 * several processes create the database at once SQLite may answer SQLITE_BUSY without calling the
 * busy handler, where waiting could deadlock (https://www.sqlite.org/c3ref/busy_handler.html): seen
 * as "database is locked" at start when two server processes came up together on one new file.
 * The pragma changed nothing when it failed, so trying again is safe.
 * @throws the last SQLITE_BUSY after 5 s, or any other error at once
 */
async function switchToWal(database: BetterSqlite3.Database): Promise<void> {
  await retryWhileBusy(() => database.pragma('journal_mode = WAL'));
}

/**
 * Kysely's SQLite dialect with {@link GroupCommitSqliteDriver} as its driver.
 */
class GroupCommitSqliteDialect extends SqliteDialect {
  constructor(private readonly options: GroupCommitOptions) {
    super({ database: options.database });
  }

  override createDriver(): Driver {
    return new GroupCommitSqliteDriver(this.options);
  }
}

interface GroupCommitOptions {
  database: KyselySqliteDatabase;
  /** Set by the statements that write; read and reset by the driver around each use of the connection. */
  writes: { happened: boolean };
  /** Flushes the WAL file; absent for an in-memory database. */
  wal?: WalFlusher;
  /** Whether the connection is inside a transaction (better-sqlite3's `inTransaction`). */
  inTransaction: () => boolean;
}

/**
 * Kysely's SQLite driver, with commits made durable off the event loop (group commit).
 *
 * With `synchronous=FULL`, better-sqlite3 fsyncs the WAL inside COMMIT, on the event loop:
 * every upload stalled the whole process for the length of an fsync (0.3–1 ms, more while the
 * blob store fsyncs too), so at most a few hundred uploads per second could commit at all
 * (bench/README.md, "4 KiB uploads"). Here the connection runs with `synchronous=NORMAL` (SQLite
 * then syncs the WAL only before checkpoints), and whenever a use of the connection (one statement,
 * or a whole transaction) wrote anything, the caller's promise resolves only after the WAL file has
 * been flushed (fdatasync on the thread pool). The connection is released first, so other
 * statements run meanwhile, and one flush serves every write committed before it started.
 *
 * What a caller learns is as durable as before: nothing resolves before its commit is on disk.
 * What changes: another request may read a committed row during the flush (well under a
 * millisecond) that a power loss at that instant would take back, with its writer never answered.
 */
class GroupCommitSqliteDriver extends SqliteDriver {
  constructor(private readonly options: GroupCommitOptions) {
    super({ database: options.database });
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await super.acquireConnection();
    this.options.writes.happened = false;
    return new BusyWaitingConnection(connection, this.options.inTransaction);
  }

  /**
   * `BEGIN IMMEDIATE` rather than Kysely's deferred `BEGIN`: the write lock is taken (and waited
   * for) at the start, where waiting is safe, instead of at the first write, where another
   * process's commit would fail the transaction with SQLITE_BUSY_SNAPSHOT. Every transaction here writes.
   */
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }

  override async releaseConnection(): Promise<void> {
    const wrote = this.options.writes.happened;
    await super.releaseConnection();
    if (wrote && this.options.wal) await this.options.wal.flush();
  }
}

/**
 * The connection, waiting asynchronously for other processes' locks: a statement outside a
 * transaction (including `BEGIN IMMEDIATE`) that fails with SQLITE_BUSY changed nothing, so it is
 * tried again after 1, 2, 4… (at most 50) ms, for up to BUSY_TIMEOUT_MS; then the SQLITE_BUSY goes
 * out (503 DATABASE_UNAVAILABLE). Meanwhile the event loop runs: requests that need no database
 * are answered, streams go on; those that need it wait for the connection, as they would anyway.
 */
class BusyWaitingConnection implements DatabaseConnection {
  constructor(
    private readonly inner: DatabaseConnection,
    private readonly inTransaction: () => boolean,
  ) {}

  executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    // Inside a transaction a failed statement is the transaction's to handle.
    return retryWhileBusy(
      () => this.inner.executeQuery<R>(compiledQuery),
      () => !this.inTransaction(),
    );
  }

  streamQuery<R>(compiledQuery: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(compiledQuery, chunkSize);
  }
}

/** Most statements {@link directAccess} keeps prepared; the precompiled statements are a handful. */
const DIRECT_STATEMENTS_KEPT = 64;

/**
 * Statements on the connection without Kysely's executor (`SqliteDatabase.direct`), one cache of
 * prepared statements (by SQL text, at most DIRECT_STATEMENTS_KEPT) for both ways in:
 *
 * - `read`: the precompiled lookups on every request's path (API key, user, session, custom domain,
 *   file by file id, totals): one synchronous better-sqlite3 call instead of the connection mutex
 *   and several promise hops, which cost more than the lookup itself (bench/README.md, "auth").
 *   Cacheable ones are answered from a {@link LookupCache} while the database is unchanged, after
 *   `beforeCachedRead` (the cache's `gate`: one check of other connections' commits per turn of the
 *   event loop, shared by every request waiting on it).
 * - `transaction`: whole transaction scripts (`SqlExecutor.transaction`), e.g. an upload's quota claim and
 *   record, five small statements that cost several times more CPU through Kysely than in
 *   SQLite itself (bench/README.md, "4 KiB uploads"): one synchronous `BEGIN IMMEDIATE`
 *   transaction; its promise resolves after the WAL flush, as every Kysely write does
 *   ({@link GroupCommitSqliteDriver}), so nothing is acknowledged before it is durable.
 *
 * Both decline (return `undefined`, and the caller goes through Kysely) when a transaction is open
 * on the connection, so they never see, nor write into, another request's uncommitted work; and on
 * any error: a read, or a transaction better-sqlite3 has rolled back, changed nothing, so running it
 * again the Kysely way reports the error as every other statement does (SQLITE_BUSY waits off the
 * event loop, outages answer 503). A read also declines a statement that would write. Outside a
 * transaction the connection holds only committed data, so a read returns what Kysely would have.
 * A failed WAL flush after a commit is reported (translated as Kysely's path would), never retried.
 * `close` lets go of the lookup cache's file (call it before closing the connection).
 */
function directAccess(
  database: BetterSqlite3.Database,
  wal: WalFlusher | undefined,
): { read: DirectReader; beforeCachedRead: CachedReadGate; transaction: DirectTransaction; lookups: () => LookupCache | undefined; close: () => void } {
  const statements = new Map<string, BetterSqlite3.Statement>();
  let lookups: LookupCache | undefined;
  let closed = false;
  /** The statement for `sql`, prepared once while the cache has room. @throws SQLite's error for bad SQL */
  const prepared = (sql: string): BetterSqlite3.Statement => {
    let statement = statements.get(sql);
    if (!statement) {
      statement = database.prepare(sql);
      if (statements.size < DIRECT_STATEMENTS_KEPT) statements.set(sql, statement);
    }
    return statement;
  };
  const execute = (query: CompiledQuery): QueryResult<unknown> => {
    const statement = prepared(query.sql);
    const parameters = query.parameters as unknown[];
    if (statement.reader) return { rows: statement.all(parameters) };
    const { changes } = statement.run(parameters);
    return { rows: [], numAffectedRows: BigInt(changes) };
  };
  return {
    read: (sql, parameters, cacheable) => {
      if (!database.open || database.inTransaction) return undefined;
      try {
        const statement = prepared(sql);
        if (!statement.readonly || !statement.reader || statement.busy) return undefined;
        if (cacheable) return (lookups ??= new LookupCache(database)).read(statement, sql, parameters);
        return statement.all(parameters);
      } catch {
        return undefined;
      }
    },
    // Cacheable reads wait for the turn's one check of other connections (LookupCache.gate).
    beforeCachedRead: () => (database.open && !database.inTransaction ? (lookups ??= new LookupCache(database)).gate() : undefined),
    transaction: <T>(work: (run: (query: CompiledQuery) => QueryResult<unknown>) => T): Promise<T> | undefined | typeof DIRECT_BUSY => {
      if (!database.open || database.inTransaction) return undefined;
      let result: T;
      try {
        result = database.transaction(() => work(execute)).immediate();
      } catch (error) {
        // BEGIN IMMEDIATE found another process's write lock: nothing ran (SqlExecutor.transaction tries again).
        return isBusy(error) ? DIRECT_BUSY : undefined;
      }
      if (!wal) return Promise.resolve(result);
      return wal.flush().then(
        () => result,
        (error: unknown) => {
          throw translateDatabaseError(error);
        },
      );
    },
    // Undefined once the connection is closed.
    lookups: () => (database.open && !closed ? (lookups ??= new LookupCache(database)) : undefined),
    // The lookup cache holds the `-shm` file open; closed before the connection.
    close: () => {
      closed = true;
      lookups?.close();
    },
  };
}

/** Prepared statements kept, by SQL text; the least recently used one is dropped beyond this. */
const STATEMENT_CACHE_SIZE = 256;
/**
 * Longer SQL is prepared each time. High enough for the activity log's 500-row INSERT (about 60 KB;
 * its batches use five fixed sizes, so five texts), which is run for every 500 requests.
 */
const CACHEABLE_SQL_LENGTH = 128 * 1024;

/**
 * The database as Kysely sees it: prepared statements are reused, and the ones that write report
 * it in `writes`. Kysely's SQLite driver prepares every query anew, and compiling the SQL costs
 * more than running an indexed lookup (bench/README.md, "Measurements behind the code").
 * SQLite re-prepares a cached statement by itself when the schema changes. A statement still
 * being iterated (`busy`) is not shared: the caller gets a fresh one.
 */
function preparedStatementCache(database: BetterSqlite3.Database, writes: { happened: boolean }): KyselySqliteDatabase {
  const cache = new Map<string, KyselySqliteStatement & { busy: boolean }>();
  const prepare = (sql: string) => reportingWrites(database.prepare(sql), writes);
  return {
    close: () => database.close(),
    prepare(sql: string) {
      if (sql.length > CACHEABLE_SQL_LENGTH) return prepare(sql);
      const cached = cache.get(sql);
      if (cached && !cached.busy) {
        // Re-inserted, so the Map's insertion order is the recency order.
        cache.delete(sql);
        cache.set(sql, cached);
        return cached;
      }
      const statement = prepare(sql);
      if (cached) return statement;
      cache.set(sql, statement);
      if (cache.size > STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value as string);
      return statement;
    },
  };
}

/** `statement` itself when it only reads; otherwise a wrapper that sets `writes.happened` whenever it runs. */
function reportingWrites(statement: BetterSqlite3.Statement, writes: { happened: boolean }): KyselySqliteStatement & { busy: boolean } {
  if (statement.readonly) return statement;
  return {
    reader: statement.reader,
    get busy() {
      return statement.busy;
    },
    all(parameters) {
      writes.happened = true;
      return statement.all(parameters);
    },
    run(parameters) {
      writes.happened = true;
      return statement.run(parameters);
    },
    iterate(parameters) {
      writes.happened = true;
      return statement.iterate(parameters);
    },
  };
}
