import { type Kysely, sql } from 'kysely';
import type { PeriodCounts, UsageRepository } from '../../../core/plans/usage-repository.js';
import { toMillis, toNumber } from './rows.js';
import type { HangarDatabase } from './schema.js';

/** Rows per INSERT statement: 4 parameters each, far below SQLite's and Postgres's parameter limits. */
const INSERT_CHUNK = 500;

/** One usage entry after merging the entries of the same account and period. */
interface Increment extends PeriodCounts {
  userId: string;
  /** Unix ms. */
  periodStart: number;
}

/** Sums entries of the same account and period: Postgres refuses an upsert that touches one row twice. */
function merge(entries: readonly ({ userId: string; periodStart: Date } & PeriodCounts)[]): Increment[] {
  const byKey = new Map<string, Increment>();
  for (const entry of entries) {
    const periodStart = toMillis(entry.periodStart);
    const key = `${entry.userId} ${periodStart}`;
    const sum = byKey.get(key);
    if (sum) {
      sum.originReads += entry.originReads;
      sum.imageOps += entry.imageOps;
    } else {
      byKey.set(key, { userId: entry.userId, periodStart, originReads: entry.originReads, imageOps: entry.imageOps });
    }
  }
  return [...byKey.values()];
}

/**
 * {@link UsageRepository} over `usage_periods` (one row per account and period start, Unix ms).
 * `add` is one transaction of `INSERT … SELECT … WHERE EXISTS (the user) ON CONFLICT DO UPDATE`
 * statements adding to the stored counts, so several processes may add into the same rows, and
 * entries of deleted accounts are skipped without a foreign-key error. (On Postgres an account
 * deleted between the EXISTS and the foreign-key check still fails the batch; nothing is written
 * then, and a retry skips the entry.)
 */
export class SqlUsageRepository implements UsageRepository {
  constructor(private readonly db: Kysely<HangarDatabase>) {}

  async add(entries: readonly ({ userId: string; periodStart: Date } & PeriodCounts)[]): Promise<void> {
    const increments = merge(entries);
    if (increments.length === 0) return;
    await this.db.transaction().execute(async (trx) => {
      for (let start = 0; start < increments.length; start += INSERT_CHUNK) {
        // Casts type the VALUES columns for Postgres (they would be text otherwise); SQLite and
        // Postgres both name them column1, column2…
        const rows = increments
          .slice(start, start + INSERT_CHUNK)
          .map((i) => sql`(cast(${i.userId} as text), cast(${i.periodStart} as bigint), cast(${i.originReads} as bigint), cast(${i.imageOps} as bigint))`);
        await sql`
          insert into usage_periods (user_id, period_start, origin_reads, image_ops)
          select v.column1, v.column2, v.column3, v.column4
          from (values ${sql.join(rows)}) as v
          where exists (select 1 from users where users.id = v.column1)
          on conflict (user_id, period_start) do update set
            origin_reads = usage_periods.origin_reads + excluded.origin_reads,
            image_ops = usage_periods.image_ops + excluded.image_ops
        `.execute(trx);
      }
    });
  }

  /**
   * One upsert: the insert's `SELECT` yields a row only when one operation fits, and the update's
   * `WHERE` tests the stored count. On Postgres a concurrent caller waits for the row's lock and
   * tests the count as the other left it; SQLite runs one writer at a time.
   */
  async takeImageOp(options: { userId: string; periodStart: Date; limit: number; pending: number }): Promise<boolean> {
    const { userId, limit, pending } = options;
    const periodStart = toMillis(options.periodStart);
    const { rows } = await sql<{ image_ops: number | string }>`
      insert into usage_periods (user_id, period_start, origin_reads, image_ops)
      select cast(${userId} as text), cast(${periodStart} as bigint), 0, 1
      where cast(${pending} as bigint) + 1 <= cast(${limit} as bigint) and exists (select 1 from users where users.id = ${userId})
      on conflict (user_id, period_start) do update set image_ops = usage_periods.image_ops + 1
      where usage_periods.image_ops + cast(${pending} as bigint) + 1 <= cast(${limit} as bigint)
      returning image_ops
    `.execute(this.db);
    return rows.length === 1;
  }

  async get(options: { userId: string; periodStart: Date }): Promise<PeriodCounts> {
    const row = await this.db
      .selectFrom('usage_periods')
      .select(['origin_reads', 'image_ops'])
      .where('user_id', '=', options.userId)
      .where('period_start', '=', toMillis(options.periodStart))
      .executeTakeFirst();
    return row ? { originReads: toNumber(row.origin_reads), imageOps: toNumber(row.image_ops) } : { originReads: 0, imageOps: 0 };
  }
}
