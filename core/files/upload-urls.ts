/**
 * A signed upload URL (docs/media.md, "Signed upload URLs"): what the minting account allowed one
 * browser upload to do, kept in the database so that its single use holds across every process.
 */
export interface UploadUrlGrant {
  /** Random id (base62, 22 characters), the URL's path segment. */
  id: string;
  /** The minting account: the upload is stored under it, with every one of its rules. */
  userId: string;
  /** When the URL stops working. */
  expiresAt: Date;
  /** Largest body the URL accepts, in bytes (the account's own upload limit applies too); null: the account's limit alone. */
  maxSizeBytes: number | null;
  /** Allowed media types (`image/png`, or `image/*` for a whole top-level type), lower case; null: any the account may upload. */
  contentTypes: string[] | null;
  /** The stored file's name, overriding the uploader's; null: the uploader's (`X-File-Name`, the form's file name). */
  name: string | null;
  /** Whether the file is public. */
  isPublic: boolean;
  /** When the uploaded file is deleted automatically; null: never. */
  fileExpiresAt: Date | null;
  createdAt: Date;
  /** The tus upload started through this URL (its single use), which it may go on sending to; null: none. */
  resumableUploadId: string | null;
  /**
   * The API key that minted the URL, or null (a session did): revoking the key removes the URL, and
   * its `expiresAt` is no later than the key's (docs/api-keys.md, "What outlives a credential").
   */
  apiKeyId: string | null;
}

/** What {@link UploadUrlRepository.claim} found: the URL is now held by this caller, was already used, or does not exist. */
export type UploadUrlClaim = 'claimed' | 'used' | 'not_found';

/** Shortest and longest lifetime of an upload URL, in seconds (docs/media.md). */
export const UPLOAD_URL_MIN_SECONDS = 60;
export const UPLOAD_URL_MAX_SECONDS = 86_400;
/** Lifetime when the request gives none, in seconds. */
export const UPLOAD_URL_DEFAULT_SECONDS = 3_600;

/**
 * The text an upload URL's HMAC covers (under the account's signing key, core/files/signing-key-repository.ts): a
 * version tag distinct from download signed URLs' (`hangar-signed-url-v1`), so neither signature opens the other.
 */
export function uploadUrlPayload(grant: { id: string; userId: string }): string {
  return ['hangar-upload-url-v1', grant.id, grant.userId].join('\n');
}

/** Whether `contentType` (lower case, no parameters) is among `allowed` (exact types or `type/*`). */
export function contentTypeGranted(allowed: readonly string[] | null, contentType: string): boolean {
  if (allowed === null) return true;
  const top = contentType.split('/')[0];
  return allowed.some((entry) => entry === contentType || entry === `${top}/*`);
}
