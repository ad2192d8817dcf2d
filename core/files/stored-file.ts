import type { MetadataKind } from './image-metadata/image-metadata-mode.js';

/** A stored file's record (spec 2.4). Its bytes live in the blob store under `blobKey`. */
export interface StoredFile {
  /** UUID of the record. */
  id: string;
  userId: string;
  /** Public short id: {@link FILE_ID_LENGTH} base62 characters, unique. */
  fileId: string;
  /** From `x-file-name`, decoded and cleaned; null when not given. */
  name: string | null;
  /** MIME type as uploaded (lower-cased, parameters removed). */
  contentType: string;
  /** Bytes. */
  size: number;
  /** SHA-256 of the bytes, 64 hex characters; the strong ETag. */
  sha256: string;
  isPublic: boolean;
  createdAt: Date;
  /** Blob store key: `<userId>/<fileId>`; never user-supplied text. */
  blobKey: string;
  /** When the file is deleted automatically (docs/private-files.md, "Expiry"); null when never. From then on no address serves it. */
  expiresAt: Date | null;
  /** Reads served inline (`/m`, inline signed URLs), as written so far (counts are flushed in batches: FileReadCounts). */
  viewCount: number;
  /** Reads served as attachments (`/d`, download signed URLs, share links), as written so far. */
  downloadCount: number;
  /** What the upload removed from an image (docs/image-metadata.md); absent or empty when nothing. */
  metadataRemoved?: readonly MetadataKind[];
}

/**
 * A copy of `file` that shares no object with it (its dates are new `Date`s) and holds the members
 * of {@link StoredFile} alone, for repositories that keep records and hand out copies.
 */
export function copyStoredFile(file: StoredFile): StoredFile {
  return {
    id: file.id,
    userId: file.userId,
    fileId: file.fileId,
    name: file.name,
    contentType: file.contentType,
    size: file.size,
    sha256: file.sha256,
    isPublic: file.isPublic,
    createdAt: new Date(file.createdAt.getTime()),
    blobKey: file.blobKey,
    expiresAt: file.expiresAt && new Date(file.expiresAt.getTime()),
    viewCount: file.viewCount,
    downloadCount: file.downloadCount,
    ...(file.metadataRemoved?.length ? { metadataRemoved: [...file.metadataRemoved] } : {}),
  };
}

/** True when `file` has expired at `now` (its record may still exist until the sweep removes it). */
export function hasExpired(file: Pick<StoredFile, 'expiresAt'>, now: Date): boolean {
  return file.expiresAt !== null && file.expiresAt.getTime() <= now.getTime();
}

/** Length of `file_id` in base62 characters (62^10 ≈ 8·10^17 ids). */
export const FILE_ID_LENGTH = 10;
/** Longest file name, in characters, after decoding. */
export const MAX_FILE_NAME_LENGTH = 255;

/** The blob key of a file: account id and file id only. */
export function blobKeyFor(userId: string, fileId: string): string {
  return `${userId}/${fileId}`;
}

/** True when `value` has the form of a file id. */
export function isFileId(value: string): boolean {
  return /^[0-9A-Za-z]{10}$/.test(value);
}
