import type { ApiKeyRepository } from '../api-keys/api-key-repository.js';
import { mintingKey } from '../api-keys/minting-key.js';
import type { Clock } from '../shared/clock.js';
import { DomainError } from '../shared/errors.js';
import type { IdGenerator } from '../shared/id-generator.js';
import { SECOND_MS } from '../shared/time.js';
import { checkExpiry } from './file-expiry.js';
import { parseFileName } from './file-name.js';
import type { SigningKeyRepository } from './signing-key-repository.js';
import type { UrlSigner } from './url-signer.js';
import { UPLOAD_URL_DEFAULT_SECONDS, UPLOAD_URL_MAX_SECONDS, UPLOAD_URL_MIN_SECONDS, type UploadUrlGrant, uploadUrlPayload } from './upload-urls.js';
import type { UploadUrlRepository } from './upload-url-repository.js';

/** Most media types one upload URL may list. */
export const UPLOAD_URL_MAX_CONTENT_TYPES = 50;
/** Length of an upload URL's id (base62 characters: about 131 bits). */
export const UPLOAD_URL_ID_LENGTH = 22;

/** Input of {@link CreateUploadUrl} (shape-checked at the edge, checked again here). */
export interface CreateUploadUrlInput {
  userId: string;
  /** Seconds the URL works, {@link UPLOAD_URL_MIN_SECONDS}–{@link UPLOAD_URL_MAX_SECONDS}; default {@link UPLOAD_URL_DEFAULT_SECONDS}. */
  expiresInSeconds?: number;
  /** Largest file the URL accepts, in bytes (≥ 1). */
  maxSizeBytes?: number;
  /** Allowed media types: `type/subtype` or `type/*`. */
  contentTypes?: string[];
  /** The stored file's name (at most 255 characters), whatever the uploader sends. */
  name?: string;
  /** Default true. */
  isPublic?: boolean;
  /** When the uploaded file is deleted automatically (in the future, at most 100 years ahead). */
  fileExpiresAt?: Date;
  /** The API key the request was made with, if any: the URL ends with it (revoked or expired). */
  apiKeyId?: string;
}

/** A minted upload URL and when it stops working. */
export interface UploadUrl {
  /** `{base_url}/uploads/<id>?signature=…`: PUT the raw file or POST a multipart form to it. */
  url: string;
  expiresAt: Date;
}

/**
 * `POST /files/upload-url` (docs/media.md, like Supabase's `createSignedUploadUrl`): a short-lived,
 * single-use address at which a browser uploads one file under this account with no other credential.
 * The grant (limits, name, visibility, expiry) is stored ({@link UploadUrlRepository}) and the URL
 * carries an HMAC ({@link UrlSigner}) of its id and account under the account's signing key, so
 * `POST /settings/rotate-signing-key` revokes every outstanding upload URL. A URL minted with an API key
 * goes with the key: revoking it removes the URL, and the URL expires no later than the key.
 * @throws DomainError INVALID_UPLOAD_URL_REQUEST (400) for a lifetime outside 60–86400 s, a size under 1 byte,
 *         a malformed media type; INVALID_FILE_NAME, INVALID_EXPIRY (400); USER_NOT_FOUND (404);
 *         UNAUTHORIZED / API_KEY_EXPIRED (401) when the minting key stopped working meanwhile
 */
export class CreateUploadUrl {
  constructor(
    private readonly deps: {
      uploadUrls: UploadUrlRepository;
      signingKeys: SigningKeyRepository;
      signer: UrlSigner;
      apiKeys: ApiKeyRepository;
      ids: IdGenerator;
      clock: Clock;
      publicApiUrl: string;
    },
  ) {}

  async execute(input: CreateUploadUrlInput): Promise<UploadUrl> {
    const seconds = input.expiresInSeconds ?? UPLOAD_URL_DEFAULT_SECONDS;
    if (!Number.isSafeInteger(seconds) || seconds < UPLOAD_URL_MIN_SECONDS || seconds > UPLOAD_URL_MAX_SECONDS) {
      throw invalid(`expires_in must be a whole number of seconds from ${UPLOAD_URL_MIN_SECONDS} to ${UPLOAD_URL_MAX_SECONDS} (one day).`);
    }
    if (input.maxSizeBytes !== undefined && (!Number.isSafeInteger(input.maxSizeBytes) || input.maxSizeBytes < 1)) {
      throw invalid('max_size_bytes must be a whole number of bytes, at least 1.');
    }
    const contentTypes = input.contentTypes === undefined ? null : input.contentTypes.map((type) => type.trim().toLowerCase());
    if (
      contentTypes !== null &&
      (contentTypes.length === 0 || contentTypes.length > UPLOAD_URL_MAX_CONTENT_TYPES || contentTypes.some((type) => !MEDIA_TYPE.test(type)))
    ) {
      throw invalid(`content_types must list 1 to ${UPLOAD_URL_MAX_CONTENT_TYPES} media types such as image/png or image/*.`);
    }
    const name = input.name === undefined ? null : parseFileName(encodeURIComponent(input.name));
    const now = this.deps.clock.now();
    const fileExpiresAt = checkExpiry(input.fileExpiresAt ?? null, now);
    const minter = input.apiKeyId === undefined ? undefined : await mintingKey(this.deps.apiKeys, { apiKeyId: input.apiKeyId, userId: input.userId, now });
    const key = await this.deps.signingKeys.ensure({ userId: input.userId, candidate: this.deps.signer.newKey() });
    if (key === undefined) throw new DomainError('USER_NOT_FOUND', 'No such account.');
    const lifetimeEnd = now.getTime() + seconds * SECOND_MS;
    const keyEnd = minter?.expiresAt?.getTime() ?? Number.POSITIVE_INFINITY;
    const grant: UploadUrlGrant = {
      id: this.deps.ids.base62(UPLOAD_URL_ID_LENGTH),
      userId: input.userId,
      expiresAt: new Date(Math.min(lifetimeEnd, keyEnd)),
      maxSizeBytes: input.maxSizeBytes ?? null,
      contentTypes,
      name,
      isPublic: input.isPublic ?? true,
      fileExpiresAt,
      createdAt: now,
      resumableUploadId: null,
      apiKeyId: minter?.id ?? null,
    };
    await this.deps.uploadUrls.insert(grant);
    const signature = this.deps.signer.sign({ key, payload: uploadUrlPayload(grant) });
    return { url: `${this.deps.publicApiUrl}/uploads/${grant.id}?signature=${signature}`, expiresAt: grant.expiresAt };
  }
}

/** `type/subtype` or `type/*` (RFC 6838 §4.2 restricted names), lower case. */
const MEDIA_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/(\*|[a-z0-9][a-z0-9!#$&^_.+-]{0,126})$/;

function invalid(message: string): DomainError {
  return new DomainError('INVALID_UPLOAD_URL_REQUEST', message);
}
