import type { Paged, Window } from '../shared/pagination.js';

/** One logged API request of an account (spec 2.7). */
export interface ActivityLogEntry {
  /** UUID. */
  id: string;
  userId: string;
  /** HTTP method. */
  method: string;
  /** Request path, without the query string (so no secret in a query is ever stored). */
  path: string;
  statusCode: number;
  /** Request body size in bytes (Content-Length, or bytes received); null when unknown. */
  requestSizeBytes: number | null;
  createdAt: Date;
  /**
   * `auth` (`jwt` | `api_key`), `api_key_id` when a key was used, `file_id` where one applies,
   * `duration_ms`, `user_agent`, `ip`. Never a credential.
   */
  metadata: Record<string, unknown>;
}

/** Port: the activity log. */
export interface ActivityLogRepository {
  /** Stores entries in one batch (one transaction). Entries of accounts that no longer exist are skipped. */
  insertMany(entries: readonly ActivityLogEntry[]): Promise<void>;
  /** The account's entries, newest first (created_at, then id, descending). */
  list(options: { userId: string; window: Window }): Promise<Paged<ActivityLogEntry>>;
  /** Deletes entries created before `before`. @returns how many were deleted */
  deleteBefore(before: Date): Promise<number>;
}
