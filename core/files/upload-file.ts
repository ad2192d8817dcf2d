import type { AbortSignalLike } from '../shared/web-globals.js';
import type { AccountPolicy } from '../plans/account-policy.js';
import { requireWriteAccess } from '../plans/account-standing.js';
import type { Clock } from '../shared/clock.js';
import { DomainError } from '../shared/errors.js';
import { type Failpoints, NO_FAILPOINTS } from '../shared/failpoints.js';
import type { IdGenerator } from '../shared/id-generator.js';
import type { BlobStore } from './blob-store.js';
import { checkDeclaredContentType, type ContentSniffer, peekHead } from './content-sniffer.js';
import { ContentTypePolicy } from './content-types.js';
import type { RateLimits } from '../shared/rate-limits.js';
import { parseFileName } from './file-name.js';
import { checkExpiry, expiryIn } from './file-expiry.js';
import type { FileOptions } from './file-options.js';
import { totalsAndNewFileId, type FileRepository, type InsertResult } from './file-repository.js';
import { KnownTotals } from './known-totals.js';
import type { FileAddresses, FileView } from './file-view.js';
import type { MediaFactsQueue } from '../media/media-facts-queue.js';
import { stripImageMetadata, stripsMetadataOf } from './image-metadata/strip-image-metadata.js';
import type { MetadataKind } from './image-metadata/image-metadata-mode.js';
import { blobKeyFor, FILE_ID_LENGTH, type StoredFile } from './stored-file.js';

export interface UploadFileInput {
  userId: string;
  /** Raw `Content-Type` header. */
  contentType: string | undefined;
  /** Raw `x-file-name` header. */
  fileName: string | undefined;
  /** Declared `Content-Length` in bytes, when the client sent one. */
  contentLength?: number;
  /** `isPublic` query; default true (spec 4.8). */
  isPublic?: boolean;
  /** `x-expires-at`: when the file is deleted automatically (must be in the future). */
  expiresAt?: Date;
  /** `expiresIn` query: seconds from now until the file is deleted automatically (1 to 100 years). Not with `expiresAt`. */
  expiresInSeconds?: number;
  /** The raw body, streamed. */
  body: AsyncIterable<Uint8Array>;
  /** Aborted when the client goes away. */
  signal?: AbortSignalLike;
  /** A lower size limit than the account's, in bytes (a signed upload URL's `max_size_bytes`, docs/media.md). */
  maxBytes?: number;
}

export interface UploadFileDeps {
  accounts: AccountPolicy;
  files: FileRepository;
  blobs: BlobStore;
  addresses: FileAddresses;
  ids: IdGenerator;
  clock: Clock;
  options: FileOptions;
  /** Confirms the declared Content-Type from the file's first bytes. */
  sniffer: ContentSniffer;
  limits: RateLimits;
  /** Crash tests only (docs/reliability.md); none by default. */
  failpoints?: Failpoints;
  /** Computes the stored file's media facts in the background (docs/media.md); absent: none are computed. */
  media?: MediaFactsQueue;
}

/**
 * Stores one uploaded file (spec 4.8). The body streams into the blob store while it is counted
 * and hashed; the record is written only after the blob is complete, and if that fails the blob
 * is removed: never a record without its blob, never a blob without its record.
 * A declared Content-Length over a limit is refused before any byte is read, and the body is cut off
 * at the smaller of the upload limit and the storage left. The plan's quotas are enforced atomically
 * when the record is inserted (FileRepository.insert), so concurrent uploads never overshoot them.
 * The totals and a free file id are read before the body unless this process already knows the
 * account has room for a whole upload (KnownTotals): then the first upload after another process
 * filled the account is refused by the insert, after its body, with the same code; and the random
 * file id (odds of a collision: files stored ÷ 62^10) is checked by the blob store (which never
 * replaces a blob) and by the insert (unique file ids): a collision is FILE_ID_COLLISION, nothing stored.
 * Before anything is written, the first bytes are peeked (not buffered beyond them) and must carry
 * the signature of the declared type when it has one (checkDeclaredContentType).
 * An expiry (`expiresAt` or `expiresInSeconds`, docs/private-files.md) is checked before anything is read.
 * A JPEG, PNG, WebP, HEIF or AVIF image loses the metadata the account's `imageMetadata` setting names
 * while it streams, losslessly (stripImageMetadata, docs/image-metadata.md): the record's size and
 * sha256 are the stored bytes', its `metadataRemoved` says what went.
 * @throws DomainError CONTENT_TYPE_NOT_ALLOWED, CONTENT_TYPE_MISMATCH, INVALID_FILE_NAME, INVALID_EXPIRY, EMPTY_FILE, UPLOAD_INCOMPLETE (400),
 *         TRIAL_ENDED, STORAGE_LIMIT_REACHED, FILE_COUNT_LIMIT_REACHED (403), FILE_TOO_LARGE (413),
 *         RATE_LIMITED (429), BLOB_STORE_UNAVAILABLE, FILE_ID_COLLISION (503); a DomainError of the body's own source (the HTTP
 *         edge's REQUEST_TIMEOUT, 408) is passed on, after the partial blob is removed
 */
