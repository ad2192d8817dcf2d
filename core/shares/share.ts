/** A share link of one file (docs/private-files.md, "Share links"): `{cdn_url}/share/<id>`. */
export interface Share {
  /** The share id: {@link SHARE_ID_LENGTH} base62 characters, unguessable (the link is the credential). */
  id: string;
  userId: string;
  /** Public file id of the shared file. */
  fileId: string;
  /** Record id of the shared file: the share goes with it. */
  fileRecordId: string;
  /** argon2id hash (PHC string) of the password; null when none is asked. */
  passwordHash: string | null;
  /** After this the link answers SHARE_EXPIRED; null: never. */
  expiresAt: Date | null;
  /** Downloads allowed in all; null: no limit. */
  maxDownloads: number | null;
  /** Downloads served so far. */
  downloads: number;
  createdAt: Date;
  /**
   * The API key that made the share, when one did: revoking (deleting) that key removes the share
   * too, and the share expires no later than the key (docs/api-keys.md). Null: made
   * with a session, it lives on after the session ends.
   */
  apiKeyId: string | null;
}

/** Length of a share id in base62 characters (62^22 ≈ 2^131). */
export const SHARE_ID_LENGTH = 22;
/** Longest share password, in UTF-8 bytes. */
export const MAX_SHARE_PASSWORD_BYTES = 1024;
/** Highest `max_downloads`. */
export const MAX_SHARE_DOWNLOADS = 1_000_000;

/** True when `value` has the form of a share id. */
export function isShareId(value: string): boolean {
  return /^[0-9A-Za-z]{22}$/.test(value);
}

/** True when the share no longer serves: past its expiry, or its downloads used up. */
export function isShareSpent(share: Share, now: Date): boolean {
  return (share.expiresAt !== null && share.expiresAt.getTime() <= now.getTime()) || (share.maxDownloads !== null && share.downloads >= share.maxDownloads);
}

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
