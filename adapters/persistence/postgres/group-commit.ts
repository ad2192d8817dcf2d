import type { CompiledQuery, DatabaseConnection, Dialect, Driver, QueryResult, TransactionSettings } from 'kysely';
import { WrappingDriver, withWrappedDriver } from '../sql/wrapping-driver.js';
import { FlushQueue } from '../../../core/shared/flush-queue.js';

/**
 * The setting the pool's sessions start with (a startup option of the connection): their commits
 * return without waiting for the WAL to reach the disk, and release their row locks at once.
 */
export const ASYNCHRONOUS_COMMIT_SETTING = 'synchronous_commit=off';

/**
 * The durability flush: one transaction that commits synchronously. Its commit record follows every
 * commit made before it started, and Postgres flushes the WAL up to that record before answering
 * (and, with synchronous replication, waits for the standbys up to it), so every such commit is then
 * as durable as a synchronous commit of its own. One round trip (simple protocol, four statements).
 */
export const DURABILITY_FLUSH_SQL = 'begin; set local synchronous_commit = on; select txid_current(); commit';

/** Statements that do not start with `select` (see {@link mayWrite}). */
const MAY_WRITE = /^\s*(?!select\b)[a-z]/i;

/** A statement that starts with `with` (CTEs before its main query). */
const WITH = /^\s*with\b/i;
/** The words of the data-modifying commands; a `with` statement without any of them only reads. */
const DATA_MODIFYING = /\b(insert|update|delete|merge)\b/i;

/**
 * True when `sql` may write: the write's caller then waits for a durability flush. `select …` and a
 * `with …` that holds none of the words `insert`, `update`, `delete` and `merge` (a data-modifying
 * CTE must use one; values are parameters, never in the text) are reads: a search's
 * `with … as materialized (select …) select …` waits for no flush. `select … for update` locks
 * rows and writes none.
 */
export function mayWrite(sql: string): boolean {
  if (!MAY_WRITE.test(sql)) return false;
  return !WITH.test(sql) || DATA_MODIFYING.test(sql);
}

/**
 * Group commit on Postgres, as the SQLite driver does it (GroupCommitSqliteDriver): the pool's
 * connections commit asynchronously ({@link ASYNCHRONOUS_COMMIT_SETTING}), so a transaction holds its row
 * locks only while its statements run, not while its commit is written to disk; and the caller of
 * every write (a statement that {@link mayWrite} outside a transaction, or a committed transaction
 * that ran one) is answered only after a {@link DURABILITY_FLUSH_SQL} that started after the commit
 * has returned. One flush runs at a time and serves every write committed before it started
 * (FlushQueue), after the connection went back to the pool.
 *
 * Why: every upload of an account updates the account's `account_totals` row, so with synchronous
 * commits the uploads of one account followed each other at the pace of one WAL fsync each
 * (bench/README.md, "Postgres group commit").
 *
 * What a caller learns is as durable as with synchronous commits: nothing resolves before its
 * commit is on disk. What changes, as on SQLite: another request may read a committed row in the
 * moment before the flush that a crash of the database server at that instant would take back,
 * its writer never answered. When the flush fails (the server went away), the write's caller gets
 * the flush's error: its commit may or may not have reached the disk, as when a connection is lost
 * during a synchronous COMMIT.
 */
export function groupCommit(dialect: Dialect, flush: () => Promise<unknown>): Dialect {
  const flushes = new FlushQueue(async () => {
    await flush();
  });
  return withWrappedDriver(dialect, (driver) => new GroupCommitDriver(driver, flushes));
}

class GroupCommitConnection implements DatabaseConnection {
  /** A transaction is open on this connection. */
  inTransaction = false;
  /** A write committed (or ran in the open transaction) since the connection was acquired. */
  wrote = false;

  constructor(readonly inner: DatabaseConnection) {}

  async executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    const result = await this.inner.executeQuery<R>(compiledQuery);
    if (mayWrite(compiledQuery.sql)) this.wrote = true;
    return result;
  }

  streamQuery<R>(compiledQuery: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    if (mayWrite(compiledQuery.sql)) this.wrote = true;
    return this.inner.streamQuery<R>(compiledQuery, chunkSize);
  }
}

class GroupCommitDriver extends WrappingDriver<GroupCommitConnection> {
  constructor(
    inner: Driver,
    private readonly flushes: FlushQueue,
  ) {
    super(inner);
  }

  protected wrap(connection: DatabaseConnection): GroupCommitConnection {
    return new GroupCommitConnection(connection);
  }

  override beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    (connection as GroupCommitConnection).inTransaction = true;
    return super.beginTransaction(connection, settings);
  }

  override async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await super.commitTransaction(connection);
    (connection as GroupCommitConnection).inTransaction = false;
  }

  override rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const grouped = connection as GroupCommitConnection;
    // Nothing of the transaction remains to be made durable.
    grouped.wrote = false;
    grouped.inTransaction = false;
    return super.rollbackTransaction(connection);
  }

  /** Returns the connection to the pool, then, when it wrote, waits for a durability flush. */
  override async releaseConnection(connection: DatabaseConnection): Promise<void> {
    await super.releaseConnection(connection);
    const grouped = connection as GroupCommitConnection;
    if (grouped.wrote && !grouped.inTransaction) await this.flushes.flush();
  }
}