export class UploadFile {
  private readonly contentTypes: ContentTypePolicy;
  /** This process's knowledge of accounts' totals: with plenty of room, no read before the body. */
  private readonly knownTotals = new KnownTotals();

  constructor(private readonly deps: UploadFileDeps) {
    this.contentTypes = new ContentTypePolicy(deps.options.allowedContentTypes);
  }

  async execute(input: UploadFileInput): Promise<FileView> {
    await this.deps.limits.upload(input.userId);
    const contentType = this.contentTypes.checkUpload(input.contentType);
    const name = parseFileName(input.fileName);
    const expiresAt = this.expiryOf(input);
    const { user, standing, uploadLimitBytes: accountLimitBytes } = await this.deps.accounts.view(input.userId);
    const uploadLimitBytes = input.maxBytes === undefined ? accountLimitBytes : Math.min(accountLimitBytes, input.maxBytes);
    requireWriteAccess(standing);
    const limits = { storageLimitBytes: standing.plan.storageLimitBytes, fileCountLimit: standing.plan.fileCountLimit };
    const nowMs = this.deps.clock.now().getTime();
    const draw = () => this.deps.ids.base62(FILE_ID_LENGTH);
    // With plenty of room known, no read before the body: the insert checks limits and the id.
    const known = this.knownTotals.roomy(input.userId, limits, uploadLimitBytes, nowMs);
    const idChecked = known === undefined;
    const { totals, fileId } = known ? { totals: known, fileId: draw() } : await totalsAndNewFileId(this.deps.files, input.userId, draw);
    if (idChecked) this.knownTotals.learned(input.userId, totals, nowMs);
    // Unfinished resumable uploads hold reservations that count as files and bytes.
    if (totals.filesCount + (totals.reservedFiles ?? 0) >= limits.fileCountLimit) throw quotaError('file_count_limit_reached', limits);
    const storageLeft = limits.storageLimitBytes - totals.storageBytes - (totals.reservedBytes ?? 0);
    if (storageLeft <= 0) throw quotaError('storage_limit_reached', limits);
    if (input.contentLength !== undefined && input.contentLength > uploadLimitBytes) throw tooLarge(uploadLimitBytes);
    if (input.contentLength !== undefined && input.contentLength > storageLeft) throw quotaError('storage_limit_reached', limits);
    const maxBytes = Math.min(uploadLimitBytes, storageLeft);
    const { head, body } = await peekHead(input.body, this.deps.sniffer.headBytes).catch((error: unknown) => {
      // A refusal of the body's own source (the host's REQUEST_TIMEOUT for a trickling client) is passed on.
      if (error instanceof DomainError) throw error;
      throw new DomainError('UPLOAD_INCOMPLETE', 'The upload was interrupted before the whole body arrived.');
    });
    await checkDeclaredContentType(this.deps.sniffer, contentType, head);

    const blobKey = blobKeyFor(input.userId, fileId);
    // An image loses the metadata the account's setting names as it streams (docs/image-metadata.md):
    // size and sha256 are then those of the stored bytes, the length check is on the bytes received.
    const stripping = user.imageMetadata !== 'keep' && stripsMetadataOf(contentType);
    const stripped = stripping ? stripImageMetadata(body, contentType, user.imageMetadata) : undefined;
    let stored: { size: number; sha256: string };
    let received: number;
    let metadataRemoved: MetadataKind[];
    try {
      stored = await this.deps.blobs.put({ key: blobKey, body: stripped?.body ?? body, contentType, maxBytes, signal: input.signal });
      ({ bytesRead: received, removed: metadataRemoved } = stripped ? await stripped.outcome : { bytesRead: stored.size, removed: [] });
    } catch (error) {
      if (error instanceof DomainError && error.code === 'FILE_TOO_LARGE') {
        throw maxBytes < uploadLimitBytes ? quotaError('storage_limit_reached', limits) : tooLarge(uploadLimitBytes);
      }
      if (error instanceof DomainError) throw error;
      // The store refuses a taken key (and leaves that blob alone): an unchecked id may be one.
      if (!idChecked && (await this.idTakenByAnother(fileId, undefined))) throw fileIdCollision();
      throw new DomainError('UPLOAD_INCOMPLETE', 'The upload was interrupted before the whole body arrived.');
    }
    const incomplete = input.contentLength !== undefined && received !== input.contentLength;
    if (stored.size === 0 || incomplete) {
      await this.deps.blobs.delete(blobKey);
      throw stored.size === 0
        ? new DomainError('EMPTY_FILE', 'The request body is empty: send the file bytes as the body.')
        : new DomainError('UPLOAD_INCOMPLETE', 'The body is shorter than its Content-Length.');
    }

    const file: StoredFile = {
      id: this.deps.ids.uuid(),
      userId: input.userId,
      fileId,
      name,
      contentType,
      size: stored.size,
      sha256: stored.sha256,
      isPublic: input.isPublic ?? true,
      createdAt: this.deps.clock.now(),
      blobKey,
      expiresAt,
      viewCount: 0,
      downloadCount: 0,
      ...(metadataRemoved.length > 0 ? { metadataRemoved } : {}),
    };
    let result: InsertResult;
    try {
      await (this.deps.failpoints ?? NO_FAILPOINTS).reach('after_blob_before_record');
      result = await this.deps.files.insert(file, limits);
    } catch (error) {
      await this.deps.blobs.delete(blobKey);
      // Another account's file with the same unchecked id refuses the insert (file ids are unique).
      if (!idChecked && (await this.idTakenByAnother(fileId, file.id))) throw fileIdCollision();
      throw error;
    }
    if (result !== 'inserted') {
      this.knownTotals.forget(input.userId);
      await this.deps.blobs.delete(blobKey);
      throw quotaError(result, limits);
    }
    this.knownTotals.added(input.userId, file.size);
    await (this.deps.failpoints ?? NO_FAILPOINTS).reach('after_record_before_response');
    // The facts are read from the stored blob after the answer (docs/media.md): the answer carries nulls.
    this.deps.media?.enqueue(file);
    const [view] = await this.deps.addresses.views(input.userId, [file], { fresh: true });
    return view;
  }

