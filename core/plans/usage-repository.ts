/** Counters of one account in one billing period. */
export interface PeriodCounts {
  /** GET/HEAD requests served by the content server for the account's files. */
  originReads: number;
  /** Image transformations computed. */
  imageOps: number;
}

/** Port: per-account, per-period usage counters (one row per account and period). */
export interface UsageRepository {
  /**
   * Adds each entry's counts to the row of its account and period, creating it when missing, all in
   * one transaction. Entries for accounts that no longer exist are skipped.
   */
  add(entries: readonly ({ userId: string; periodStart: Date } & PeriodCounts)[]): Promise<void>;
  /** The counts of one account and period; zeros when there is no row. */
  get(options: { userId: string; periodStart: Date }): Promise<PeriodCounts>;
}
