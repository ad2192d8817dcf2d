import type { FileFilter, FileRepository } from '../../../core/files/file-repository.js';
import type { StoredFile } from '../../../core/files/stored-file.js';
import type { Paged, Window } from '../../../core/shared/pagination.js';
import { fileSearchNeedle, fileSearchText } from '../file-search.js';
import { copyDate } from './copy-date.js';
import { newestFirst } from './newest-first.js';

function copyFile(file: StoredFile): StoredFile {
  return {
    id: file.id,
    userId: file.userId,
    fileId: file.fileId,
    name: file.name,
    contentType: file.contentType,
    size: file.size,
    sha256: file.sha256,
    isPublic: file.isPublic,
    createdAt: copyDate(file.createdAt),
    blobKey: file.blobKey,
  };
}

interface Row {
  file: StoredFile;
  /** {@link fileSearchText}, as the SQL adapter stores it. */
  searchText: string;
}

/**
 * {@link FileRepository} held in process memory. `q` matches the folded text of
 * {@link fileSearchText} as a plain substring, exactly as the SQL adapter's escaped LIKE does.
 */
export class MemoryFileRepository implements FileRepository {
  private readonly byId = new Map<string, Row>();
  /** Public file id → record id; the unique index. */
  private readonly idByFileId = new Map<string, string>();

  /** @throws Error when `id` or `fileId` already exists */
  async insert(file: StoredFile): Promise<void> {
    if (this.byId.has(file.id)) throw new Error(`A file with id ${file.id} already exists.`);
    if (this.idByFileId.has(file.fileId)) throw new Error(`A file with file id ${file.fileId} already exists.`);
    this.byId.set(file.id, { file: copyFile(file), searchText: fileSearchText(file) });
    this.idByFileId.set(file.fileId, file.id);
  }

  async findByFileId(fileId: string): Promise<StoredFile | undefined> {
    const id = this.idByFileId.get(fileId);
    const row = id === undefined ? undefined : this.byId.get(id);
    return row && copyFile(row.file);
  }

  async list(options: { userId: string; filter: FileFilter; window: Window }): Promise<Paged<StoredFile>> {
    const matches = this.matcher(options.userId, options.filter);
    const files = [...this.byId.values()].filter(matches).map((row) => row.file).sort(newestFirst);
    const { offset, limit } = options.window;
    return { items: files.slice(offset, offset + limit).map(copyFile), total: files.length };
  }

  async deleteMany(options: { userId: string; fileIds: string[] }): Promise<StoredFile[]> {
    const deleted: StoredFile[] = [];
    for (const fileId of new Set(options.fileIds)) {
      const id = this.idByFileId.get(fileId);
      const row = id === undefined ? undefined : this.byId.get(id);
      if (!row || row.file.userId !== options.userId) continue;
      this.byId.delete(row.file.id);
      this.idByFileId.delete(fileId);
      deleted.push(row.file);
    }
    return deleted;
  }

  private matcher(userId: string, filter: FileFilter): (row: Row) => boolean {
    const needle = filter.q === undefined ? '' : fileSearchNeedle(filter.q);
    const after = filter.createdAfter?.getTime();
    const before = filter.createdBefore?.getTime();
    return ({ file, searchText }) =>
      file.userId === userId &&
      needle !== undefined &&
      searchText.includes(needle) &&
      (filter.type === undefined || file.contentType === filter.type) &&
      (filter.sizeMin === undefined || file.size >= filter.sizeMin) &&
      (filter.sizeMax === undefined || file.size <= filter.sizeMax) &&
      (filter.isPublic === undefined || file.isPublic === filter.isPublic) &&
      (after === undefined || file.createdAt.getTime() >= after) &&
      (before === undefined || file.createdAt.getTime() <= before);
  }
}
