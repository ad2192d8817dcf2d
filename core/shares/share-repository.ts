import type { Share } from './share.js';

/** Port: share links. */
export interface ShareRepository {
  /** Stores a new share. @throws when the id exists, or the file record does not (a caller bug) */
  insert(share: Share): Promise<void>;
  /** One share by id, or undefined (also once its file is deleted: shares go with their file). */
  findById(shareId: string): Promise<Share | undefined>;
  /** The user's shares of one file (public file id), newest first. */
  listByFile(options: { userId: string; fileId: string }): Promise<Share[]>;
  /** Removes one of the user's shares. @returns false when the user has no share with this id */
  delete(options: { userId: string; shareId: string }): Promise<boolean>;
  /**
   * Counts one download if the share still serves at `now` (not expired, downloads left), as one
   * atomic conditional update: of concurrent claims for the last downloads, on any number of
   * processes, exactly as many succeed as are left. @returns whether this download was granted
   */
  claimDownload(options: { shareId: string; now: Date }): Promise<boolean>;
}
