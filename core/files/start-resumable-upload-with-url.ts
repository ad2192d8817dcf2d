import type { CreateResumableUpload } from './create-resumable-upload.js';
import type { ResumableUpload } from './resumable-upload-repository.js';
import { checkGrantLimits, claimOnce, invalidUrl, type UploadUrlCheckDeps, verifiedGrant } from './upload-with-url.js';

/** Input of {@link StartResumableUploadWithUrl}: the URL (id, signature) and the tus creation request. */
export interface StartResumableUploadWithUrlInput {
  id: string;
  signature: string | undefined;
  /** `Upload-Length`, bytes. */
  length: number;
  /** `filetype` metadata. */
  contentType: string | undefined;
  /** `filename` metadata (the URL's `name` wins). */
  fileName: string | undefined;
}

/**
 * tus creation through a signed upload URL (docs/media.md, `tus-js-client` with `endpoint: upload_url`):
 * checks the URL and its limits against the declared length and type, claims its single use, starts a
 * resumable upload of the minting account ({@link CreateResumableUpload}: every account rule) with the
 * URL's name, visibility and expiry, and binds it to the URL, which then reaches that upload alone
 * ({@link ResumableUploadUrlOwner}). A refused creation releases the claim.
 * @throws DomainError UPLOAD_URL_INVALID, UPLOAD_URL_EXPIRED (403), UPLOAD_URL_USED (409), CONTENT_TYPE_NOT_ALLOWED (400),
 *         FILE_TOO_LARGE (413), and every error of {@link CreateResumableUpload}
 */
export class StartResumableUploadWithUrl {
  constructor(private readonly deps: UploadUrlCheckDeps & { createResumableUpload: CreateResumableUpload }) {}

  async execute(input: StartResumableUploadWithUrlInput): Promise<ResumableUpload> {
    const grant = await verifiedGrant(this.deps, input);
    checkGrantLimits(grant, input.contentType, input.length);
    await claimOnce(this.deps.uploadUrls, grant, this.deps.clock.now());
    try {
      const upload = await this.deps.createResumableUpload.execute({
        userId: grant.userId,
        length: input.length,
        contentType: input.contentType,
        fileName: grant.name === null ? input.fileName : encodeURIComponent(grant.name),
        isPublic: grant.isPublic,
        expiresAt: grant.fileExpiresAt ?? undefined,
      });
      await this.deps.uploadUrls.attachResumableUpload({ id: grant.id, uploadId: upload.id });
      return upload;
    } catch (error) {
      await this.deps.uploadUrls.release(grant.id).catch(() => undefined);
      throw error;
    }
  }
}

/**
 * The account behind a tus upload reached through a signed upload URL (its PATCH and HEAD requests,
 * docs/media.md): the URL's signature must hold (so rotating the signing key stops it) and the upload
 * must be the one started through it. The URL's own lifetime no longer matters: the tus upload has its
 * own expiry.
 * @returns the minting account's id, for the resumable upload use cases
 * @throws DomainError UPLOAD_URL_INVALID (403)
 */
export class ResumableUploadUrlOwner {
  constructor(private readonly deps: UploadUrlCheckDeps) {}

  async execute(input: { id: string; signature: string | undefined; uploadId: string }): Promise<{ userId: string }> {
    const grant = await verifiedGrant(this.deps, input, true);
    if (grant.resumableUploadId === null || grant.resumableUploadId !== input.uploadId) throw invalidUrl();
    return { userId: grant.userId };
  }
}
