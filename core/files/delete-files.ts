import type { BlobStore } from './blob-store.js';
import type { FileRepository } from './file-repository.js';
import type { StoredFile } from './stored-file.js';

/**
 * Removes the user's records among `fileIds` in one transaction, then their blobs. Records go
 * first, so a file is never listed without its bytes; a blob whose delete fails stays as an orphan
 * for the reconciler (fsck) rather than failing a delete the user already sees done.
 * @returns the deleted records
 */
export async function deleteFiles(deps: { files: FileRepository; blobs: BlobStore }, userId: string, fileIds: string[]): Promise<StoredFile[]> {
  const deleted = await deps.files.deleteMany({ userId, fileIds });
  await Promise.allSettled(deleted.map((file) => deps.blobs.delete(file.blobKey)));
  return deleted;
}
