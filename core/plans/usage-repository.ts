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
  /**
   * Counts one image transformation of the account in the period, only if the stored count plus
   * `pending` (the caller's counts not yet added) plus this one stays within `limit`: one atomic
   * step for every process sharing the store, so of concurrent callers no more than the limit
   * allows succeed (a plan's `imageOpsLimit`, spec 2.6). Creates the row when missing. An
   * operation taken but not done is given back with {@link add} (`imageOps: -1`).
   * @param options.limit the most transformations of the period (≥ 0)
   * @param options.pending image operations the caller has counted but not yet added (≥ 0)
   * @returns true when counted; false (nothing changed) when the limit is reached or the account does not exist
   */
  takeImageOp(options: { userId: string; periodStart: Date; limit: number; pending: number }): Promise<boolean>;
}
