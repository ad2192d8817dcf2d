import { expect } from 'chai';
import cluster, { type Worker } from 'node:cluster';
import { once } from 'node:events';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { RateLimiter } from '../../core/index.js';
import { postgresConnectionString } from '../../adapters/persistence/postgres/postgres-database.js';
import { FlexibleRateLimiter, serveClusterRateLimits } from '../../adapters/rate-limits/flexible-rate-limiter.js';
import { createTestSchema, testDatabaseUrl } from '../support/test-database.js';
import { describeRateLimiterContract } from './rate-limiter.contract.js';

describeRateLimiterContract('rate-limiter-flexible, memory (one process)', async () => {
  const limiter = FlexibleRateLimiter.memory();
  return { limiter, other: limiter, close: async () => {} };
});

// The WORKERS setup on SQLite: this test process is the cluster's primary and holds the counters;
// each limiter under test is a worker process's FlexibleRateLimiter.cluster, driven over IPC.
describeRateLimiterContract('rate-limiter-flexible, cluster (two worker processes, counters in the primary)', async () => {
  serveClusterRateLimits();
  cluster.setupPrimary({ exec: path.join(path.dirname(fileURLToPath(import.meta.url)), '../support/cluster-rate-limiter-worker.js'), execArgv: [] });
  const workers = [cluster.fork(), cluster.fork()];
  await Promise.all(workers.map((worker) => waitForMessage(worker, (message) => message.hangarTest === 'ready')));
  const [limiter, other] = workers.map(workerLimiter);
  return {
    limiter,
    other,
    close: async () => {
      await Promise.all(
        workers.map(async (worker) => {
          const exited = once(worker, 'exit');
          worker.kill();
          await exited;
        }),
      );
    },
  };
});

/** A RateLimiter whose every call runs in `worker` (test/support/cluster-rate-limiter-worker.ts). */
function workerLimiter(worker: Worker): RateLimiter {
  let next = 0;
  const pending = new Map<number, { resolve: (value: never) => void; reject: (error: Error) => void }>();
  worker.on('message', (message: { hangarTest?: unknown; result?: unknown; error?: unknown }) => {
    const call = typeof message?.hangarTest === 'number' ? pending.get(message.hangarTest) : undefined;
    if (!call) return;
    pending.delete(message.hangarTest as number);
    if (message.error !== undefined) call.reject(new Error(message.error as string));
    else call.resolve((message.result ?? undefined) as never);
  });
  const run = (method: keyof RateLimiter, options: unknown): Promise<never> =>
    new Promise((resolve, reject) => {
      const id = next++;
      pending.set(id, { resolve, reject });
      worker.send({ hangarTest: id, method, options });
    });
  return {
    consume: (options) => run('consume', options),
    reward: (options) => run('reward', options),
    retryAfter: (options) => run('retryAfter', options),
    block: (options) => run('block', options),
    reset: (options) => run('reset', options),
  };
}

function waitForMessage(worker: Worker, matches: (message: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
  return new Promise((resolve) => {
    const listener = (message: Record<string, unknown>) => {
      if (!message || !matches(message)) return;
      worker.off('message', listener);
      resolve(message);
    };
    worker.on('message', listener);
  });
}

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
