import { isApiKeyExpired } from '../api-keys/api-key.js';
import type { ApiKeyRepository } from '../api-keys/api-key-repository.js';
import { mintingKey } from '../api-keys/minting-key.js';
import type { Clock } from '../shared/clock.js';
import type { AccountPolicy } from '../plans/account-policy.js';
import { requireWriteAccess } from '../plans/account-standing.js';
import type { Failpoints } from '../shared/failpoints.js';
import { DomainError } from '../shared/errors.js';
import type { BlobStore } from './blob-store.js';
import { deleteFiles } from './delete-files.js';
import type { FileRepository } from './file-repository.js';
import { fileNotFound } from './get-file.js';
import type { SigningKeyRepository } from './signing-key-repository.js';
import type { UrlSigner } from './url-signer.js';
import { isFileId, type StoredFile } from './stored-file.js';

/** An API key id as links carry it: a lower-case UUID. */
const API_KEY_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The text a deletion link's HMAC covers: its own version tag (never valid as a read grant), the file
 * id and, for a link made with an API key, that key's id (so `kid` cannot be removed or swapped).
 */
function deletionPayload(fileId: string, apiKeyId: string | undefined): string {
  return apiKeyId === undefined ? `hangar-deletion-url-v1\n${fileId}` : `hangar-deletion-url-v1\n${fileId}\n${apiKeyId}`;
}

/**
 * A signed, single-file deletion link (docs/private-files.md, the ShareX `DeletionURL`):
 * `{base_url}/files/<file_id>/delete?signature=<base64url>`, an HMAC of the file id under the
 * account's signing key (`UrlSigner`), so it works without a credential until the file is deleted
 * or the key rotated (`POST /settings/rotate-signing-key`). A link made with an API key also names it
 * (`&kid=<key id>`, signed) and works only while that key does: revoked or expired, the link is refused
 * (docs/api-keys.md, "What outlives a credential"). Opening it shows a confirmation page;
 * only its form's POST deletes (link previews and prefetching never delete).
 */
export class SignedDeletion {
  constructor(
    private readonly deps: {
      files: FileRepository;
      blobs: BlobStore;
      accounts: AccountPolicy;
      signingKeys: SigningKeyRepository;
      signer: UrlSigner;
      apiKeys: ApiKeyRepository;
      clock: Clock;
      options: { publicApiUrl: string };
      failpoints?: Failpoints;
    },
  ) {}

  /**
   * The deletion link of one of the user's files; `apiKeyId` is the key the request was made with, if any.
   * @throws DomainError FILE_NOT_FOUND (404); UNAUTHORIZED / API_KEY_EXPIRED (401) when that key stopped working meanwhile
   */
  async link(input: { userId: string; fileId: string; apiKeyId?: string }): Promise<string> {
    const minter =
      input.apiKeyId === undefined
        ? undefined
        : await mintingKey(this.deps.apiKeys, { apiKeyId: input.apiKeyId, userId: input.userId, now: this.deps.clock.now() });
    const key = await this.deps.signingKeys.ensure({ userId: input.userId, candidate: this.deps.signer.newKey() });
    if (key === undefined) throw fileNotFound();
    const signature = this.deps.signer.sign({ key, payload: deletionPayload(input.fileId, minter?.id) });
    const kid = minter === undefined ? '' : `&kid=${minter.id}`;
    return `${this.deps.options.publicApiUrl}/files/${input.fileId}/delete?signature=${signature}${kid}`;
  }

  /**
   * The file a deletion link names, when the link is valid (for its confirmation page).
   * @throws DomainError SIGNED_URL_INVALID (403) for an altered or revoked link; FILE_NOT_FOUND (404) once the file is gone
   */
  async check(input: { fileId: string; signature: string | undefined; kid?: string }): Promise<StoredFile> {
    const [found, minter] = await Promise.all([
      isFileId(input.fileId) ? this.deps.files.findWithSigningKey(input.fileId) : undefined,
      input.kid === undefined || !API_KEY_ID.test(input.kid) ? undefined : this.deps.apiKeys.findById(input.kid),
    ]);
    if (!found) throw fileNotFound();
    const { file, signingKey } = found;
    const signed =
      signingKey !== null &&
      input.signature !== undefined &&
      this.deps.signer.verify({ key: signingKey, payload: deletionPayload(file.fileId, input.kid), signature: input.signature });
    // Made with an API key: only while that key is the owner's and has not expired (revoked: gone).
    const keyHolds = input.kid === undefined || (minter !== undefined && minter.userId === file.userId && !isApiKeyExpired(minter, this.deps.clock.now()));
    if (!signed || !keyHolds)
      throw new DomainError('SIGNED_URL_INVALID', 'This deletion link is not valid: it was changed, or its owner (or the API key that made it) revoked it.');
    return file;
  }

  /**
   * Deletes the file a valid deletion link names: record and blob, as `DELETE /files/:id`.
   * @throws DomainError SIGNED_URL_INVALID (403); TRIAL_ENDED (403); FILE_NOT_FOUND (404)
   */
  async execute(input: { fileId: string; signature: string | undefined; kid?: string }): Promise<StoredFile> {
    const file = await this.check(input);
    requireWriteAccess((await this.deps.accounts.view(file.userId)).standing);
    if ((await deleteFiles(this.deps, file.userId, [file.fileId])).length === 0) throw fileNotFound();
    return file;
  }
}
