import type { Share } from '../../../core/shares/share.js';
import type { ShareRepository } from '../../../core/shares/share-repository.js';
import { copyDate, copyNullableDate } from './copy-date.js';
import { MemoryDatabase } from './memory-database.js';

function copyShare(share: Share): Share {
  return { ...share, expiresAt: copyNullableDate(share.expiresAt), createdAt: copyDate(share.createdAt) };
}

/**
 * {@link ShareRepository} in a {@link MemoryDatabase} (`shares`, removed with their file or user).
 * `claimDownload` checks and counts with no await in between, so it is atomic on the one thread.
 */
export class MemoryShareRepository implements ShareRepository {
  constructor(private readonly db: MemoryDatabase = new MemoryDatabase()) {}

  async insert(share: Share): Promise<void> {
    if (this.db.shares.has(share.id)) throw new Error(`A share with id ${share.id} already exists.`);
    if (!this.db.files.has(share.fileRecordId)) throw new Error(`No file record ${share.fileRecordId}.`);
    this.db.shares.set(share.id, copyShare(share));
  }

  async findById(shareId: string): Promise<Share | undefined> {
    const share = this.db.shares.get(shareId);
    return share && copyShare(share);
  }

  async listByFile(options: { userId: string; fileId: string }): Promise<Share[]> {
    return [...this.db.shares.values()]
      .filter((share) => share.userId === options.userId && share.fileId === options.fileId)
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1))
      .map(copyShare);
  }

  async delete(options: { userId: string; shareId: string }): Promise<boolean> {
    const share = this.db.shares.get(options.shareId);
    if (!share || share.userId !== options.userId) return false;
    this.db.shares.delete(options.shareId);
    return true;
  }

  async claimDownload(options: { shareId: string; now: Date }): Promise<boolean> {
    const share = this.db.shares.get(options.shareId);
    if (!share) return false;
    if (share.expiresAt !== null && share.expiresAt.getTime() <= options.now.getTime()) return false;
    if (share.maxDownloads !== null && share.downloads >= share.maxDownloads) return false;
    share.downloads += 1;
    return true;
  }
}
