import type { AccountPolicy } from '../plans/account-policy.js';
import type { Clock } from '../shared/clock.js';
import { DomainError } from '../shared/errors.js';
import type { IdGenerator } from '../shared/id-generator.js';
import type { RateLimits } from '../shared/rate-limits.js';
import type { BlobStore } from './blob-store.js';
import type { ContentSniffer } from './content-sniffer.js';
import type { FileOptions } from './file-options.js';
import type { FileRepository } from './file-repository.js';
import type { FileAddresses } from './file-view.js';
import type { MediaFactsQueue } from '../media/media-facts-queue.js';
import type { PartialBlobStore } from './partial-blob-store.js';
import type { ResumableUpload, ResumableUploadRepository } from './resumable-upload-repository.js';

/** Default of `RESUMABLE_UPLOAD_EXPIRY_HOURS`: an unfinished upload is removed a day after its creation. */
export const DEFAULT_RESUMABLE_UPLOAD_EXPIRY_HOURS = 24;

/** Options of the resumable upload use cases (docs/api.md, "Resumable uploads"). */
export interface ResumableUploadOptions {
  /** Hours from creation after which an unfinished upload is removed (`Upload-Expires`); default {@link DEFAULT_RESUMABLE_UPLOAD_EXPIRY_HOURS}. */
  resumableUploadExpiryHours?: number;
  /**
   * Unfinished uploads one account may have at once (`RESUMABLE_UPLOADS_PER_ACCOUNT`); default
   * {@link DEFAULT_RESUMABLE_UPLOADS_PER_ACCOUNT}. Each holds a partial blob until it completes or
   * expires, so creations alone must not pile them up.
   */
  resumableUploadsPerAccount?: number;
}

/** Default of `RESUMABLE_UPLOADS_PER_ACCOUNT`. */
export const DEFAULT_RESUMABLE_UPLOADS_PER_ACCOUNT = 100;

/** Everything the resumable upload use cases work with. */
export interface ResumableUploadDeps {
  accounts: AccountPolicy;
  files: FileRepository;
  uploads: ResumableUploadRepository;
  partials: PartialBlobStore;
  blobs: BlobStore;
  addresses: FileAddresses;
  sniffer: ContentSniffer;
  ids: IdGenerator;
  clock: Clock;
  limits: RateLimits;
  options: FileOptions & ResumableUploadOptions;
  /** Computes a completed upload's media facts in the background (docs/media.md); absent: none are computed. */
  media?: MediaFactsQueue;
}

/**
 * The upload `id` of account `userId`, as a request may see it.
 * @throws DomainError UPLOAD_NOT_FOUND (404) when there is none (or it is another account's)
 */
export async function findOwnUpload(uploads: ResumableUploadRepository, userId: string, id: string): Promise<ResumableUpload> {
  const upload = await uploads.find(id);
  if (!upload || upload.userId !== userId) throw new DomainError('UPLOAD_NOT_FOUND', 'There is no resumable upload with this id for this account.');
  return upload;
}

/** @throws DomainError UPLOAD_EXPIRED (410) when `upload` is unfinished and its `expiresAt` has come */
export function requireUnexpired(upload: ResumableUpload, now: Date): void {
  if (upload.status === 'uploading' && upload.expiresAt.getTime() <= now.getTime()) {
    throw new DomainError('UPLOAD_EXPIRED', `This upload expired at ${upload.expiresAt.toISOString()} before it was complete; start a new one.`);
  }
}
