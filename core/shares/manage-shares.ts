import type { FileOptions } from '../files/file-options.js';
import type { FileRepository } from '../files/file-repository.js';
import { fileNotFound } from '../files/get-file.js';
import { isFileId } from '../files/stored-file.js';
import { DomainError } from '../shared/errors.js';
import { type ShareView, shareView } from './create-share.js';
import { isShareId } from './share.js';
import type { ShareRepository } from './share-repository.js';

/**
 * `GET /files/:id/shares`: the user's share links of one file, newest first, with their download counts.
 * @throws DomainError FILE_NOT_FOUND (404), also for another account's file
 */
export class ListShares {
  constructor(private readonly deps: { files: FileRepository; shares: ShareRepository; options: Pick<FileOptions, 'publicContentUrl'> }) {}

  async execute(input: { userId: string; fileId: string }): Promise<ShareView[]> {
    const file = isFileId(input.fileId) ? await this.deps.files.findByFileId(input.fileId) : undefined;
    if (!file || file.userId !== input.userId) throw fileNotFound();
    return (await this.deps.shares.listByFile({ userId: input.userId, fileId: input.fileId })).map((share) => shareView(share, this.deps.options));
  }
}

/**
 * `DELETE /shares/:share_id`: revokes one of the user's share links; it answers SHARE_NOT_FOUND from then on.
 * @throws DomainError SHARE_NOT_FOUND (404), also for another account's share
 */
export class RevokeShare {
  constructor(private readonly deps: { shares: ShareRepository }) {}

  async execute(input: { userId: string; shareId: string }): Promise<void> {
    if (!isShareId(input.shareId) || !(await this.deps.shares.delete({ userId: input.userId, shareId: input.shareId }))) throw shareNotFound();
  }
}

/** The one SHARE_NOT_FOUND error. */
export function shareNotFound(): DomainError {
  return new DomainError('SHARE_NOT_FOUND', 'No share link with this id: it was revoked, or its file deleted.');
}