  /**
   * Whether a record other than `ownId` holds `fileId`, to tell a collision of an unchecked file id
   * from the failure being explained; false when that cannot be read (the original failure stands).
   */
  private async idTakenByAnother(fileId: string, ownId: string | undefined): Promise<boolean> {
    const holder = await this.deps.files.findByFileId(fileId).catch(() => undefined);
    return holder !== undefined && holder.id !== ownId;
  }

  /** The upload's expiry, from `expiresAt` or `expiresInSeconds` (at most one), or null. @throws DomainError INVALID_EXPIRY */
  private expiryOf(input: UploadFileInput): Date | null {
    const now = this.deps.clock.now();
    if (input.expiresAt !== undefined && input.expiresInSeconds !== undefined) {
      throw new DomainError('INVALID_EXPIRY', 'Give either x-expires-at or expiresIn, not both.');
    }
    if (input.expiresInSeconds !== undefined) return expiryIn(input.expiresInSeconds, now);
    return input.expiresAt === undefined ? null : checkExpiry(input.expiresAt, now);
  }
}

/** The refusal of an upload whose unchecked random file id was taken (503 FILE_ID_COLLISION): nothing was stored. */
function fileIdCollision(): DomainError {
  return new DomainError(
    'FILE_ID_COLLISION',
    'The random file id drawn for this upload is already taken by another file; nothing was stored: send the upload again.',
  );
}

/** The refusal of an upload that a plan's limit refused (403 FILE_COUNT_LIMIT_REACHED or STORAGE_LIMIT_REACHED). */
export function quotaError(result: Exclude<InsertResult, 'inserted'>, limits: { storageLimitBytes: number; fileCountLimit: number }): DomainError {
  return result === 'file_count_limit_reached'
    ? new DomainError('FILE_COUNT_LIMIT_REACHED', `This account already holds the ${limits.fileCountLimit} files its plan allows.`, {
        file_count_limit: limits.fileCountLimit,
      })
    : new DomainError('STORAGE_LIMIT_REACHED', `This upload would take the account past its plan's storage limit of ${limits.storageLimitBytes} bytes.`, {
        storage_limit_bytes: limits.storageLimitBytes,
      });
}

/** The refusal of an upload over the account's upload limit (413 FILE_TOO_LARGE), `maxBytes` in bytes. */
export function tooLarge(maxBytes: number): DomainError {
  return new DomainError('FILE_TOO_LARGE', `The file is larger than this account's upload limit of ${maxBytes} bytes.`, { max_upload_size_bytes: maxBytes });
}
