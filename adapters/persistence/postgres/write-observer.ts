import type { CompiledQuery, DatabaseConnection, Dialect, Driver, QueryResult, TransactionSettings } from 'kysely';
import { WrappingDriver, withWrappedDriver } from '../sql/wrapping-driver.js';

/** The tables whose rows PostgresLookupCache keeps, and which writes to them change kept rows. */
const OBSERVED = /^\s*(?:(update|delete\s+from)\s+"?(users|api_keys|sessions|custom_domains|files)"?[\s(]|insert\s+into\s+"?(custom_domains)"?[\s(])/i;

/**
 * The read counters' UPDATE (`SqlFileRepository.addReadCounts`, every flush under read load): it
 * changes only `view_count`/`download_count`, and the repository drops the counted files' entries
 * itself after its commit, so it does not drop every entry of the process.
 */
const READ_COUNTS_ONLY =
  /^\s*update\s+"files"\s+set\s+"view_count"\s*=\s*view_count\s*\+\s*\$1\s*,\s*"download_count"\s*=\s*download_count\s*\+\s*\$2\s+where\s+"file_id"\s*=\s*\$3\s*$/i;

/**
 * True when `sql` writes rows a lookup cache may keep (an INSERT into `files` adds no row anybody
 * looked up; the read counters' UPDATE is handled by its repository, see {@link READ_COUNTS_ONLY}).
 */
export function writesObservedRows(sql: string): boolean {
  return OBSERVED.test(sql) && !READ_COUNTS_ONLY.test(sql);
}

/**
 * Wraps a Kysely dialect so that `onWrite` is called after every statement that writes rows of the
 * cached tables ({@link writesObservedRows}), and again after the commit of a transaction that ran
 * one: the process's lookup cache then drops what it kept, so this process reads its own writes at
 * once (other processes learn of them through the change feed).
 */
export function observingWrites(dialect: Dialect, onWrite: () => void): Dialect {
  return withWrappedDriver(dialect, (driver) => new ObservingDriver(driver, onWrite));
}

class ObservingConnection implements DatabaseConnection {
  /** A statement of the open transaction wrote observed rows. */
  wrote = false;

  constructor(
    readonly inner: DatabaseConnection,
    private readonly onWrite: () => void,
  ) {}

  async executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    const observed = writesObservedRows(compiledQuery.sql);
    try {
      return await this.inner.executeQuery<R>(compiledQuery);
    } finally {
      if (observed) {
        this.wrote = true;
        this.onWrite();
      }
    }
  }

  streamQuery<R>(compiledQuery: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(compiledQuery, chunkSize);
  }
}

class ObservingDriver extends WrappingDriver<ObservingConnection> {
  constructor(
    inner: Driver,
    private readonly onWrite: () => void,
  ) {
    super(inner);
  }

  protected wrap(connection: DatabaseConnection): ObservingConnection {
    return new ObservingConnection(connection, this.onWrite);
  }

  override beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    (connection as ObservingConnection).wrote = false;
    return super.beginTransaction(connection, settings);
  }

  override async commitTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await super.commitTransaction(connection);
    } finally {
      if (connection instanceof ObservingConnection && connection.wrote) this.onWrite();
    }
  }
}
