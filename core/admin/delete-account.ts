import type { UserRepository } from '../accounts/user-repository.js';
import type { ActivityLogRepository } from '../activity/activity-log-repository.js';
import type { BlobStore } from '../files/blob-store.js';
import { deleteFiles } from '../files/delete-files.js';
import type { FileRepository } from '../files/file-repository.js';
import type { PartialBlobStore } from '../files/partial-blob-store.js';
import type { ResumableUploadRepository } from '../files/resumable-upload-repository.js';
import { type AccountRef, accountOf } from './admin-target.js';

/** Files deleted per step when an account is removed. */
export const DELETE_BATCH = 100;

/**
 * Deletes an account (`users delete`): its files first (records, then blobs, in batches of 100),
 * its resumable uploads (rows, then partial bytes: a partial file, a GCS session or an S3 multipart
 * upload, which the account's row would otherwise leave behind), its activity log (in short steps:
 * an account that has made millions of requests would otherwise leave them all to the cascade of
 * one statement, which the database's statement timeout can cut off), then the account with its
 * keys, sessions, tokens and usage. With `shouldStop`, asked before each step of files, it stops
 * there when that answers true (a stopping process): what is left stays, and a later call resumes.
 * `afterStep`, when given, is awaited after each step of files with the number that step deleted
 * (RemoveAccount extends its lease and records the progress there).
 * @param input.email or input.account: the account, by e-mail or by id
 * @returns how many files were deleted, and whether the account is gone (`finished`; false only when stopped)
 * @throws DomainError USER_NOT_FOUND (404)
 */
export class DeleteAccount {
  constructor(
    private readonly deps: {
      users: UserRepository;
      files: FileRepository;
      blobs: BlobStore;
      uploads: ResumableUploadRepository;
      partials: PartialBlobStore;
      logs: ActivityLogRepository;
    },
  ) {}

  async execute(
    input: ({ email: string } | { account: AccountRef }) & { shouldStop?: () => boolean; afterStep?: (deletedFiles: number) => Promise<void> },
  ): Promise<{ deletedFiles: number; finished: boolean }> {
    const user = await accountOf(this.deps.users, 'account' in input ? input.account : { email: input.email });
    let deletedFiles = 0;
    for (;;) {
      if (input.shouldStop?.()) return { deletedFiles, finished: false };
      const page = await this.deps.files.list({ userId: user.id, filter: {}, window: { offset: 0, limit: DELETE_BATCH } });
      if (page.items.length === 0) break;
      const deleted = (
        await deleteFiles(
          this.deps,
          user.id,
          page.items.map((f) => f.fileId),
          { reason: 'account_deleted' },
        )
      ).length;
      deletedFiles += deleted;
      await input.afterStep?.(deleted);
    }
    for (;;) {
      const uploads = await this.deps.uploads.findByUser({ userId: user.id, limit: DELETE_BATCH });
      if (uploads.length === 0) break;
      for (const upload of uploads) {
        const deleted = await this.deps.uploads.delete({ id: upload.id });
        if (deleted?.status === 'uploading') await this.deps.partials.abort(deleted.state);
      }
    }
    await this.deps.logs.deleteForAccount(user.id);
    await this.deps.users.delete(user.id);
    return { deletedFiles, finished: true };
  }
}
