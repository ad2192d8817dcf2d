import type { AccountPolicy } from '../plans/account-policy.js';
import { requireWriteAccess } from '../plans/account-standing.js';
import type { Failpoints } from '../shared/failpoints.js';
import type { BlobStore } from './blob-store.js';
import { deleteFiles } from './delete-files.js';
import type { FileRepository } from './file-repository.js';
import { fileNotFound } from './get-file.js';

/**
 * Deletes one of the user's files: record and blob (spec 4.11). The public addresses answer 404 at once.
 * @throws DomainError TRIAL_ENDED (403); FILE_NOT_FOUND (404) — also for another account's file
 */
export class DeleteFile {
  constructor(private readonly deps: { files: FileRepository; blobs: BlobStore; accounts: AccountPolicy; failpoints?: Failpoints }) {}

  async execute(input: { userId: string; fileId: string }): Promise<void> {
    requireWriteAccess((await this.deps.accounts.view(input.userId)).standing);
    const deleted = await deleteFiles(this.deps, input.userId, [input.fileId]);
    if (deleted.length === 0) throw fileNotFound();
  }
}
