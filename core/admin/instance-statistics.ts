import type { Clock } from '../shared/clock.js';
import { DAY_MS } from '../shared/time.js';

/** Accounts by status (an account may count in `unconfirmed` and in `active` or `suspended`). */
export interface AccountCounts {
  total: number;
  active: number;
  suspended: number;
  unconfirmed: number;
  admins: number;
}

/** The instance in counts (`GET /admin/stats`): never a file's name or bytes (docs/admin.md). */
export interface InstanceCounts {
  accounts: AccountCounts;
  /** Files stored, and their bytes (the accounts' totals). */
  files: number;
  bytes: number;
  /**
   * Files stored now by UTC day of upload (`day`, YYYY-MM-DD), oldest first, one entry per day from
   * `since` (zeros included), with their bytes (`bytes`, the files' sizes).
   */
  uploadsPerDay: { day: string; files: number; bytes: number }[];
  /** The accounts storing the most bytes, most first (ties by id). */
  topAccounts: { id: string; email: string; storageBytes: number; filesCount: number }[];
}

/**
 * Port: counts over the whole instance for administrators, read from the accounts' totals and, for
 * the uploads per day, one aggregate over the files created in the chart's days.
 */
export interface InstanceStatistics {
  /** @param options.since the first UTC day (midnight) of `uploadsPerDay`; `top`: how many accounts `topAccounts` holds */
  counts(options: { since: Date; top: number }): Promise<InstanceCounts>;
}

/** Days of the uploads chart. */
export const STATS_DAYS = 30;
/** Accounts in the top list. */
export const STATS_TOP_ACCOUNTS = 10;

/**
 * The instance in counts for the last {@link STATS_DAYS} days (today included) and the
 * {@link STATS_TOP_ACCOUNTS} largest accounts (`GET /admin/stats`, `stats`).
 */
export class GetInstanceStats {
  constructor(private readonly deps: { statistics: InstanceStatistics; clock: Clock }) {}

  async execute(): Promise<InstanceCounts> {
    const today = Math.floor(this.deps.clock.now().getTime() / DAY_MS) * DAY_MS;
    const since = new Date(today - (STATS_DAYS - 1) * DAY_MS);
    const counts = await this.deps.statistics.counts({ since, top: STATS_TOP_ACCOUNTS });
    // Every day of the window, in order, zeros where nothing was uploaded.
    const byDay = new Map(counts.uploadsPerDay.map((d) => [d.day, d]));
    const uploadsPerDay = Array.from({ length: STATS_DAYS }, (_, i) => {
      const day = new Date(since.getTime() + i * DAY_MS).toISOString().slice(0, 10);
      const counted = byDay.get(day);
      return { day, files: counted?.files ?? 0, bytes: counted?.bytes ?? 0 };
    });
    return { ...counts, uploadsPerDay };
  }
}
