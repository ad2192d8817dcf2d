import { type ImageRequest, isTransformableType } from '../images/image-params.js';
import type { Clock } from '../shared/clock.js';
import { DomainError } from '../shared/errors.js';
import { SECOND_MS } from '../shared/time.js';
import type { FileOptions } from './file-options.js';
import type { FileRepository } from './file-repository.js';
import { fileNotFound } from './get-file.js';
import { SIGNED_URL_MAX_SECONDS, type SignedUrlGrant, signedUrlPayload, signedUrlQuery } from './signed-url.js';
import type { SigningKeyRepository } from './signing-key-repository.js';
import type { UrlSigner } from './url-signer.js';
import type { ApiKeyRepository } from '../api-keys/api-key-repository.js';
import { mintingKey } from '../api-keys/minting-key.js';
import { hasExpired, isFileId } from './stored-file.js';

/** Input of {@link CreateSignedUrl}. */
export interface CreateSignedUrlInput {
  userId: string;
  fileId: string;
  /** Seconds the URL works, 1 to {@link SIGNED_URL_MAX_SECONDS}. */
  expiresInSeconds: number;
  /** Serve as an attachment (download) instead of inline. */
  download?: boolean;
  /** An image transformation (already shape-checked: `parseImageRequest`); image files only. */
  transform?: ImageRequest;
  /** The API key the request came with, if any: the URL then works only while that key does, and expires no later. */
  apiKeyId?: string;
}

/** A signed URL and when it stops working. */
export interface SignedUrl {
  /** `{cdn_url}/s/<file_id>?expires=…&signature=…` (with `download`, `w`, `h`, `fit`, `format`, `q` when granted). */
  url: string;
  expiresAt: Date;
}

/**
 * `POST /files/:id/signed-url` (docs/private-files.md, like Supabase's `createSignedUrl`): a URL on the content
 * origin that serves one of the user's files, private or public, until it expires. It carries no
 * database secret: an HMAC ({@link UrlSigner}) of the grant (file id, expiry in whole seconds,
 * disposition, transform) under the account's signing key, made on the account's first signed URL;
 * rotating that key revokes every URL signed before. The expiry is rounded up to the next second.
 * A URL made with an API key names it (`kid`, signed): it works only while the key does (revoked or
 * expired, the URL answers SIGNED_URL_INVALID) and its expiry is cut to the key's (rounded down).
 * A URL made with a session outlives the session (docs/api-keys.md, "What outlives a credential").
 * @throws DomainError INVALID_SIGNED_URL_REQUEST (400) for an `expires_in` outside 1–604800 s;
 *         NOT_AN_IMAGE (400) for a transform of a file that is not a transformable image;
 *         FILE_NOT_FOUND (404), also for another account's file or an expired one;
 *         UNAUTHORIZED / API_KEY_EXPIRED (401) when the request's API key was revoked or expired meanwhile
 */
export class CreateSignedUrl {
  constructor(
    private readonly deps: {
      files: FileRepository;
      signingKeys: SigningKeyRepository;
      signer: UrlSigner;
      apiKeys: ApiKeyRepository;
      clock: Clock;
      options: Pick<FileOptions, 'publicContentUrl'>;
    },
  ) {}

  async execute(input: CreateSignedUrlInput): Promise<SignedUrl> {
    const seconds = input.expiresInSeconds;
    if (!Number.isSafeInteger(seconds) || seconds < 1 || seconds > SIGNED_URL_MAX_SECONDS) {
      throw new DomainError('INVALID_SIGNED_URL_REQUEST', `expires_in must be a whole number of seconds from 1 to ${SIGNED_URL_MAX_SECONDS} (7 days).`, {
        min: 1,
        max: SIGNED_URL_MAX_SECONDS,
      });
    }
    const now = this.deps.clock.now();
    const file = isFileId(input.fileId) ? await this.deps.files.findByFileId(input.fileId) : undefined;
    if (!file || file.userId !== input.userId || hasExpired(file, now)) throw fileNotFound();
    const transform = input.transform && Object.keys(input.transform).length > 0 ? input.transform : undefined;
    if (transform && !isTransformableType(file.contentType)) {
      throw new DomainError('NOT_AN_IMAGE', `A transform applies to JPEG, PNG, WebP, AVIF, GIF and TIFF files; this file is ${file.contentType}.`);
    }
    const key = await this.deps.signingKeys.ensure({ userId: input.userId, candidate: this.deps.signer.newKey() });
    if (key === undefined) throw fileNotFound();
    const minter = input.apiKeyId === undefined ? undefined : await mintingKey(this.deps.apiKeys, { apiKeyId: input.apiKeyId, userId: input.userId, now });
    let expires = Math.ceil(now.getTime() / SECOND_MS) + seconds;
    if (minter?.expiresAt) expires = Math.min(expires, Math.floor(minter.expiresAt.getTime() / SECOND_MS));
    const grant: SignedUrlGrant = { fileId: file.fileId, expires, download: input.download ?? false, transform, apiKeyId: minter?.id };
    const signature = this.deps.signer.sign({ key, payload: signedUrlPayload(grant) });
    return { url: `${this.deps.options.publicContentUrl}/s/${file.fileId}?${signedUrlQuery(grant, signature)}`, expiresAt: new Date(expires * SECOND_MS) };
  }
}
