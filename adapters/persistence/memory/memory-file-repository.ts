import {
  accountTotals,
  type AccountTotals,
  type FileChanges,
  type FileFilter,
  type FileRepository,
  type InsertResult,
  type QuotaLimits,
} from '../../../core/files/file-repository.js';
import { copyStoredFile, type StoredFile } from '../../../core/files/stored-file.js';
import type { Paged, Window } from '../../../core/shared/pagination.js';
import { fileSearchNeedle, fileSearchText } from '../file-search.js';
import { copyDate } from './copy-date.js';
import { MemoryDatabase, type MemoryFileRow } from './memory-database.js';
import { newestFirst } from './newest-first.js';

/**
 * {@link FileRepository} held in process memory (a {@link MemoryDatabase}). `q` matches the
 * folded text of {@link fileSearchText} as a plain substring, exactly as the SQL adapter's escaped
 * LIKE does. `insert` and `deleteMany` check and write with no await in between, so the totals
 * and quotas hold under concurrency on the one JavaScript thread.
 */
export class MemoryFileRepository implements FileRepository {
  /** @param db the store shared with the other memory repositories; a private one by default */
  constructor(private readonly db: MemoryDatabase = new MemoryDatabase()) {}

  /**
   * @throws Error when `id` or `fileId` already exists (and the file fits the limits, as in SQL), or
   *         when `fromUpload` is not an unfinished upload of the account; nothing is stored then
   */
  async insert(file: StoredFile, limits: QuotaLimits, options: { fromUpload?: string } = {}): Promise<InsertResult> {
    const totals = { storageBytes: 0, filesCount: 0, reservedBytes: 0, reservedFiles: 0, ...this.db.accountTotals.get(file.userId) };
    let reservedBytes = totals.reservedBytes;
    let reservedFiles = totals.reservedFiles;
    const upload = options.fromUpload === undefined ? undefined : this.db.resumableUploads.get(options.fromUpload);
    if (options.fromUpload !== undefined) {
      if (!upload || upload.userId !== file.userId || upload.status !== 'uploading') {
        throw new Error(`Resumable upload ${options.fromUpload} is not an unfinished upload of this account.`);
      }
      reservedBytes -= upload.length;
      reservedFiles -= 1;
    }
    if (totals.filesCount + reservedFiles + 1 > limits.fileCountLimit) return 'file_count_limit_reached';
    if (totals.storageBytes + reservedBytes + file.size > limits.storageLimitBytes) return 'storage_limit_reached';
    if (this.db.files.has(file.id)) throw new Error(`A file with id ${file.id} already exists.`);
    if (this.db.fileRecordIdByFileId.has(file.fileId)) throw new Error(`A file with file id ${file.fileId} already exists.`);
    this.db.files.set(file.id, { file: copyStoredFile(file), searchText: fileSearchText(file) });
    this.db.fileRecordIdByFileId.set(file.fileId, file.id);
    this.db.accountTotals.set(file.userId, { storageBytes: totals.storageBytes + file.size, filesCount: totals.filesCount + 1, reservedBytes, reservedFiles });
    if (upload) this.db.resumableUploads.set(upload.id, { ...upload, status: 'complete', offset: upload.length, leaseOwner: null, leasedUntil: null });
    return 'inserted';
  }

  async totals(userId: string): Promise<AccountTotals> {
    const totals = this.db.accountTotals.get(userId);
    return accountTotals({ storageBytes: 0, filesCount: 0, ...totals });
  }

  async scan(options: { afterId?: string; limit: number }): Promise<StoredFile[]> {
    const after = options.afterId;
    return [...this.db.files.values()]
      .map((row) => row.file)
      .filter((file) => after === undefined || file.id > after)
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .slice(0, options.limit)
      .map(copyStoredFile);
  }

  async findByFileId(fileId: string): Promise<StoredFile | undefined> {
    const id = this.db.fileRecordIdByFileId.get(fileId);
    const row = id === undefined ? undefined : this.db.files.get(id);
    return row && copyStoredFile(row.file);
  }

  async totalsAndFileIdTaken(userId: string, fileId: string): Promise<{ totals: AccountTotals; fileIdTaken: boolean }> {
    return { totals: await this.totals(userId), fileIdTaken: this.db.fileRecordIdByFileId.has(fileId) };
  }

  async list(options: { userId: string; filter: FileFilter; window: Window; countLimit?: number }): Promise<Paged<StoredFile>> {
    const matches = this.matcher(options.userId, options.filter);
    const files = [...this.db.files.values()]
      .filter(matches)
      .map((row) => row.file)
      .sort(newestFirst);
    const { offset, limit } = options.window;
    const items = files.slice(offset, offset + limit).map(copyStoredFile);
    // Kept totals answer the unfiltered and visibility-only lists exactly, as the SQL adapter does.
    if (!isVisibilityOnly(options.filter) && options.countLimit !== undefined && files.length > options.countLimit) {
      return { items, total: options.countLimit, totalRelation: 'gte' };
    }
    return { items, total: files.length };
  }

