import type { CompiledQuery, Kysely, QueryResult } from 'kysely';
import { translateDatabaseError } from './database-unavailable.js';
import { DIRECT_BUSY, DIRECT_BUSY_WAIT_MS, type DirectExecutor, type DirectTransaction, type TransactionScript } from './direct-access.js';
import type { SharedLookups } from './shared-lookups.js';
import type { HangarDatabase } from './schema.js';

/** Pauses between direct attempts while the lock is held elsewhere, in ms (0: the next turn of the event loop), the last one repeated. */
const DIRECT_BUSY_PAUSES_MS = [0, 0, 1, 2, 4, 8] as const;

/** What one attempt of a direct transaction answers (DirectTransaction), kept in an object where a promise would be flattened. */
type DirectAttempt<T> = Promise<T> | undefined | typeof DIRECT_BUSY;

/** What a database adapter offers the SQL repositories besides Kysely (see {@link SqlExecutor}). */
export interface SqlExecutorOptions {
  /** SQLite's fast path (`SqliteDatabase.direct`); absent: every statement through Kysely. */
  direct?: DirectExecutor;
  /** Postgres's lookup cache and prepared lookups (`PostgresDatabase.lookups`); absent: lookups through Kysely. */
  lookups?: SharedLookups;
}

/**
 * How the SQL repositories run statements on one database: `db` (Kysely) for everything, plus what
 * the database adapter offers for the statements on every request's path, given explicitly by the
 * composition (createSqlRepositories): SQLite's {@link DirectExecutor} (`direct`), Postgres's
 * {@link SharedLookups} (`lookups`). With neither (a Kysely transaction, a switched-off fast path,
 * an embedder's own Kysely instance) every statement goes through Kysely, with the same results.
 * `PrecompiledQuery.execute` reads through it; transaction scripts and batches run through
 * {@link transaction} and {@link batch}.
 */
export class SqlExecutor {
  /** SQLite's fast path, when given. */
  readonly direct: DirectExecutor | undefined;
  /** Postgres's shared lookups, when given. */
  readonly lookups: SharedLookups | undefined;

  constructor(
    readonly db: Kysely<HangarDatabase>,
    options: SqlExecutorOptions = {},
  ) {
    this.direct = options.direct;
    this.lookups = options.lookups;
  }

  /**
   * Set while one transaction polls the write lock that another connection holds: the resolvers of
   * the transactions that wait for its turn (see {@link afterLockWait}).
   */
  private lockWaiters: (() => void)[] | undefined;

  /**
   * Runs `script` as one transaction: through the direct transaction when there is one and it
   * accepts (one synchronous better-sqlite3 transaction, `BEGIN IMMEDIATE`), otherwise as a Kysely
   * transaction with one `executeQuery` per yielded statement. While another process holds the
   * write lock ({@link DIRECT_BUSY}), the direct way is tried again after short pauses off the
   * event loop for up to {@link DIRECT_BUSY_WAIT_MS}, by one waiting transaction at a time (the
   * others wait for it: {@link afterLockWait}): with two server processes on one SQLite file,
   * uploads often find the lock taken, and handing those to Kysely costs far more CPU than waiting
   * (bench/README.md, "Measurements behind the code"). A direct attempt that fails otherwise is rolled back and the script runs
   * again the Kysely way, which reports its error as every other statement does (a constraint
   * violation as the driver's error, an outage as DATABASE_UNAVAILABLE).
   * @throws what the statements or the script throw (Kysely path)
   */
  async transaction<T>(script: TransactionScript<T>): Promise<T> {
    const transaction = this.direct?.transaction;
    if (transaction) {
      const work = (execute: (query: CompiledQuery) => QueryResult<unknown>) => drive(script(), execute);
      let direct: DirectAttempt<T> = this.lockWaiters ? DIRECT_BUSY : transaction(work);
      if (direct === DIRECT_BUSY) ({ direct } = await this.afterLockWait(transaction, work, Date.now() + DIRECT_BUSY_WAIT_MS));
      if (direct !== undefined && direct !== DIRECT_BUSY) return direct;
    }
    return this.db.transaction().execute(async (trx) => {
      const steps = script();
      let step = steps.next();
      while (!step.done) step = steps.next(await trx.executeQuery(step.value));
      return step.value;
    });
  }

  /**
   * The direct transaction of `work` once the write lock, held by another connection, is free, or
   * DIRECT_BUSY at `deadline` (ms since the epoch), as `{ direct }` (its promise not awaited). One
   * transaction at a time polls the lock with its own attempt, after pauses of
   * {@link DIRECT_BUSY_PAUSES_MS}; the others wait for that poll to end and then try once each (they
   * run one after another on this connection, so once the lock is free they all get it). Why: a
   * refused attempt costs a `BEGIN IMMEDIATE` and SQLite's error object, and with every waiting
   * transaction polling on its own, one activity-log batch on the background writer's connection
   * cost each waiting upload an attempt per pause (bench/README.md, thirteenth session).
   */
  private async afterLockWait<T>(
    transaction: DirectTransaction,
    work: (execute: (query: CompiledQuery) => QueryResult<unknown>) => T,
    deadline: number,
  ): Promise<{ direct: DirectAttempt<T> }> {
    for (;;) {
      const waiters = this.lockWaiters;
      if (waiters) {
        await new Promise<void>((resolve) => waiters.push(resolve));
        const direct = transaction(work);
        if (direct !== DIRECT_BUSY || Date.now() >= deadline) return { direct };
        continue;
      }
      const own: (() => void)[] = [];
      this.lockWaiters = own;
      let direct: DirectAttempt<T> = DIRECT_BUSY;
      try {
        for (let attempt = 0; direct === DIRECT_BUSY && Date.now() < deadline; attempt++) {
          await pause(DIRECT_BUSY_PAUSES_MS[Math.min(attempt, DIRECT_BUSY_PAUSES_MS.length - 1)]);
          direct = transaction(work);
        }
      } finally {
        this.lockWaiters = undefined;
        for (const resume of own) resume();
      }
      return { direct };
    }
  }

  /**
   * Writes `statements` as one transaction: on the direct background writer when there is one
   * (SQLite with a database file: a worker thread's connection, so that a large batch does not hold
   * the event loop), otherwise as a Kysely transaction. For writes no request waits on, such as the
   * activity log's batches; either way the promise resolves once the commit is durable.
   * @throws what the database throws; outages as DATABASE_UNAVAILABLE (translateDatabaseError)
   */
  async batch(statements: readonly CompiledQuery[]): Promise<void> {
    if (statements.length === 0) return;
    const background = this.direct?.background?.(statements);
    if (background) {
      try {
        await background;
      } catch (error) {
        throw translateDatabaseError(error);
      }
      return;
    }
    await this.db.transaction().execute(async (trx) => {
      for (const statement of statements) await trx.executeQuery(statement);
    });
  }
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
