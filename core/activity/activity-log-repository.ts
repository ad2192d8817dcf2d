import type { Paged, Window } from '../shared/pagination.js';
import type { ActivityKind, ActivityLogEntry, ActivityPosition } from './activity-log.js';

/** Port: the activity log. */
export interface ActivityLogRepository {
  /** Stores entries in one batch (one transaction). Entries of accounts that no longer exist are skipped. */
  insertMany(entries: readonly ActivityLogEntry[]): Promise<void>;
  /**
   * The account's entries of `kind` (default `all`), newest first (created_at, then id, descending);
   * with `before`, only the entries after that position in this order (the window's offset then
   * counts from there). `total` counts every entry of `kind`, whatever `before`.
   */
  list(options: { userId: string; window: Window; kind?: ActivityKind; before?: ActivityPosition }): Promise<Paged<ActivityLogEntry>>;
  /** Deletes entries created before `before`. @returns how many were deleted */
  deleteBefore(before: Date): Promise<number>;
  /**
   * Deletes every entry of the account, for its deletion (`users delete`, DeleteAccount), in
   * steps that each stay short however many entries it holds (SQL: transactions of a few thousand
   * entries), so that the account's own row, deleted afterwards, takes no long cascade with it.
   * Entries written meanwhile may remain; the account's deletion removes them with it.
   * @returns how many were deleted
   */
  deleteForAccount(userId: string): Promise<number>;
}
