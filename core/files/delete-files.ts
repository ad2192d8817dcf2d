import type { FileDeletionReason } from '../webhooks/webhook.js';
import { type Failpoints, NO_FAILPOINTS } from '../shared/failpoints.js';
import { isTransformableType } from '../images/image-params.js';
import type { BlobStore } from './blob-store.js';
import type { FileRepository } from './file-repository.js';
import type { StoredFile } from './stored-file.js';

/**
 * Removes the user's records among `fileIds` in one transaction, then their blobs (with the
 * transformed images derived from them). Records go
 * first, so a file is never listed without its bytes; a blob whose delete fails stays as an orphan
 * for the reconciler (fsck) rather than failing a delete the user already sees done.
 * @param options.expiredBy only records whose expiry is at or before it (FileRepository.deleteMany)
 * @param options.reason why, for `file.deleted` webhook events (default `deleted`)
 * @returns the deleted records
 */
export async function deleteFiles(
  deps: { files: FileRepository; blobs: BlobStore; failpoints?: Failpoints },
  userId: string,
  fileIds: string[],
  options: { expiredBy?: Date; reason?: FileDeletionReason } = {},
): Promise<StoredFile[]> {
  const deleted = await deps.files.deleteMany({ userId, fileIds, expiredBy: options.expiredBy, reason: options.reason });
  if (deleted.length > 0) await (deps.failpoints ?? NO_FAILPOINTS).reach('after_records_deleted_before_blobs');
  await Promise.allSettled(deleted.map((file) => deps.blobs.delete(file.blobKey)));
  // Transformed images (core/images) are stored under their file's key: they go with it.
  await Promise.allSettled(deleted.filter((file) => isTransformableType(file.contentType)).map((file) => deps.blobs.deleteUnder(file.blobKey)));
  return deleted;
}
