import type { RateLimiter } from '../../core/index.js';
import { FlexibleRateLimiter } from '../../adapters/rate-limits/flexible-rate-limiter.js';

/**
 * A `node:cluster` worker for the RateLimiter contract (test/contracts/rate-limiter.test.ts): holds
 * a {@link FlexibleRateLimiter.cluster} and runs the calls its primary (the test process) sends it,
 * `{ hangarTest: id, method, options }`, answering `{ hangarTest: id, result }` or `{ hangarTest: id, error }`.
 */
const limiter: RateLimiter = FlexibleRateLimiter.cluster();

process.on('message', (message: { hangarTest?: number; method?: keyof RateLimiter; options?: unknown }) => {
  if (message?.hangarTest === undefined || message.method === undefined) return;
  const { hangarTest, method, options } = message;
  (limiter[method] as (options: unknown) => Promise<unknown>).call(limiter, options).then(
    (result) => process.send!({ hangarTest, result: result ?? null }),
    (error: unknown) => process.send!({ hangarTest, error: String(error) }),
  );
});
process.send!({ hangarTest: 'ready' });