  async deleteMany(options: { userId: string; fileIds: string[]; expiredBy?: Date }): Promise<StoredFile[]> {
    const expiredBy = options.expiredBy?.getTime();
    const deleted: StoredFile[] = [];
    for (const fileId of new Set(options.fileIds)) {
      const id = this.db.fileRecordIdByFileId.get(fileId);
      const row = id === undefined ? undefined : this.db.files.get(id);
      if (!row || row.file.userId !== options.userId) continue;
      if (expiredBy !== undefined && (row.file.expiresAt === null || row.file.expiresAt.getTime() > expiredBy)) continue;
      this.db.files.delete(row.file.id);
      this.db.fileRecordIdByFileId.delete(fileId);
      this.db.deleteSharesOf(row.file.id);
      this.db.mediaFacts.delete(row.file.id);
      deleted.push(row.file);
    }
    const totals = this.db.accountTotals.get(options.userId);
    for (const file of deleted) {
      // The file's stored image variants go with it, and their bytes with them (ImageVariantRepository).
      const variants = this.db.imageVariants.get(file.id);
      this.db.imageVariants.delete(file.id);
      if (!totals) continue;
      totals.storageBytes -= file.size;
      totals.filesCount -= 1;
      for (const variant of variants?.values() ?? []) totals.storageBytes -= variant.sizeBytes;
    }
    return deleted;
  }

  async update(options: { userId: string; fileId: string; changes: FileChanges }): Promise<StoredFile | undefined> {
    const id = this.db.fileRecordIdByFileId.get(options.fileId);
    const row = id === undefined ? undefined : this.db.files.get(id);
    if (!row || row.file.userId !== options.userId) return undefined;
    const { name, isPublic, expiresAt } = options.changes;
    const file = copyStoredFile(row.file);
    if (name !== undefined) file.name = name;
    if (isPublic !== undefined) file.isPublic = isPublic;
    if (expiresAt !== undefined) file.expiresAt = expiresAt && copyDate(expiresAt);
    this.db.files.set(file.id, { file, searchText: fileSearchText(file) });
    return copyStoredFile(file);
  }

  async findExpired(options: { now: Date; limit: number }): Promise<StoredFile[]> {
    const now = options.now.getTime();
    return [...this.db.files.values()]
      .map((row) => row.file)
      .filter((file) => file.expiresAt !== null && file.expiresAt.getTime() <= now)
      .sort((a, b) => a.expiresAt!.getTime() - b.expiresAt!.getTime())
      .slice(0, options.limit)
      .map(copyStoredFile);
  }

  async findWithSigningKey(fileId: string): Promise<{ file: StoredFile; signingKey: string | null } | undefined> {
    const file = await this.findByFileId(fileId);
    return file && { file, signingKey: this.db.signingKeys.get(file.userId) ?? null };
  }

  async addReadCounts(entries: readonly { fileId: string; views: number; downloads: number }[]): Promise<void> {
    for (const entry of entries) {
      const id = this.db.fileRecordIdByFileId.get(entry.fileId);
      const row = id === undefined ? undefined : this.db.files.get(id);
      if (!row) continue;
      row.file.viewCount += entry.views;
      row.file.downloadCount += entry.downloads;
    }
  }

  private matcher(userId: string, filter: FileFilter): (row: MemoryFileRow) => boolean {
    const needle = filter.q === undefined ? '' : fileSearchNeedle(filter.q);
    const after = filter.createdAfter?.getTime();
    const before = filter.createdBefore?.getTime();
    const expiresBefore = filter.expiresBefore?.getTime();
    return ({ file, searchText }) =>
      file.userId === userId &&
      needle !== undefined &&
      searchText.includes(needle) &&
      (filter.type === undefined || file.contentType === filter.type) &&
      (filter.sizeMin === undefined || file.size >= filter.sizeMin) &&
      (filter.sizeMax === undefined || file.size <= filter.sizeMax) &&
      (filter.isPublic === undefined || file.isPublic === filter.isPublic) &&
      (after === undefined || file.createdAt.getTime() >= after) &&
      (before === undefined || file.createdAt.getTime() <= before) &&
      (expiresBefore === undefined || (file.expiresAt !== null && file.expiresAt.getTime() <= expiresBefore));
  }
}

/** Whether `filter` names nothing but visibility. */
function isVisibilityOnly(filter: FileFilter): boolean {
  return Object.entries(filter).every(([name, value]) => value === undefined || name === 'isPublic');
}
