import type { AccountPolicy } from '../plans/account-policy.js';
import { requireWriteAccess } from '../plans/account-standing.js';
import { DomainError } from '../shared/errors.js';
import type { Failpoints } from '../shared/failpoints.js';
import type { BlobStore } from './blob-store.js';
import { deleteFiles } from './delete-files.js';
import type { FileRepository } from './file-repository.js';

/** Result of a bulk delete (spec 4.12). */
export interface BulkDeleteResult {
  /** Number of files removed. */
  deleted: number;
  /** One entry per id that was not removed. */
  errors: { id: string; error: string }[];
}

/** Most ids in one bulk delete (spec 8). */
export const MAX_BULK_DELETE_IDS = 100;

/**
 * Deletes up to 100 of the user's files in one transaction (spec 4.12). Repeated ids count once;
 * ids that are unknown or another account's are reported in `errors` as "File not found".
 * @throws DomainError VALIDATION_FAILED (400) when `ids` is empty or has more than
 *   {@link MAX_BULK_DELETE_IDS} entries (spec 8; repeats count, as at the HTTP edge); nothing is deleted
 * @throws DomainError TRIAL_ENDED (403): deletes are refused as a whole once the trial has ended
 */
export class BulkDeleteFiles {
  constructor(private readonly deps: { files: FileRepository; blobs: BlobStore; accounts: AccountPolicy; failpoints?: Failpoints }) {}

  async execute(input: { userId: string; ids: string[] }): Promise<BulkDeleteResult> {
    if (input.ids.length < 1 || input.ids.length > MAX_BULK_DELETE_IDS) {
      throw new DomainError('VALIDATION_FAILED', `ids must list from 1 to ${MAX_BULK_DELETE_IDS} file ids; got ${input.ids.length}.`, [
        { path: '/ids', message: `Expected from 1 to ${MAX_BULK_DELETE_IDS} items` },
      ]);
    }
    requireWriteAccess((await this.deps.accounts.view(input.userId)).standing);
    const ids = [...new Set(input.ids)];
    const deleted = new Set((await deleteFiles(this.deps, input.userId, ids, { reason: 'bulk_deleted' })).map((file) => file.fileId));
    return {
      deleted: deleted.size,
      errors: ids.filter((id) => !deleted.has(id)).map((id) => ({ id, error: 'File not found' })),
    };
  }
}
