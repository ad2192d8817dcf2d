import type { UploadUrlClaim, UploadUrlGrant } from './upload-urls.js';

/**
 * Port: the outstanding signed upload URLs. Rows go with their account (deleting the account deletes them).
 */
export interface UploadUrlRepository {
  /** Stores a new grant (ids are unique). */
  insert(grant: UploadUrlGrant): Promise<void>;
  /** The grant with this id, used or not; undefined when there is none. */
  find(id: string): Promise<UploadUrlGrant | undefined>;
  /**
   * The grant with this id and its account's current signing key (null while it has none), in one
   * lookup, to check a URL's signature; undefined when there is no such grant.
   */
  findWithSigningKey(id: string): Promise<{ grant: UploadUrlGrant; signingKey: string | null } | undefined>;
  /**
   * Marks the URL used, atomically: of any number of concurrent claims, on any number of processes,
   * exactly one answers `claimed` while the URL is unused; the others `used`.
   */
  claim(options: { id: string; now: Date }): Promise<UploadUrlClaim>;
  /** Binds the tus upload started through a claimed URL to it: only that upload is reachable through the URL afterwards. */
  attachResumableUpload(options: { id: string; uploadId: string }): Promise<void>;
  /** Makes a claimed URL usable again (its upload failed and stored nothing). */
  release(id: string): Promise<void>;
  /** Removes the grants that expired before `before` (used or not). @returns how many */
  deleteExpired(before: Date): Promise<number>;
}
