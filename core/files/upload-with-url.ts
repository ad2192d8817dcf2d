import type { AbortSignalLike } from '../shared/web-globals.js';
import type { UserRepository } from '../accounts/user-repository.js';
import type { Clock } from '../shared/clock.js';
import { servesFilesOf } from './serving-owner.js';
import { DomainError } from '../shared/errors.js';
import type { FileView } from './file-view.js';
import type { UrlSigner } from './url-signer.js';
import { tooLarge, type UploadFile } from './upload-file.js';
import { contentTypeGranted, type UploadUrlGrant, uploadUrlPayload } from './upload-urls.js';
import type { UploadUrlRepository } from './upload-url-repository.js';

/** Input of {@link UploadWithUrl}. */
export interface UploadWithUrlInput {
  /** The URL's id (its last path segment). */
  id: string;
  /** The URL's `signature` query parameter. */
  signature: string | undefined;
  /** Raw `Content-Type` of the file (the header of a PUT, the file part's of a form). */
  contentType: string | undefined;
  /** Raw file name (`X-File-Name`, or the form's file name percent-encoded). */
  fileName: string | undefined;
  /** Declared length of the file in bytes, when known (a PUT's Content-Length). */
  contentLength?: number;
  body: AsyncIterable<Uint8Array>;
  signal?: AbortSignalLike;
}

/**
 * An upload through a signed upload URL (docs/media.md): checks the URL (signature under the account's
 * current signing key, expiry), the URL's own limits (media types, size), claims its single use in the
 * database, then hands the body to {@link UploadFile} as an upload of the minting account, so every
 * account rule applies (type allowlist, sniffing, upload limit, quotas, rate limit). When that upload
 * fails, the claim is released and the URL may be used again until it expires; concurrent uses
 * produce one file, the others are refused with UPLOAD_URL_USED.
 * @throws DomainError UPLOAD_URL_INVALID, UPLOAD_URL_EXPIRED (403), UPLOAD_URL_USED (409),
 *         CONTENT_TYPE_NOT_ALLOWED (400) for a type the URL does not allow, FILE_TOO_LARGE (413) past the URL's size,
 *         and every error of {@link UploadFile}
 */
export class UploadWithUrl {
  constructor(private readonly deps: UploadUrlCheckDeps & { uploadFile: UploadFile }) {}

  async execute(input: UploadWithUrlInput): Promise<FileView> {
    const grant = await verifiedGrant(this.deps, input);
    checkGrantLimits(grant, input.contentType, input.contentLength);
    const max = grant.maxSizeBytes;
    await claimOnce(this.deps.uploadUrls, grant, this.deps.clock.now());
    try {
      return await this.deps.uploadFile.execute({
        userId: grant.userId,
        contentType: input.contentType,
        fileName: grant.name === null ? input.fileName : encodeURIComponent(grant.name),
        contentLength: input.contentLength,
        isPublic: grant.isPublic,
        expiresAt: grant.fileExpiresAt ?? undefined,
        maxBytes: max ?? undefined,
        body: input.body,
        signal: input.signal,
      });
    } catch (error) {
      await this.deps.uploadUrls.release(grant.id).catch(() => undefined);
      throw error;
    }
  }
}

/** What checking an upload URL needs. */
export interface UploadUrlCheckDeps {
  uploadUrls: UploadUrlRepository;
  /** The minting account, read to refuse a suspended one (docs/admin.md, "Suspension"). */
  users: Pick<UserRepository, 'findById'>;
  signer: UrlSigner;
  clock: Clock;
}

/**
 * The grant of an upload URL whose signature holds under the account's current signing key and,
 * unless `ignoreExpiry` (a tus upload already started through it goes on), whose lifetime has not passed,
 * of an account that is not suspended.
 * @throws DomainError UPLOAD_URL_INVALID, UPLOAD_URL_EXPIRED, ACCOUNT_SUSPENDED (403)
 */
export async function verifiedGrant(
  deps: UploadUrlCheckDeps,
  input: { id: string; signature: string | undefined },
  ignoreExpiry = false,
): Promise<UploadUrlGrant> {
  const found = /^[0-9A-Za-z]{1,64}$/.test(input.id) ? await deps.uploadUrls.findWithSigningKey(input.id) : undefined;
  if (!found || found.signingKey === null || input.signature === undefined) throw invalidUrl();
  const { grant, signingKey } = found;
  if (!deps.signer.verify({ key: signingKey, payload: uploadUrlPayload(grant), signature: input.signature })) throw invalidUrl();
  if (!ignoreExpiry && deps.clock.now().getTime() >= grant.expiresAt.getTime())
    throw new DomainError('UPLOAD_URL_EXPIRED', 'This upload URL has expired: ask for a new one.');
  if (!(await servesFilesOf(deps.users, grant.userId))) {
    throw new DomainError('ACCOUNT_SUSPENDED', 'The account this upload URL belongs to is suspended by an administrator.');
  }
  return grant;
}

/**
 * The URL's own limits: its media types and its size (when the length is declared).
 * @throws DomainError CONTENT_TYPE_NOT_ALLOWED (400), FILE_TOO_LARGE (413)
 */
export function checkGrantLimits(grant: UploadUrlGrant, rawContentType: string | undefined, length: number | undefined): void {
  const contentType = (rawContentType ?? '').split(';')[0].trim().toLowerCase();
  if (!contentTypeGranted(grant.contentTypes, contentType)) {
    throw new DomainError(
      'CONTENT_TYPE_NOT_ALLOWED',
      `This upload URL accepts ${grant.contentTypes!.join(', ')}, not ${contentType || 'a file without a type'}.`,
      {
        allowed: grant.contentTypes,
      },
    );
  }
  if (grant.maxSizeBytes !== null && length !== undefined && length > grant.maxSizeBytes) throw tooLargeForUrl(grant.maxSizeBytes);
}

/** Claims the URL's single use. @throws DomainError UPLOAD_URL_USED (409), UPLOAD_URL_INVALID (403) when it is gone */
export async function claimOnce(uploadUrls: UploadUrlRepository, grant: UploadUrlGrant, now: Date): Promise<void> {
  const claim = await uploadUrls.claim({ id: grant.id, now });
  if (claim === 'not_found') throw invalidUrl();
  if (claim === 'used') throw new DomainError('UPLOAD_URL_USED', 'This upload URL has already been used: each one uploads a single file.');
}

/** 403 UPLOAD_URL_INVALID. */
export function invalidUrl(): DomainError {
  return new DomainError('UPLOAD_URL_INVALID', 'This is not a valid upload URL: it was altered, revoked by a signing key rotation, or never issued.');
}

function tooLargeForUrl(maxBytes: number): DomainError {
  return new DomainError('FILE_TOO_LARGE', `The file is larger than this upload URL's limit of ${maxBytes} bytes.`, tooLarge(maxBytes).details);
}
