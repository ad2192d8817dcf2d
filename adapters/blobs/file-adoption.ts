/**
 * A blob store on a local file system that can take a complete file as a blob without copying it
 * (TieredBlobStore, ShardedFileBlobStore through it): what the local-disk partial blob store uses to
 * finish a resumable upload with a hard link instead of writing every byte a second time.
 */
export interface FileAdoptingBlobStore {
  /**
   * Makes the complete, flushed file at `path` (`size` bytes) the blob `key`, removing `path`.
   * @returns false, changing nothing, when the store cannot take it this way (another file system, a
   *          blob for another tier): the caller stores it with `put`
   */
  adoptFile(options: { key: string; path: string; size: number }): Promise<boolean>;
}

/** Whether `store` offers {@link FileAdoptingBlobStore.adoptFile}. */
export function canAdoptFiles(store: object): store is FileAdoptingBlobStore {
  return typeof (store as Partial<FileAdoptingBlobStore>).adoptFile === 'function';
}
