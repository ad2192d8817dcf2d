import { expect } from 'chai';
import pg from 'pg';
import { postgresConnectionString } from '../../adapters/persistence/postgres/postgres-database.js';
import { FlexibleRateLimiter } from '../../adapters/rate-limits/flexible-rate-limiter.js';
import { createTestSchema, testDatabaseUrl } from '../support/test-database.js';
import { describeRateLimiterContract } from './rate-limiter.contract.js';

describeRateLimiterContract('rate-limiter-flexible, memory (one process)', async () => {
  const limiter = FlexibleRateLimiter.memory();
  return { limiter, other: limiter, close: async () => {} };
});

const url = testDatabaseUrl();
if (url !== undefined) {
  describeRateLimiterContract('rate-limiter-flexible, Postgres (two pools, as two processes)', async () => {
    const schema = await createTestSchema(url);
    const pools = [1, 2].map(() => new pg.Pool({ connectionString: postgresConnectionString(schema.url), max: 4 }));
    const [limiter, other] = [await FlexibleRateLimiter.postgres(pools[0]), await FlexibleRateLimiter.postgres(pools[1])];
    return {
      limiter,
      other,
      close: async () => {
        await Promise.all(pools.map((pool) => pool.end()));
        await schema.drop();
      },
    };
  });
}

if (url !== undefined) {
  describe('FlexibleRateLimiter on Postgres when Postgres is gone', () => {
    it('keeps counting, in memory, instead of failing the request', async () => {
      const schema = await createTestSchema(url);
      const pool = new pg.Pool({ connectionString: postgresConnectionString(schema.url), max: 1 });
      try {
        const limiter = await FlexibleRateLimiter.postgres(pool);
        await pool.end();
        const rule = { name: 'outage', points: 1, durationSeconds: 60 };
        expect((await limiter.consume({ rule, key: 'k' })).retryAfterSeconds).to.equal(0);
        expect((await limiter.consume({ rule, key: 'k' })).retryAfterSeconds).to.be.greaterThan(0);
      } finally {
        await schema.drop();
      }
    });
  });
}
