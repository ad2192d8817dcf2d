import {
  RateLimiterCluster,
  RateLimiterClusterMaster,
  RateLimiterMemory,
  RateLimiterPostgres,
  RateLimiterRes,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import type { RateCount, RateLimiter, RateRule } from '../../core/shared/rate-limiter.js';

/** Builds the `rate-limiter-flexible` limiter of one rule (its counters live under `keyPrefix` = the rule's name). */
type LimiterFactory = (rule: RateRule) => RateLimiterAbstract;

/**
 * {@link RateLimiter} over `rate-limiter-flexible` (fixed windows, atomic increments in the store).
 * {@link FlexibleRateLimiter.memory} keeps counters in this process (one process);
 * {@link FlexibleRateLimiter.cluster} asks the primary process of a `node:cluster` (the workers of
 * `WORKERS`, on SQLite), which holds them for all its workers ({@link serveClusterRateLimits});
 * {@link FlexibleRateLimiter.postgres} keeps them in the Postgres table `rate_limits` (created when
 * missing; `key` = `<rule>:<key>`, `points`, `expire` in Unix ms), so every process sharing the
 * database shares the limits. Expired rows are deleted every 5 minutes. Should Postgres fail or
 * time out, each rule falls back to counting in memory (the store's "insurance limiter"), so an
 * outage of the counters never turns a login into a 500, and limits still hold per process.
 */
export class FlexibleRateLimiter implements RateLimiter {
  private readonly limiters = new Map<string, RateLimiterAbstract>();

  private constructor(private readonly create: LimiterFactory) {}

  /** Counters in process memory: exact for one process, per process otherwise. */
  static memory(): FlexibleRateLimiter {
    return new FlexibleRateLimiter((rule) => new RateLimiterMemory({ keyPrefix: rule.name, points: rule.points, duration: rule.durationSeconds }));
  }

  /**
   * Counters held by the cluster's primary process, asked over the workers' IPC channel (a message
   * each way per call, so each call waits for the primary's turn), so every
   * worker shares them. Only in a `node:cluster` worker whose
   * primary called {@link serveClusterRateLimits}. Each rule's store is named by its name, points
   * and window, so two rules of one name never share counters. An answer that takes more than
   * `timeoutMs` (default 2000 ms) fails the call (the primary is gone or stuck: an outage).
   * @throws Error when this process is not a cluster worker
   */
  static cluster(options: { timeoutMs?: number } = {}): FlexibleRateLimiter {
    if (typeof process.send !== 'function') throw new Error('FlexibleRateLimiter.cluster needs a node:cluster worker (no IPC channel to a primary).');
    const timeoutMs = options.timeoutMs ?? 2_000;
    return new FlexibleRateLimiter(
      (rule) => new RateLimiterCluster({ keyPrefix: ruleId(rule), points: rule.points, duration: rule.durationSeconds, timeoutMs }),
    );
  }

  /**
   * Counters in Postgres through `pool` (a node-postgres Pool; the connection's `search_path` picks the schema).
   * Resolves once the table exists.
   * @throws the driver's error when the table cannot be created
   */
  static async postgres(pool: unknown, tableName = 'rate_limits'): Promise<FlexibleRateLimiter> {
    await new Promise<void>((resolve, reject) => {
      // The first limiter creates the table (CREATE TABLE IF NOT EXISTS) and sweeps expired rows.
      new RateLimiterPostgres({ storeClient: pool, storeType: 'pool', tableName, keyPrefix: 'setup', points: 1, duration: 1 }, (error?: unknown) =>
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the driver's error is passed on as it came
        error ? reject(error) : resolve(),
      );
    });
    return new FlexibleRateLimiter(
      (rule) =>
        new RateLimiterPostgres({
          storeClient: pool,
          storeType: 'pool',
          tableName,
          tableCreated: true,
          clearExpiredByTimeout: false,
          keyPrefix: rule.name,
          points: rule.points,
          duration: rule.durationSeconds,
          insuranceLimiter: new RateLimiterMemory({ keyPrefix: rule.name, points: rule.points, duration: rule.durationSeconds }),
        }),
    );
  }

  /** {@link RateLimiter.consume}: a refusal of the store (`RateLimiterRes`) becomes `retryAfterSeconds`; store errors are thrown. */
  async consume(options: { rule: RateRule; key: string; points?: number }): Promise<RateCount> {
    try {
      const res = await this.limiter(options.rule).consume(options.key, options.points ?? 1);
      return { consumed: res.consumedPoints, retryAfterSeconds: 0 };
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      return { consumed: rejection.consumedPoints, retryAfterSeconds: Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)) };
    }
  }

  /** {@link RateLimiter.reward}: the store's own `reward` (an atomic decrement, in every store). */
  async reward(options: { rule: RateRule; key: string; points?: number }): Promise<void> {
    await this.limiter(options.rule).reward(options.key, options.points ?? 1);
  }

  /** {@link RateLimiter.retryAfter}: the seconds left while the key's count is past the rule (or it is blocked). */
  async retryAfter(options: { rule: RateRule; key: string }): Promise<number> {
    const res = await this.limiter(options.rule).get(options.key);
    if (!res || res.consumedPoints <= options.rule.points || res.msBeforeNext <= 0) return 0;
    return Math.max(1, Math.ceil(res.msBeforeNext / 1000));
  }

  /** {@link RateLimiter.block}, in whole seconds (at least 1). */
  async block(options: { rule: RateRule; key: string; seconds: number }): Promise<void> {
    await this.limiter(options.rule).block(options.key, Math.max(1, Math.ceil(options.seconds)));
  }

  /** {@link RateLimiter.reset}: deletes the key's counter. */
  async reset(options: { rule: RateRule; key: string }): Promise<void> {
    await this.limiter(options.rule).delete(options.key);
  }

  private limiter(rule: RateRule): RateLimiterAbstract {
    const id = ruleId(rule);
    let limiter = this.limiters.get(id);
    if (!limiter) {
      limiter = this.create(rule);
      this.limiters.set(id, limiter);
    }
    return limiter;
  }
}

/** One store per rule: its name, points and window (e.g. `login_account/5/900`). */
function ruleId(rule: RateRule): string {
  return `${rule.name}/${rule.points}/${rule.durationSeconds}`;
}

/**
 * In the primary process of a `node:cluster`: holds the counters of every worker's
 * {@link FlexibleRateLimiter.cluster} in this process's memory and answers their messages. Call
 * once, before forking; calling again is harmless (the library keeps one instance). The counters
 * live as long as the primary: a worker restarted by it keeps its clients' counts.
 */
export function serveClusterRateLimits(): void {
  new RateLimiterClusterMaster();
}
