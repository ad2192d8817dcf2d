import type { PeriodCounts, UsageRepository } from '../../../core/plans/usage-repository.js';
import { MemoryDatabase } from './memory-database.js';

/**
 * {@link UsageRepository} held in process memory (a {@link MemoryDatabase}): one row per account
 * and period start (Unix ms). `add` writes every entry with no await in between, so it is one
 * step for every other caller; entries of accounts not in the database are skipped.
 */
export class MemoryUsageRepository implements UsageRepository {
  /** @param db the store shared with the other memory repositories (it must hold the accounts); a private one by default */
  constructor(private readonly db: MemoryDatabase = new MemoryDatabase()) {}

  async add(entries: readonly ({ userId: string; periodStart: Date } & PeriodCounts)[]): Promise<void> {
    for (const entry of entries) {
      if (!this.db.hasUser(entry.userId)) continue;
      const periodStart = entry.periodStart.getTime();
      const key = MemoryDatabase.usageKey(entry.userId, periodStart);
      const row = this.db.usagePeriods.get(key);
      if (row) {
        row.originReads += entry.originReads;
        row.imageOps += entry.imageOps;
      } else {
        this.db.usagePeriods.set(key, { userId: entry.userId, periodStart, originReads: entry.originReads, imageOps: entry.imageOps });
      }
    }
  }

  async takeImageOp(options: { userId: string; periodStart: Date; limit: number; pending: number }): Promise<boolean> {
    if (!this.db.hasUser(options.userId)) return false;
    const periodStart = options.periodStart.getTime();
    const key = MemoryDatabase.usageKey(options.userId, periodStart);
    const row = this.db.usagePeriods.get(key);
    if ((row?.imageOps ?? 0) + options.pending + 1 > options.limit) return false;
    if (row) row.imageOps += 1;
    else this.db.usagePeriods.set(key, { userId: options.userId, periodStart, originReads: 0, imageOps: 1 });
    return true;
  }

  async get(options: { userId: string; periodStart: Date }): Promise<PeriodCounts> {
    const row = this.db.usagePeriods.get(MemoryDatabase.usageKey(options.userId, options.periodStart.getTime()));
    return row ? { originReads: row.originReads, imageOps: row.imageOps } : { originReads: 0, imageOps: 0 };
  }
}
