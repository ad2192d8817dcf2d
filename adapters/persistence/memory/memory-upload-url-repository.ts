import type { UploadUrlClaim, UploadUrlGrant } from '../../../core/files/upload-urls.js';
import type { UploadUrlRepository } from '../../../core/files/upload-url-repository.js';
import { MemoryDatabase } from './memory-database.js';

/** {@link UploadUrlRepository} in a {@link MemoryDatabase} (`uploadUrls`); synchronous inside, so `claim` is atomic. */
export class MemoryUploadUrlRepository implements UploadUrlRepository {
  constructor(private readonly db: MemoryDatabase = new MemoryDatabase()) {}

  async insert(grant: UploadUrlGrant): Promise<void> {
    if (this.db.uploadUrls.has(grant.id)) throw new Error(`upload_urls: duplicate id ${grant.id}`);
    if (!this.db.hasUser(grant.userId)) throw new Error('upload_urls: no such user (foreign key)');
    this.db.uploadUrls.set(grant.id, { grant: copy(grant), usedAt: null });
  }

  async find(id: string): Promise<UploadUrlGrant | undefined> {
    const row = this.db.uploadUrls.get(id);
    return row && copy(row.grant);
  }

  async findWithSigningKey(id: string): Promise<{ grant: UploadUrlGrant; signingKey: string | null } | undefined> {
    const row = this.db.uploadUrls.get(id);
    return row && { grant: copy(row.grant), signingKey: this.db.signingKeys.get(row.grant.userId) ?? null };
  }

  async claim(options: { id: string; now: Date }): Promise<UploadUrlClaim> {
    const row = this.db.uploadUrls.get(options.id);
    if (!row) return 'not_found';
    if (row.usedAt !== null) return 'used';
    row.usedAt = new Date(options.now);
    return 'claimed';
  }

  async attachResumableUpload(options: { id: string; uploadId: string }): Promise<void> {
    const row = this.db.uploadUrls.get(options.id);
    if (row) row.grant.resumableUploadId = options.uploadId;
  }

  async release(id: string): Promise<void> {
    const row = this.db.uploadUrls.get(id);
    if (row) row.usedAt = null;
  }

  async deleteExpired(before: Date): Promise<number> {
    let count = 0;
    for (const [id, row] of this.db.uploadUrls) {
      if (row.grant.expiresAt.getTime() < before.getTime()) {
        this.db.uploadUrls.delete(id);
        count += 1;
      }
    }
    return count;
  }
}

function copy(grant: UploadUrlGrant): UploadUrlGrant {
  return {
    ...grant,
    expiresAt: new Date(grant.expiresAt),
    contentTypes: grant.contentTypes && [...grant.contentTypes],
    fileExpiresAt: grant.fileExpiresAt && new Date(grant.fileExpiresAt),
    createdAt: new Date(grant.createdAt),
  };
}
