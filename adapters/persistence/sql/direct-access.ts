import type { CompiledQuery, QueryResult } from 'kysely';

/**
 * Runs compiled, read-only SQL synchronously and returns its rows, or `undefined` when it cannot
 * answer right now (the caller then goes through Kysely as usual). `parameters` are positional, as
 * Kysely compiled them. With `cacheable`, the reader may answer from rows it read before for the
 * same SQL and parameters, as long as it knows the database has not changed since (the SQLite
 * adapter checks that on every call); the rows are shared, so the caller must not modify them.
 */
export type DirectReader = (sql: string, parameters: readonly unknown[], cacheable?: boolean) => unknown[] | undefined;

/**
 * Called before a cacheable read: `undefined` when the reader may answer from its cache at once, or
 * a promise to await first; the reads waiting on one promise then run together, and one check of
 * the cache against other connections' commits serves them all (SQLite: one check per turn of the
 * event loop for all the requests that reached a lookup in it; see LookupCache.gate). Never rejects.
 */
export type CachedReadGate = () => Promise<void> | undefined;

/**
 * Answer of a {@link DirectTransaction} that could not start because another connection (another
 * process) holds the database's write lock: nothing ran, and trying again shortly is likely to work.
 */
export const DIRECT_BUSY = Symbol('direct transaction: write lock held elsewhere');

/**
 * Runs `work` as one transaction, synchronously, each statement through `execute`; resolves once the
 * commit is durable. Returns {@link DIRECT_BUSY} when another connection holds the write lock
 * (nothing ran), and `undefined` when it cannot run now for another reason or the transaction
 * failed (it was rolled back, nothing changed): the caller then runs the same work through Kysely,
 * which waits for the connection and reports errors as usual.
 */
export type DirectTransaction = <T>(work: (execute: (query: CompiledQuery) => QueryResult<unknown>) => T) => Promise<T> | undefined | typeof DIRECT_BUSY;

/**
 * How long `SqlExecutor.transaction` keeps trying the direct way while another process holds the
 * write lock, in ms, before it hands the work to Kysely (which waits up to 5 s more, then answers
 * 503). Other processes' transactions hold the lock for well under a millisecond.
 */
export const DIRECT_BUSY_WAIT_MS = 100;

/**
 * Runs `statements` as one transaction on another connection, off the event loop, and resolves once
 * the commit is durable; `undefined` when it cannot take them now (the caller then runs them itself).
 * @throws (rejects) the database's error when the transaction failed; nothing was written then
 */
export type BackgroundWriter = (statements: readonly CompiledQuery[]) => Promise<void> | undefined;

/**
 * The SQLite fast path: statements run on the in-process, synchronous connection without Kysely's
 * executor, whose connection mutex, promise hops and per-statement query objects cost several times
 * what an indexed lookup or a small transaction costs there (bench/README.md). The SQLite adapter
 * builds one (`SqliteDatabase.direct`, absent when switched off) and the composition hands it to the
 * repositories through their `SqlExecutor`; nothing finds it any other way.
 * - `read`: precompiled lookups (`PrecompiledQuery`), one synchronous call;
 * - `beforeCachedRead`: the gate of cacheable lookups (one check of other connections' commits per
 *   turn of the event loop);
 * - `transaction`: whole transaction scripts (`SqlExecutor.transaction`), one synchronous `BEGIN IMMEDIATE`;
 * - `background`: batches no request waits on (`SqlExecutor.batch`), on a worker thread's connection.
 * Statements inside a Kysely transaction never take it: only the executor of the database itself carries it.
 */
export interface DirectExecutor {
  read: DirectReader;
  beforeCachedRead?: CachedReadGate;
  transaction?: DirectTransaction;
  background?: BackgroundWriter;
}

/**
 * A transaction written once for every database: a generator that yields each statement (compiled,
 * e.g. by `PrecompiledQuery.compiled`) and receives its result, then returns the outcome. It must
 * do nothing but yield statements and compute: it may run synchronously (SQLite) or with a
 * round-trip per statement (Postgres), and may be run more than once (see `SqlExecutor.transaction`).
 */
export type TransactionScript<T> = () => Generator<CompiledQuery, T, QueryResult<unknown>>;
