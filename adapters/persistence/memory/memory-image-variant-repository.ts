import type { ImageVariantRecord, ImageVariantRepository, VariantClaim, VariantKey, VariantStored } from '../../../core/images/image-variant-repository.js';
import { MemoryDatabase, type MemoryImageVariantRow } from './memory-database.js';

/**
 * {@link ImageVariantRepository} in memory, over the `imageVariants` and `accountTotals` of a
 * {@link MemoryDatabase}. Every method checks and writes with no await in between, so claims are
 * atomic on the one JavaScript thread (one process: the embedding default and the test double).
 */
export class MemoryImageVariantRepository implements ImageVariantRepository {
  /** @param db the store shared with the other memory repositories; a private one by default */
  constructor(private readonly db: MemoryDatabase = new MemoryDatabase()) {}

  async claim(options: VariantKey & { token: string; now: Date; leaseMs: number; maxPerFile: number }): Promise<VariantClaim> {
    if (!this.db.files.has(options.fileRecordId)) return 'gone';
    const now = options.now.getTime();
    const variants = this.db.imageVariants.get(options.fileRecordId) ?? new Map<string, MemoryImageVariantRow>();
    const row = variants.get(options.variant);
    if (row?.state === 'stored') return 'stored';
    if (row && row.claimedUntil > now) return 'busy';
    // A new variant, or an expired claim taken over: either must fit under the cap (the expired one is not counted).
    let held = 0;
    for (const other of variants.values()) if (other.state === 'stored' || other.claimedUntil > now) held += 1;
    if (held >= options.maxPerFile) {
      variants.delete(options.variant);
      return 'full';
    }
    variants.set(options.variant, { userId: options.userId, state: 'computing', token: options.token, claimedUntil: now + options.leaseMs, sizeBytes: 0 });
    this.db.imageVariants.set(options.fileRecordId, variants);
    return 'claimed';
  }

  async markStored(options: VariantKey & { token: string; sizeBytes: number; storageLimitBytes: number }): Promise<VariantStored> {
    const variants = this.db.imageVariants.get(options.fileRecordId);
    const row = variants?.get(options.variant);
    if (!variants || !row || row.state !== 'computing' || row.token !== options.token) return 'lost';
    const totals = this.db.accountTotals.get(row.userId) ?? { storageBytes: 0, filesCount: 0 };
    if (totals.storageBytes + options.sizeBytes > options.storageLimitBytes) {
      variants.delete(options.variant);
      return 'storage_limit_reached';
    }
    variants.set(options.variant, { ...row, state: 'stored', token: null, claimedUntil: 0, sizeBytes: options.sizeBytes });
    this.db.accountTotals.set(row.userId, { ...totals, storageBytes: totals.storageBytes + options.sizeBytes });
    return 'stored';
  }

  async release(options: VariantKey & { token: string }): Promise<void> {
    const variants = this.db.imageVariants.get(options.fileRecordId);
    const row = variants?.get(options.variant);
    if (row?.state === 'computing' && row.token === options.token) variants!.delete(options.variant);
  }

  async forget(options: VariantKey): Promise<void> {
    const variants = this.db.imageVariants.get(options.fileRecordId);
    const row = variants?.get(options.variant);
    if (!row || row.state !== 'stored') return;
    variants!.delete(options.variant);
    const totals = this.db.accountTotals.get(row.userId);
    if (totals) totals.storageBytes -= row.sizeBytes;
  }

  async list(options: { fileRecordId: string }): Promise<ImageVariantRecord[]> {
    const variants = this.db.imageVariants.get(options.fileRecordId) ?? new Map<string, MemoryImageVariantRow>();
    return [...variants.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([variant, row]) => ({ variant, state: row.state, sizeBytes: row.sizeBytes }));
  }
}
