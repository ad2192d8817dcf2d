import type { UsageMeter } from '../plans/usage-meter.js';
import { DomainError } from '../shared/errors.js';
import type { BlobStore, ByteRange } from './blob-store.js';
import type { FileRepository } from './file-repository.js';
import { fileNotFound } from './get-file.js';
import { isFileId, type StoredFile } from './stored-file.js';

/** A public file ready to be served: its record and a way to open its bytes. */
export interface PublicFile {
  file: StoredFile;
  /**
   * Opens the bytes, whole or an inclusive range already checked against `file.size`.
   * @throws DomainError FILE_NOT_FOUND when the blob has gone, BLOB_STORE_UNAVAILABLE
   */
  open(range?: ByteRange): Promise<AsyncIterable<Uint8Array>>;
}

/**
 * Finds a file for the public addresses `/m/:file_id` and `/d/:file_id` and counts one origin read
 * for its account (every GET or HEAD that finds it: whole, range or 304 alike; spec 2.6). A private
 * file is answered exactly like a missing one.
 * @throws DomainError FILE_NOT_FOUND (404)
 */
export class ReadPublicFile {
  constructor(private readonly deps: { files: FileRepository; blobs: BlobStore; meter: UsageMeter }) {}

  async execute(input: { fileId: string }): Promise<PublicFile> {
    const file = isFileId(input.fileId) ? await this.deps.files.findByFileId(input.fileId) : undefined;
    if (!file || !file.isPublic) throw fileNotFound();
    this.deps.meter.recordRead(file.userId);
    return {
      file,
      open: async (range) => {
        const body = await this.deps.blobs.get(file.blobKey, range);
        if (!body) throw new DomainError('FILE_NOT_FOUND', 'The file’s contents are missing.');
        return body;
      },
    };
  }
}
