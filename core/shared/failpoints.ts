/**
 * Named points in a write path where a test may stop the process or inject a fault, to prove
 * what a crash or an outage at that exact moment leaves behind (docs/reliability.md).
 * In production no failpoint is set and {@link NO_FAILPOINTS} is wired: `reach` does nothing.
 *
 * - `after_blob_before_record`: an upload's blob is complete and flushed, its record not yet written.
 * - `after_record_before_response`: the record is committed, the 201 not yet sent.
 * - `after_records_deleted_before_blobs`: a delete's records are gone, its blobs not yet removed.
 * - `before_blob_link`: (local disk) the temp file is written and flushed, not yet linked under its key.
 * - `blob_write`: (local disk) before each write of body bytes to the temp file; the place to inject
 *   ENOSPC or EIO.
 * - `between_account_deletion_steps`: a background account deletion finished a step of files and
 *   recorded its progress; the next step has not begun (docs/admin.md).
 */
export const FAILPOINT_NAMES = [
  'after_blob_before_record',
  'after_record_before_response',
  'after_records_deleted_before_blobs',
  'before_blob_link',
  'blob_write',
  'between_account_deletion_steps',
] as const;

/** One of {@link FAILPOINT_NAMES}. */
export type FailpointName = (typeof FAILPOINT_NAMES)[number];

/** Port: where code under test announces that it reached a failpoint. */
export interface Failpoints {
  /**
   * Called when the code reaches `name`. Resolves at once when the point is not armed; otherwise
   * does what the test asked: never resolves (the process is being killed), or rejects with the
   * injected fault (an error shaped like the system's own, e.g. `{ code: 'EIO' }`).
   */
  reach(name: FailpointName): Promise<void>;
}

/** The production default: no failpoint is armed. */
export const NO_FAILPOINTS: Failpoints = { reach: () => Promise.resolve() };
