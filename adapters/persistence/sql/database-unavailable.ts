import type {
  CompiledQuery,
  DatabaseConnection,
  DatabaseIntrospector,
  Dialect,
  DialectAdapter,
  Driver,
  Kysely,
  QueryCompiler,
  QueryResult,
  TransactionSettings,
} from 'kysely';
import { DomainError } from '../../../core/shared/errors.js';

/**
 * SQLite result codes that mean "the database cannot serve this now", not "this statement is
 * wrong": another process holds the write lock past busy_timeout, the disk failed or is full, the
 * file is gone or read-only (https://www.sqlite.org/rescode.html). Extended codes share the prefix.
 */
const SQLITE_UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|IOERR|FULL|CANTOPEN|READONLY|PROTOCOL|NOMEM|NOLFS|CORRUPT|NOTADB)/;
/** Socket and file errors: Postgres unreachable, the WAL flush failing (EIO, ENOSPC). */
const SYSTEM_UNAVAILABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'EIO',
  'ENOSPC',
  'EDQUOT',
]);
/**
 * Postgres SQLSTATEs of an outage or an overload (https://www.postgresql.org/docs/current/errcodes-appendix.html):
 * class 08 connection exception, 53 insufficient resources, 57 operator intervention (shutdown,
 * statement timeout 57014), 58 system error; 40001/40P01 serialization failure and deadlock.
 */
const POSTGRES_UNAVAILABLE = /^(08|53|57|58)|^40001$|^40P01$/;
/** node-postgres's own messages for a pool or connection that cannot reach the server. */
const PG_CLIENT_MESSAGES =
  /timeout exceeded when trying to connect|Connection terminated|connection error|Client was closed|Cannot use a pool after calling end/i;

/**
 * True when `error` says the database is locked, down, unreachable, out of space or overloaded,
 * rather than that the query is wrong (constraint violations and syntax errors are not outages).
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string') {
    if (SQLITE_UNAVAILABLE.test(code) || SYSTEM_UNAVAILABLE.has(code) || POSTGRES_UNAVAILABLE.test(code)) return true;
  }
  return typeof message === 'string' && PG_CLIENT_MESSAGES.test(message);
}

/** `error` as DATABASE_UNAVAILABLE when it is an outage (the cause kept for the logs), else unchanged. */
export function translateDatabaseError(error: unknown): unknown {
  if (error instanceof DomainError || !isDatabaseUnavailable(error)) return error;
  const translated = new DomainError('DATABASE_UNAVAILABLE', 'The database is unavailable right now; nothing was changed. Try again shortly.');
  translated.cause = error;
  return translated;
}

async function translated<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw translateDatabaseError(error);
  }
}

/**
 * Wraps a Kysely dialect so that every outage the driver reports (connecting, a query, begin,
 * commit, the durability flush on release) surfaces as DomainError DATABASE_UNAVAILABLE (503), in
 * every repository at once, while other errors (constraint violations the repositories inspect)
 * pass through unchanged. A failed write is rolled back by the database, so "unavailable" always
 * means "nothing was changed", except for a COMMIT whose answer was lost (Postgres), which the
 * caller cannot tell from a failure either.
 */
export function withUnavailableErrors(dialect: Dialect): Dialect {
  return {
    createAdapter: (): DialectAdapter => dialect.createAdapter(),
    createDriver: (): Driver => new TranslatingDriver(dialect.createDriver()),
    createQueryCompiler: (): QueryCompiler => dialect.createQueryCompiler(),
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's Dialect interface declares this parameter Kysely<any>
    createIntrospector: (db: Kysely<any>): DatabaseIntrospector => dialect.createIntrospector(db),
  };
}

class TranslatingConnection implements DatabaseConnection {
  constructor(readonly inner: DatabaseConnection) {}

  executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    return translated(() => this.inner.executeQuery<R>(compiledQuery));
  }

  async *streamQuery<R>(compiledQuery: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    try {
      yield* this.inner.streamQuery<R>(compiledQuery, chunkSize);
    } catch (error) {
      throw translateDatabaseError(error);
    }
  }
}

class TranslatingDriver implements Driver {
  constructor(private readonly inner: Driver) {}

  init(): Promise<void> {
    return translated(() => this.inner.init());
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    return new TranslatingConnection(await translated(() => this.inner.acquireConnection()));
  }

  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return translated(() => this.inner.beginTransaction(innerOf(connection), settings));
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return translated(() => this.inner.commitTransaction(innerOf(connection)));
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return translated(() => this.inner.rollbackTransaction(innerOf(connection)));
  }

  savepoint(connection: DatabaseConnection, name: string, compile: Parameters<NonNullable<Driver['savepoint']>>[2]): Promise<void> {
    return translated(() => this.inner.savepoint!(innerOf(connection), name, compile));
  }

  rollbackToSavepoint(connection: DatabaseConnection, name: string, compile: Parameters<NonNullable<Driver['rollbackToSavepoint']>>[2]): Promise<void> {
    return translated(() => this.inner.rollbackToSavepoint!(innerOf(connection), name, compile));
  }

  releaseSavepoint(connection: DatabaseConnection, name: string, compile: Parameters<NonNullable<Driver['releaseSavepoint']>>[2]): Promise<void> {
    return translated(() => this.inner.releaseSavepoint!(innerOf(connection), name, compile));
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return translated(() => this.inner.releaseConnection(innerOf(connection)));
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}

function innerOf(connection: DatabaseConnection): DatabaseConnection {
  return connection instanceof TranslatingConnection ? connection.inner : connection;
}
