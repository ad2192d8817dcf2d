import type { AccountPolicy } from '../plans/account-policy.js';
import { requireWriteAccess } from '../plans/account-standing.js';
import type { Failpoints } from '../shared/failpoints.js';
import { DomainError } from '../shared/errors.js';
import type { BlobStore } from './blob-store.js';
import { deleteFiles } from './delete-files.js';
import type { FileRepository } from './file-repository.js';
import { fileNotFound } from './get-file.js';
import type { SigningKeyRepository, UrlSigner } from './signing-keys.js';
import { isFileId, type StoredFile } from './stored-file.js';

/** The text a deletion link's HMAC covers: its own version tag (never valid as a read grant) and the file id. */
function deletionPayload(fileId: string): string {
  return `hangar-deletion-url-v1\n${fileId}`;
}

/**
 * A signed, single-file deletion link (docs/private-files.md, the ShareX `DeletionURL`):
 * `{base_url}/files/<file_id>/delete?signature=<base64url>`, an HMAC of the file id under the
 * account's signing key (`UrlSigner`), so it works without a credential until the file is deleted
 * or the key rotated (`POST /settings/rotate-signing-key`). Opening it shows a confirmation page;
 * only its form's POST deletes (link previews and prefetching never delete).
 */
export class SignedDeletion {
  constructor(
    private readonly deps: {
      files: FileRepository; blobs: BlobStore; accounts: AccountPolicy; signingKeys: SigningKeyRepository; signer: UrlSigner;
      options: { publicApiUrl: string }; failpoints?: Failpoints;
    },
  ) {}

  /** The deletion link of one of the user's files. @throws DomainError FILE_NOT_FOUND (404) */
  async link(input: { userId: string; fileId: string }): Promise<string> {
    const key = await this.deps.signingKeys.ensure({ userId: input.userId, candidate: this.deps.signer.newKey() });
    if (key === undefined) throw fileNotFound();
    const signature = this.deps.signer.sign({ key, payload: deletionPayload(input.fileId) });
    return `${this.deps.options.publicApiUrl}/files/${input.fileId}/delete?signature=${signature}`;
  }

  /**
   * The file a deletion link names, when the link is valid (for its confirmation page).
   * @throws DomainError SIGNED_URL_INVALID (403) for an altered or revoked link; FILE_NOT_FOUND (404) once the file is gone
   */
  async check(input: { fileId: string; signature: string | undefined }): Promise<StoredFile> {
    const found = isFileId(input.fileId) ? await this.deps.files.findWithSigningKey(input.fileId) : undefined;
    if (!found) throw fileNotFound();
    const { file, signingKey } = found;
    const valid = signingKey !== null && input.signature !== undefined && this.deps.signer.verify({ key: signingKey, payload: deletionPayload(file.fileId), signature: input.signature });
    if (!valid) throw new DomainError('SIGNED_URL_INVALID', 'This deletion link is not valid: it was changed, or its owner revoked it.');
    return file;
  }

  /**
   * Deletes the file a valid deletion link names: record and blob, as `DELETE /files/:id`.
   * @throws DomainError SIGNED_URL_INVALID (403); TRIAL_ENDED (403); FILE_NOT_FOUND (404)
   */
  async execute(input: { fileId: string; signature: string | undefined }): Promise<StoredFile> {
    const file = await this.check(input);
    requireWriteAccess((await this.deps.accounts.view(file.userId)).standing);
    if ((await deleteFiles(this.deps, file.userId, [file.fileId])).length === 0) throw fileNotFound();
    return file;
  }
}
