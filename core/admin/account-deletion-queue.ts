import type { AdminActor } from './admin-audit.js';

/**
 * An account an administrator is deleting in the background (`DELETE /admin/users/:id` of an
 * account with more than one step of files; docs/admin.md): kept until the account is gone, so that
 * any process resumes it after the one running it stopped.
 */
export interface AccountDeletion {
  userId: string;
  /** The account's e-mail, for the audit entry written once it is gone. */
  email: string;
  requestedAt: Date;
  /** Who asked, for the audit entry. */
  actor: AdminActor;
  /** Files deleted so far, by every run. */
  filesDeleted: number;
}

/**
 * Port: the background account deletions and the lease of the process running each. A lease is
 * held until an instant (`until`) by an owner (an id of the process's choosing); a process takes a
 * deletion only while no lease holds it, and extends its lease while it works, so each deletion
 * runs on one process at a time across every process sharing the database.
 */
export interface AccountDeletionQueue {
  /** Records `deletion` (with no lease) unless the account has one already. @returns the deletion as stored (the existing one, if any) */
  request(deletion: Omit<AccountDeletion, 'filesDeleted'>): Promise<AccountDeletion>;
  /** The account's deletion in progress, if any. */
  find(userId: string): Promise<AccountDeletion | undefined>;
  /**
   * Takes the lease, until `until`, of a deletion no lease holds at `now` (none ever taken, lapsed,
   * or released): the account's when `userId` is given, else any (the one requested first). Atomic:
   * of several processes claiming at once, one gets it.
   * @returns the deletion claimed, or undefined when there is none free
   */
  claim(options: { owner: string; now: Date; until: Date; userId?: string }): Promise<AccountDeletion | undefined>;
  /**
   * While `owner` holds the lease: extends it to `until` and adds `filesDeleted` to the count.
   * @returns false when `owner` no longer holds it (it lapsed and another process took it, or the row is gone)
   */
  renew(options: { userId: string; owner: string; until: Date; filesDeleted: number }): Promise<boolean>;
  /** Frees the lease `owner` holds (a process stopping), so another process may take it at once. */
  release(options: { userId: string; owner: string }): Promise<void>;
  /**
   * Removes the deletion: only while `owner` holds its lease when `owner` is given, in any case
   * otherwise (the CLI deleted the account itself). @returns whether a row was removed
   */
  remove(options: { userId: string; owner?: string }): Promise<boolean>;
}
