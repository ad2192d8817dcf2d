import { requireWriteAccess } from '../plans/account-standing.js';
import { DomainError } from '../shared/errors.js';
import { checkExpiry } from './file-expiry.js';
import { parseFileName } from './file-name.js';
import { ContentTypePolicy } from './content-types.js';
import type { ResumableUpload } from './resumable-upload-repository.js';
import { DEFAULT_RESUMABLE_UPLOAD_EXPIRY_HOURS, DEFAULT_RESUMABLE_UPLOADS_PER_ACCOUNT, type ResumableUploadDeps } from './resumable-uploads.js';
import { totalsAndNewFileId } from './file-repository.js';
import { blobKeyFor, FILE_ID_LENGTH } from './stored-file.js';
import { quotaError, tooLarge } from './upload-file.js';

/** Input of {@link CreateResumableUpload}: tus creation (`POST /files/resumable`), metadata already decoded. */
export interface CreateResumableUploadInput {
  userId: string;
  /** `Upload-Length`, bytes. */
  length: number;
  /** `filetype` metadata (a media type). */
  contentType: string | undefined;
  /** `filename` metadata, as `x-file-name` (percent escapes decoded). */
  fileName: string | undefined;
  /** `isPublic` metadata; default true, as `POST /files`. */
  isPublic?: boolean;
  /** `expiresAt` metadata: when the File is deleted automatically (docs/private-files.md). */
  expiresAt?: Date;
}

/** Upload ids: 24 base62 characters (143 bits), unguessable as they are the upload URL. */
const UPLOAD_ID_LENGTH = 24;

/**
 * Starts a resumable upload (tus 1.0.0 creation, docs/api.md, "Resumable uploads"). Every rule of
 * `POST /files` that can be decided before a byte is checked here, with the same codes: rate limit,
 * the type allowlist (from `filetype`), the file name, the expiry, write access (trial), the
 * account's upload limit (from `Upload-Length`), and the plan's quotas. Then an empty partial blob is
 * created and the upload stored with `length` bytes and one file **reserved** in the account's
 * totals in one transaction (ResumableUploadRepository.create), so parallel uploads of any kind
 * never exceed the plan together, nor the account's cap of unfinished uploads
 * (`resumableUploadsPerAccount`, in the same write). The rate limit counts per account, with
 * `POST /files`, whichever key or session sends the request. The File's id is drawn now; it exists
 * once the upload is complete.
 * @throws DomainError RATE_LIMITED (429), CONTENT_TYPE_NOT_ALLOWED, INVALID_FILE_NAME, INVALID_EXPIRY,
 *         EMPTY_FILE (400), TRIAL_ENDED, STORAGE_LIMIT_REACHED, FILE_COUNT_LIMIT_REACHED, RESUMABLE_UPLOAD_LIMIT_REACHED (403),
 *         FILE_TOO_LARGE (413), BLOB_STORE_UNAVAILABLE (503)
 */
export class CreateResumableUpload {
  private readonly contentTypes: ContentTypePolicy;

  constructor(private readonly deps: ResumableUploadDeps) {
    this.contentTypes = new ContentTypePolicy(deps.options.allowedContentTypes);
  }

  async execute(input: CreateResumableUploadInput): Promise<ResumableUpload> {
    const { deps } = this;
    await deps.limits.upload(input.userId);
    const contentType = this.contentTypes.checkUpload(input.contentType);
    const name = parseFileName(input.fileName);
    const now = deps.clock.now();
    const fileExpiresAt = input.expiresAt === undefined ? null : checkExpiry(input.expiresAt, now);
    const { standing, uploadLimitBytes } = await deps.accounts.view(input.userId);
    requireWriteAccess(standing);
    const limits = { storageLimitBytes: standing.plan.storageLimitBytes, fileCountLimit: standing.plan.fileCountLimit };
    // Too large first: a length past 2^53 (`Upload-Length: 9999999999999999`) is a large file, not an empty one.
    if (input.length > uploadLimitBytes || input.length > Number.MAX_SAFE_INTEGER) throw tooLarge(uploadLimitBytes);
    if (!Number.isSafeInteger(input.length) || input.length < 1) {
      throw new DomainError('EMPTY_FILE', 'Upload-Length must be at least 1: an empty file cannot be uploaded.');
    }
    // Early, without writing: the repository checks again atomically.
    const { totals, fileId } = await totalsAndNewFileId(deps.files, input.userId, () => deps.ids.base62(FILE_ID_LENGTH));
    if (totals.filesCount + (totals.reservedFiles ?? 0) + 1 > limits.fileCountLimit) throw quotaError('file_count_limit_reached', limits);
    if (totals.storageBytes + (totals.reservedBytes ?? 0) + input.length > limits.storageLimitBytes) throw quotaError('storage_limit_reached', limits);

    const hours = deps.options.resumableUploadExpiryHours ?? DEFAULT_RESUMABLE_UPLOAD_EXPIRY_HOURS;
    const state = await deps.partials.create({ key: blobKeyFor(input.userId, fileId), length: input.length, contentType });
    const upload: ResumableUpload = {
      id: deps.ids.base62(UPLOAD_ID_LENGTH),
      userId: input.userId,
      fileId,
      length: input.length,
      offset: 0,
      contentType,
      name,
      isPublic: input.isPublic ?? true,
      fileExpiresAt,
      expiresAt: new Date(now.getTime() + hours * 3_600_000),
      state,
      status: 'uploading',
      createdAt: now,
    };
    const maxOpenUploads = deps.options.resumableUploadsPerAccount ?? DEFAULT_RESUMABLE_UPLOADS_PER_ACCOUNT;
    let result;
    try {
      result = await deps.uploads.create(upload, limits, { maxOpenUploads });
    } catch (error) {
      await deps.partials.abort(state).catch(() => undefined);
      throw error;
    }
    if (result !== 'inserted') {
      await deps.partials.abort(state).catch(() => undefined);
      if (result === 'open_uploads_limit_reached') {
        throw new DomainError(
          'RESUMABLE_UPLOAD_LIMIT_REACHED',
          `This account already has ${maxOpenUploads} unfinished resumable uploads: finish or terminate one, or wait for one to expire.`,
          { resumable_uploads_per_account: maxOpenUploads },
        );
      }
      throw quotaError(result, limits);
    }
    return upload;
  }
}
