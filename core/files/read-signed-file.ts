import type { UserRepository } from '../accounts/user-repository.js';
import { servesFilesOf } from './serving-owner.js';
import { type ImageRequest, parseImageRequest, type QueryValues } from '../images/image-params.js';
import type { PublicImage, TransformPublicImage } from '../images/transform-public-image.js';
import type { UsageMeter } from '../plans/usage-meter.js';
import type { Clock } from '../shared/clock.js';
import { DomainError, isDomainError } from '../shared/errors.js';
import { SECOND_MS } from '../shared/time.js';
import type { BlobStore } from './blob-store.js';
import type { FileRepository } from './file-repository.js';
import { fileNotFound } from './get-file.js';
import { openBlob, type OwnFile } from './read-own-file.js';
import { type SignedUrlGrant, signedUrlPayload } from './signed-url.js';
import type { UrlSigner } from './url-signer.js';
import type { FileReadCounts } from './file-read-counts.js';
import type { ApiKeyRepository } from '../api-keys/api-key-repository.js';
import { isApiKeyExpired } from '../api-keys/api-key.js';
import { isUuid } from '../shared/uuid.js';
import { hasExpired, isFileId } from './stored-file.js';

/** What a valid signed URL serves: the file itself, or its granted transformation. */
export type SignedRead = { disposition: 'inline' | 'attachment'; expiresAt: Date } & (
  { kind: 'file'; file: OwnFile['file']; open: OwnFile['open'] } | { kind: 'image'; image: PublicImage }
);

/**
 * Serves a signed URL, `GET /s/:file_id?expires=&signature=…` on the content origin (docs/private-files.md).
 * One lookup finds the file with its owner's signing key (`findWithSigningKey`); the signature is
 * checked over the grant as the query states it (any change of file, expiry, disposition or
 * transform fails it), then the expiry. Private and public files alike; a deleted or expired file
 * is gone for its URLs too. Counts one origin read (spec 2.6), as `/m` and `/d` do, and one view
 * or download of the file (by the granted disposition). A URL that names the API key that made it
 * (`kid`) works only while that key does: the key is looked up (a cached lookup, at the same time
 * as the file), and a revoked or expired key makes the URL invalid.
 * @throws DomainError SIGNED_URL_INVALID (403) for a malformed, altered or revoked (rotated signing key, revoked or expired API key) URL;
 *         SIGNED_URL_EXPIRED (403) past its expiry; FILE_NOT_FOUND (404) when the file is gone;
 *         from a transform, what TransformPublicImage throws
 */
export class ReadSignedFile {
  constructor(
    private readonly deps: {
      files: FileRepository;
      users: Pick<UserRepository, 'findById'>;
      blobs: BlobStore;
      signer: UrlSigner;
      apiKeys: ApiKeyRepository;
      meter: UsageMeter;
      counts: FileReadCounts;
      images: TransformPublicImage;
      clock: Clock;
    },
  ) {}

  /** @param input.query the URL's query values; @param input.accept the request's `Accept`, for `format=auto` */
  async execute(input: { fileId: string; query: QueryValues; accept?: string }): Promise<SignedRead> {
    const grant = parseGrant(input.fileId, input.query);
    const signature = input.query.signature;
    if (!grant || typeof signature !== 'string') throw invalid();
    const now = this.deps.clock.now();
    // Both lookups at once: the key's answer is only used once the signature holds.
    const [found, minter] = await Promise.all([
      this.deps.files.findWithSigningKey(grant.fileId),
      grant.apiKeyId === undefined ? undefined : this.deps.apiKeys.findById(grant.apiKeyId),
    ]);
    if (!found) throw fileNotFound();
    const { file, signingKey } = found;
    if (signingKey === null || !this.deps.signer.verify({ key: signingKey, payload: signedUrlPayload(grant), signature })) throw invalid();
    // Made with an API key: only while that key is the owner's and has not expired (revoked: gone).
    if (grant.apiKeyId !== undefined && (!minter || minter.userId !== file.userId || isApiKeyExpired(minter, now))) throw invalid();
    const expiresAt = new Date(grant.expires * SECOND_MS);
    if (expiresAt.getTime() <= now.getTime()) {
      throw new DomainError('SIGNED_URL_EXPIRED', `This signed URL expired at ${expiresAt.toISOString()}; ask its owner for a new one.`, {
        expired_at: expiresAt.toISOString(),
      });
    }
    if (hasExpired(file, now) || !(await servesFilesOf(this.deps.users, file.userId))) throw fileNotFound();
    this.deps.meter.recordRead(file.userId);
    this.deps.counts.record(file.fileId, grant.download ? 'download' : 'view');
    const disposition = grant.download ? 'attachment' : 'inline';
    const open = openBlob(this.deps.blobs, file);
    if (grant.transform) {
      return { kind: 'image', disposition, expiresAt, image: this.deps.images.transformFile({ file, open, request: grant.transform, accept: input.accept }) };
    }
    return { kind: 'file', disposition, expiresAt, file, open };
  }
}

/** A whole number as {@link signedUrlQuery} writes it: decimal digits, no sign, no leading zero. */
const CANONICAL_NUMBER = /^(?:0|[1-9]\d*)$/;

/** The signed URL's numeric parameters (expiry and transform sizes), each accepted only as {@link CANONICAL_NUMBER}. */
const NUMERIC_PARAMETERS = ['expires', 'w', 'h', 'q'] as const;

/**
 * The grant a signed URL's query states, or undefined when it is not one (malformed values). Numbers
 * are accepted only in the form the URL was issued with (`expires=0…`, `w=010` are refused): the
 * signature covers the parsed grant, so another spelling of a number would be another URL for the
 * same signature.
 */
function parseGrant(fileId: string, query: QueryValues): SignedUrlGrant | undefined {
  const { expires, download } = query;
  if (!isFileId(fileId) || typeof expires !== 'string' || !/^\d{1,12}$/.test(expires)) return undefined;
  for (const name of NUMERIC_PARAMETERS) {
    const value = query[name];
    if (typeof value === 'string' && !CANONICAL_NUMBER.test(value)) return undefined;
  }
  if (download !== undefined && download !== '1') return undefined;
  const kid = query.kid;
  // The key id as it was issued: a lower-case UUID.
  if (kid !== undefined && (typeof kid !== 'string' || !isUuid(kid) || kid !== kid.toLowerCase())) return undefined;
  let transform: ImageRequest | undefined;
  try {
    transform = parseImageRequest(query);
  } catch (error) {
    if (isDomainError(error, 'INVALID_TRANSFORM')) return undefined;
    throw error;
  }
  return { fileId, expires: Number(expires), download: download === '1', transform, apiKeyId: kid };
}

function invalid(): DomainError {
  return new DomainError('SIGNED_URL_INVALID', 'This signed URL is not valid: it was changed, or its owner revoked it.');
}
