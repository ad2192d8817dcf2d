import type { InsertResult, QuotaLimits } from './file-repository.js';
import type { PartialBlobState } from './partial-blob-store.js';

/**
 * One tus upload (docs/api.md, "Resumable uploads"): a file being sent in several requests. While
 * `uploading`, its `length` bytes and one file are reserved in the account's totals, so quotas count
 * it as if it were stored; once `complete`, the File record `fileId` exists and the reservation is
 * gone (the record holds the bytes instead). The row stays until `expiresAt` so that
 * `GET /files/resumable/:id` can answer with the File.
 */
export interface ResumableUpload {
  /** The tus upload id (in the upload URL). */
  id: string;
  userId: string;
  /** The public file id the File will have, drawn at creation. */
  fileId: string;
  /** Bytes the upload will hold (`Upload-Length`). */
  length: number;
  /** Bytes durable so far (`Upload-Offset`). */
  offset: number;
  /** From `filetype` metadata, already checked against the allowlist. */
  contentType: string;
  /** From `filename` metadata (parseFileName), or null. */
  name: string | null;
  isPublic: boolean;
  /** The File's own expiry (`expiresAt` metadata), or null. */
  fileExpiresAt: Date | null;
  /** When the upload is removed if unfinished (`Upload-Expires`), and its row if complete. */
  expiresAt: Date;
  /** The partial blob's state (PartialBlobStore); meaningless once complete. */
  state: PartialBlobState;
  status: 'uploading' | 'complete';
  createdAt: Date;
}

/** What {@link ResumableUploadRepository.create} answers: a file insert's answers, or the open-uploads cap. */
export type CreateUploadResult = InsertResult | 'open_uploads_limit_reached';

/**
 * Port: persistence of resumable uploads and of their reservations in the account's totals (the
 * same totals FileRepository.insert checks, which count reservations). Every method is one
 * transaction, correct across processes.
 */
export interface ResumableUploadRepository {
  /**
   * Stores a new `uploading` upload and reserves its `length` bytes and one file in the account's
   * totals, only when stored files plus reservations stay within `limits` afterwards, and, with
   * `options.maxOpenUploads`, when the account then has at most that many unfinished uploads (its
   * reserved files: one per unfinished upload). One conditional write: of creations racing for the
   * last place, on any number of processes, exactly as many succeed as fit.
   * @returns `inserted`, or which limit refused it (nothing stored then)
   */
  create(upload: ResumableUpload, limits: QuotaLimits, options?: { maxOpenUploads?: number }): Promise<CreateUploadResult>;
  /** Looks up by upload id, whoever owns it; undefined when there is none. */
  find(id: string): Promise<ResumableUpload | undefined>;
  /**
   * Takes the upload's write lease for `owner` until `until` (Unix ms), only while it is `uploading`,
   * its offset is `offset`, and no other lease runs at `now`: one PATCH at a time across processes.
   * @returns whether the lease was taken
   */
  lock(options: { id: string; offset: number; owner: string; now: number; until: number }): Promise<boolean>;
  /** Extends a lease `owner` holds. @returns false when the lease is no longer `owner`'s (the upload was terminated) */
  renew(options: { id: string; owner: string; until: number }): Promise<boolean>;
  /**
   * Records progress under the lease: the new offset and partial state; with `release`, also ends
   * the lease in the same write (a PATCH that is done: one write instead of advance, then unlock).
   * @returns false when the lease is no longer `owner`'s (nothing changed)
   */
  advance(options: { id: string; owner: string; offset: number; state: ResumableUpload['state']; release?: boolean }): Promise<boolean>;
  /** Ends `owner`'s lease, if it still holds it. */
  unlock(options: { id: string; owner: string }): Promise<void>;
  /**
   * Deletes the upload and, if it was `uploading`, releases its reservation, in one transaction. With
   * `unleasedAt` (Unix ms), only when no lease runs at that time (the expiry sweep leaves an upload
   * being written alone).
   * @returns the deleted upload, or undefined when nothing was deleted
   */
  delete(options: { id: string; unleasedAt?: number }): Promise<ResumableUpload | undefined>;
  /** Up to `limit` uploads whose `expiresAt` is at or before `now`, soonest first (indexed). */
  findExpired(options: { now: Date; limit: number }): Promise<ResumableUpload[]>;
  /** Up to `limit` of one account's uploads, unfinished or complete, in no set order (indexed by account). */
  findByUser(options: { userId: string; limit: number }): Promise<ResumableUpload[]>;
}
