import type { CompiledQuery, Kysely, QueryResult } from 'kysely';
import { translateDatabaseError } from './database-unavailable.js';
import type { HangarDatabase } from './schema.js';

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
 * How long {@link runTransaction} keeps trying the direct way while another process holds the
 * write lock, in ms, before it hands the work to Kysely (which waits up to 5 s more, then answers
 * 503). Other processes' transactions hold the lock for well under a millisecond.
 */
export const DIRECT_BUSY_WAIT_MS = 100;
/** Pauses between direct attempts while the lock is held elsewhere, in ms (0: the next turn of the event loop), the last one repeated. */
const DIRECT_BUSY_PAUSES_MS = [0, 0, 1, 2, 4, 8] as const;

/**
 * Runs `statements` as one transaction on another connection, off the event loop, and resolves once
 * the commit is durable; `undefined` when it cannot take them now (the caller then runs them itself).
 * @throws (rejects) the database's error when the transaction failed; nothing was written then
 */
export type BackgroundWriter = (statements: readonly CompiledQuery[]) => Promise<void> | undefined;

interface DirectAccess {
  read: DirectReader;
  beforeCachedRead?: CachedReadGate;
  transaction?: DirectTransaction;
  background?: BackgroundWriter;
}

const registry = new WeakMap<object, DirectAccess>();

/**
 * Declares that statements on `db` may bypass Kysely's executor: reads through `access.read`, whole
 * transactions through `access.transaction`, batches no request waits on through `access.background`
 * (another connection, see {@link runBatch}). Used by the SQLite adapter, whose connection is
 * in-process and synchronous: Kysely's executor (connection mutex, promise hops, a query compiled
 * for each statement) costs several times what an indexed lookup or a small transaction costs
 * there (bench/README.md). Only the Kysely instance itself is registered, never a transaction, so
 * statements inside a Kysely transaction always take the normal path.
 */
export function registerDirectAccess(db: Kysely<HangarDatabase>, access: DirectAccess): void {
  registry.set(db, access);
}

/** The reader registered for `db` and the gate of its cacheable reads, if any (see {@link registerDirectAccess}). */
export function directReadsOf(db: Kysely<HangarDatabase>): Pick<DirectAccess, 'read' | 'beforeCachedRead'> | undefined {
  return registry.get(db);
}

/**
 * A transaction written once for every database: a generator that yields each statement (compiled,
 * e.g. by `PrecompiledQuery.compiled`) and receives its result, then returns the outcome. It must
 * do nothing but yield statements and compute: it may run synchronously (SQLite) or with a
 * round-trip per statement (Postgres), and may be run more than once (see {@link runTransaction}).
 */
export type TransactionScript<T> = () => Generator<CompiledQuery, T, QueryResult<unknown>>;

/**
 * Runs `script` as one transaction on `db`: through the registered direct transaction when there is
 * one and it accepts (one synchronous better-sqlite3 transaction, `BEGIN IMMEDIATE`), otherwise as
 * a Kysely transaction with one `executeQuery` per yielded statement. While another process holds
 * the write lock ({@link DIRECT_BUSY}), the direct way is tried again after short pauses off the
 * event loop for up to {@link DIRECT_BUSY_WAIT_MS}: with two server processes on one SQLite file,
 * uploads often find the lock taken, and handing those to Kysely costs far more CPU than waiting
 * (bench/README.md, "Measurements behind the code"). A direct attempt that fails otherwise is rolled back and
 * the script runs again the Kysely way, which reports its error as every other statement does (a
 * constraint violation as the driver's error, an outage as DATABASE_UNAVAILABLE).
 * @throws what the statements or the script throw (Kysely path)
 */
export async function runTransaction<T>(db: Kysely<HangarDatabase>, script: TransactionScript<T>): Promise<T> {
  const transaction = registry.get(db)?.transaction;
  if (transaction) {
    const work = (execute: (query: CompiledQuery) => QueryResult<unknown>) => drive(script(), execute);
    let direct = transaction(work);
    const deadline = direct === DIRECT_BUSY ? Date.now() + DIRECT_BUSY_WAIT_MS : 0;
    for (let attempt = 0; direct === DIRECT_BUSY && Date.now() < deadline; attempt++) {
      await pause(DIRECT_BUSY_PAUSES_MS[Math.min(attempt, DIRECT_BUSY_PAUSES_MS.length - 1)]);
      direct = transaction(work);
    }
    if (direct !== undefined && direct !== DIRECT_BUSY) return direct;
  }
  return db.transaction().execute(async (trx) => {
    const steps = script();
    let step = steps.next();
    while (!step.done) step = steps.next(await trx.executeQuery(step.value));
    return step.value;
  });
}

/** Resolves after `ms` milliseconds; 0: on the next turn of the event loop (setImmediate). */
function pause(ms: number): Promise<void> {
  return new Promise((resolve) => (ms === 0 ? setImmediate(resolve) : setTimeout(resolve, ms)));
}

function drive<T>(steps: Generator<CompiledQuery, T, QueryResult<unknown>>, execute: (query: CompiledQuery) => QueryResult<unknown>): T {
  let step = steps.next();
  while (!step.done) step = steps.next(execute(step.value));
  return step.value;
}

/**
 * Writes `statements` as one transaction: on the registered background writer when there is one
 * (SQLite with a database file: a worker thread's connection, so that a large batch does not hold
 * the event loop), otherwise as a Kysely transaction on `db`. For writes no request waits on, such
 * as the activity log's batches; either way the promise resolves once the commit is durable.
 * @throws what the database throws; outages as DATABASE_UNAVAILABLE (translateDatabaseError)
 */
export async function runBatch(db: Kysely<HangarDatabase>, statements: readonly CompiledQuery[]): Promise<void> {
  if (statements.length === 0) return;
  const background = registry.get(db)?.background?.(statements);
  if (background) {
    try {
      await background;
    } catch (error) {
      throw translateDatabaseError(error);
    }
    return;
  }
  await db.transaction().execute(async (trx) => {
    for (const statement of statements) await trx.executeQuery(statement);
  });
}
