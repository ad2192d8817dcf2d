import type { Clock } from '../shared/clock.js';
import { DomainError } from '../shared/errors.js';
import type { BlobReadOptions, BlobStore, ByteRange } from './blob-store.js';
import type { FileRepository } from './file-repository.js';
import { fileNotFound } from './get-file.js';
import { hasExpired, isFileId, type StoredFile } from './stored-file.js';

/** One of the caller's own files ready to be served: its record and a way to open its bytes. */
export interface OwnFile {
  file: StoredFile;
  /**
   * Opens the bytes, whole or an inclusive range already checked against `file.size`, as
   * {@link BlobStore.get} does (`options.borrowChunks`: chunks are only lent, see {@link BlobReadOptions}).
   * @throws DomainError FILE_NOT_FOUND when the blob has gone, BLOB_STORE_UNAVAILABLE
   */
  open: (range?: ByteRange, options?: BlobReadOptions) => Promise<AsyncIterable<Uint8Array>>;
}

/**
 * The owner's authenticated download, `GET /files/:id/content` (docs/private-files.md): any of the user's
 * files, private or public, until it expires. Another account's file, a missing one and an expired
 * one are the same FILE_NOT_FOUND, so a file id reveals nothing about other accounts. Not counted
 * as an origin read or a view (the owner reading their own file through the API).
 * @throws DomainError FILE_NOT_FOUND (404)
 */
export class ReadOwnFile {
  constructor(private readonly deps: { files: FileRepository; blobs: BlobStore; clock: Clock }) {}

  async execute(input: { userId: string; fileId: string }): Promise<OwnFile> {
    const file = isFileId(input.fileId) ? await this.deps.files.findByFileId(input.fileId) : undefined;
    if (!file || file.userId !== input.userId || hasExpired(file, this.deps.clock.now())) throw fileNotFound();
    return { file, open: openBlob(this.deps.blobs, file) };
  }
}

/** Opens `file`'s blob as {@link OwnFile.open} describes. */
export function openBlob(blobs: BlobStore, file: StoredFile): OwnFile['open'] {
  return async (range, options) => {
    const body = await blobs.get(file.blobKey, range, options);
    if (!body) throw new DomainError('FILE_NOT_FOUND', 'The file’s contents are missing.');
    return body;
  };
}
