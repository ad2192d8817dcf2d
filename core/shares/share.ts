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
