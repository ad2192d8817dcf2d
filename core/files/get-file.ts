import { DomainError } from '../shared/errors.js';
import type { FileRepository } from './file-repository.js';
import type { FileAddresses, FileView } from './file-view.js';

/**
 * One of the user's files by its `file_id` (spec 4.10).
 * @throws DomainError FILE_NOT_FOUND (404) — also for another account's file
 */
export class GetFile {
  constructor(private readonly deps: { files: FileRepository; addresses: FileAddresses }) {}

  async execute(input: { userId: string; fileId: string }): Promise<FileView> {
    const file = await this.deps.addresses.currentFile(() => this.deps.files.findByFileId(input.fileId));
    if (!file || file.userId !== input.userId) throw fileNotFound();
    const [view] = await this.deps.addresses.views(input.userId, [file]);
    return view;
  }
}

/** The one FILE_NOT_FOUND error, so a missing file and another account's file look the same. */
export function fileNotFound(): DomainError {
  return new DomainError('FILE_NOT_FOUND', 'No file with this id.');
}
