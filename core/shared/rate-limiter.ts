/**
 * A counting rule: at most `points` per fixed window of `durationSeconds` that starts at a key's
 * first point. `name` separates the counters of different rules (one key space per name).
 */
export interface RateRule {
  name: string;
  points: number;
  durationSeconds: number;
}

/** A key's counter after {@link RateLimiter.consume}. */
export interface RateCount {
  /** Points counted in the current window, this one included. */
  consumed: number;
  /** 0 when this point was within the rule; else whole seconds until the key may act again (≥ 1). */
  retryAfterSeconds: number;
}

/**
 * Port: counters for rate limits, shared by every process that must agree on them (OWASP ASVS
 * 2.2.1, 11.1.4). Adapters: `adapters/rate-limits/flexible-rate-limiter.ts` over
 * `rate-limiter-flexible`'s memory store (one process) or its Postgres store (several processes).
 * Keys are opaque strings (callers hash personal data such as e-mail addresses before using them).
 * Every method may throw when the store cannot be reached (an outage, not a refusal).
 */
export interface RateLimiter {
  /** Counts `points` (default 1) for `key` under `rule` and says whether it stayed within it. */
  consume(options: { rule: RateRule; key: string; points?: number }): Promise<RateCount>;
  /**
   * Gives back `points` (default 1) that {@link consume} counted for `key` under `rule` in its
   * current window (e.g. an attempt refused or found legitimate after it was counted). The count
   * goes down by that much; the window's end does not move. Without a counter it does nothing useful:
   * call it only after a consume.
   */
  reward(options: { rule: RateRule; key: string; points?: number }): Promise<void>;
  /** Whole seconds until `key` may act again under `rule` (0: now), without counting anything. */
  retryAfter(options: { rule: RateRule; key: string }): Promise<number>;
  /** Makes `key` wait `seconds` (≥ 1) under `rule` from now, whatever its count. */
  block(options: { rule: RateRule; key: string; seconds: number }): Promise<void>;
  /** Forgets `key`'s counter under `rule` (e.g. after a successful login). */
  reset(options: { rule: RateRule; key: string }): Promise<void>;
}
