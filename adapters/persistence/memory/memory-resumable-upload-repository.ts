import type { QuotaLimits } from '../../../core/files/file-repository.js';
import type { CreateUploadResult, ResumableUpload, ResumableUploadRepository } from '../../../core/files/resumable-upload-repository.js';
import { MemoryDatabase, type MemoryResumableUploadRow } from './memory-database.js';

/**
 * {@link ResumableUploadRepository} held in process memory (a {@link MemoryDatabase}, shared with
 * the memory file repository, whose totals hold the reservations). Every method checks and writes
 * with no await in between, so leases and reservations hold under concurrency on the one thread.
 */
export class MemoryResumableUploadRepository implements ResumableUploadRepository {
  /** @param db the store shared with the other memory repositories; a private one by default */
  constructor(private readonly db: MemoryDatabase = new MemoryDatabase()) {}

  /** @throws Error when `id` or `fileId` is taken by another upload (nothing stored then) */
  async create(upload: ResumableUpload, limits: QuotaLimits, options: { maxOpenUploads?: number } = {}): Promise<CreateUploadResult> {
    const totals = { storageBytes: 0, filesCount: 0, reservedBytes: 0, reservedFiles: 0, ...this.db.accountTotals.get(upload.userId) };
    if (options.maxOpenUploads !== undefined && totals.reservedFiles + 1 > options.maxOpenUploads) return 'open_uploads_limit_reached';
    if (totals.filesCount + totals.reservedFiles + 1 > limits.fileCountLimit) return 'file_count_limit_reached';
    if (totals.storageBytes + totals.reservedBytes + upload.length > limits.storageLimitBytes) return 'storage_limit_reached';
    if (this.db.resumableUploads.has(upload.id)) throw new Error(`An upload with id ${upload.id} already exists.`);
    for (const other of this.db.resumableUploads.values()) {
      if (other.fileId === upload.fileId) throw new Error(`An upload with file id ${upload.fileId} already exists.`);
    }
    this.db.resumableUploads.set(upload.id, { ...copy(upload), leaseOwner: null, leasedUntil: null });
    this.db.accountTotals.set(upload.userId, { ...totals, reservedBytes: totals.reservedBytes + upload.length, reservedFiles: totals.reservedFiles + 1 });
    return 'inserted';
  }

  async find(id: string): Promise<ResumableUpload | undefined> {
    const row = this.db.resumableUploads.get(id);
    return row && copy(row);
  }

  async lock(options: { id: string; offset: number; owner: string; now: number; until: number }): Promise<boolean> {
    const row = this.db.resumableUploads.get(options.id);
    if (!row || row.status !== 'uploading' || row.offset !== options.offset) return false;
    if (row.leaseOwner !== null && (row.leasedUntil ?? 0) > options.now) return false;
    row.leaseOwner = options.owner;
    row.leasedUntil = options.until;
    return true;
  }

  async renew(options: { id: string; owner: string; until: number }): Promise<boolean> {
    const row = this.leasedBy(options.id, options.owner);
    if (!row) return false;
    row.leasedUntil = options.until;
    return true;
  }

  async advance(options: { id: string; owner: string; offset: number; state: ResumableUpload['state']; release?: boolean }): Promise<boolean> {
    const row = this.leasedBy(options.id, options.owner);
    if (!row) return false;
    row.offset = options.offset;
    row.state = structuredClone(options.state);
    if (options.release) {
      row.leaseOwner = null;
      row.leasedUntil = null;
    }
    return true;
  }

  async unlock(options: { id: string; owner: string }): Promise<void> {
    const row = this.leasedBy(options.id, options.owner);
    if (!row) return;
    row.leaseOwner = null;
    row.leasedUntil = null;
  }

  async delete(options: { id: string; unleasedAt?: number }): Promise<ResumableUpload | undefined> {
    const row = this.db.resumableUploads.get(options.id);
    if (!row) return undefined;
    if (options.unleasedAt !== undefined && row.leaseOwner !== null && (row.leasedUntil ?? 0) > options.unleasedAt) return undefined;
    this.db.resumableUploads.delete(options.id);
    const totals = this.db.accountTotals.get(row.userId);
    if (row.status === 'uploading' && totals) {
      this.db.accountTotals.set(row.userId, {
        ...totals,
        reservedBytes: (totals.reservedBytes ?? 0) - row.length,
        reservedFiles: (totals.reservedFiles ?? 0) - 1,
      });
    }
    return copy(row);
  }

  async findExpired(options: { now: Date; limit: number }): Promise<ResumableUpload[]> {
    return [...this.db.resumableUploads.values()]
      .filter((row) => row.expiresAt.getTime() <= options.now.getTime())
      .sort((a, b) => a.expiresAt.getTime() - b.expiresAt.getTime())
      .slice(0, options.limit)
      .map(copy);
  }

  async findByUser(options: { userId: string; limit: number }): Promise<ResumableUpload[]> {
    return [...this.db.resumableUploads.values()]
      .filter((row) => row.userId === options.userId)
      .slice(0, options.limit)
      .map(copy);
  }

  private leasedBy(id: string, owner: string): MemoryResumableUploadRow | undefined {
    const row = this.db.resumableUploads.get(id);
    return row && row.leaseOwner === owner ? row : undefined;
  }
}

function copy(upload: ResumableUpload): ResumableUpload {
  return {
    id: upload.id,
    userId: upload.userId,
    fileId: upload.fileId,
    length: upload.length,
    offset: upload.offset,
    contentType: upload.contentType,
    name: upload.name,
    isPublic: upload.isPublic,
    fileExpiresAt: upload.fileExpiresAt && new Date(upload.fileExpiresAt),
    expiresAt: new Date(upload.expiresAt),
    state: structuredClone(upload.state),
    status: upload.status,
    createdAt: new Date(upload.createdAt),
  };
}
