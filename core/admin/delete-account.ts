import type { UserRepository } from '../accounts/user-repository.js';
import type { BlobStore } from '../files/blob-store.js';
import { deleteFiles } from '../files/delete-files.js';
import type { FileRepository } from '../files/file-repository.js';
import { findAccount } from './find-account.js';

/** Files deleted per step when an account is removed. */
const DELETE_BATCH = 100;

/**
 * Deletes an account (`users delete`): its files first (records, then blobs, in batches of 100),
 * then the account with its keys, sessions, tokens, usage and logs.
 * @returns how many files were deleted
 * @throws DomainError USER_NOT_FOUND (404)
 */
export class DeleteAccount {
  constructor(private readonly deps: { users: UserRepository; files: FileRepository; blobs: BlobStore }) {}

  async execute(input: { email: string }): Promise<{ deletedFiles: number }> {
    const user = await findAccount(this.deps.users, input.email);
    let deletedFiles = 0;
    for (;;) {
      const page = await this.deps.files.list({ userId: user.id, filter: {}, window: { offset: 0, limit: DELETE_BATCH } });
      if (page.items.length === 0) break;
      deletedFiles += (await deleteFiles(this.deps, user.id, page.items.map((f) => f.fileId))).length;
    }
    await this.deps.users.delete(user.id);
    return { deletedFiles };
  }
}
