import type { MediaFacts, MediaFactsRepository, MediaFactsState, MediaSubject } from '../../../core/media/media-facts.js';
import { MemoryDatabase } from './memory-database.js';

/**
 * {@link MediaFactsRepository} in memory, over the `mediaFacts` and `files` of a
 * {@link MemoryDatabase} (rows go with their file: MemoryFileRepository and deleteUser remove them).
 */
export class MemoryMediaFactsRepository implements MediaFactsRepository {
  /** @param db the store shared with the other memory repositories; a private one by default */
  constructor(private readonly db: MemoryDatabase = new MemoryDatabase()) {}

  async save(options: { fileRecordId: string; facts: MediaFacts; state: MediaFactsState; computedAt: Date }): Promise<boolean> {
    if (!this.db.files.has(options.fileRecordId)) return false;
    this.db.mediaFacts.set(options.fileRecordId, { facts: { ...options.facts }, state: options.state, computedAt: new Date(options.computedAt.getTime()) });
    return true;
  }

  async findMany(fileRecordIds: readonly string[]): Promise<Map<string, MediaFacts>> {
    const found = new Map<string, MediaFacts>();
    for (const id of fileRecordIds) {
      const row = this.db.mediaFacts.get(id);
      if (row) found.set(id, { ...row.facts });
    }
    return found;
  }

  async filesWithout(options: { afterId?: string; limit: number; createdBefore?: Date }): Promise<MediaSubject[]> {
    const after = options.afterId;
    const before = options.createdBefore?.getTime();
    return [...this.db.files.values()]
      .map((row) => row.file)
      .filter(
        (file) => (after === undefined || file.id > after) && (before === undefined || file.createdAt.getTime() < before) && !this.db.mediaFacts.has(file.id),
      )
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .slice(0, options.limit)
      .map((file) => ({ id: file.id, blobKey: file.blobKey, contentType: file.contentType, size: file.size }));
  }

  async countWithout(): Promise<number> {
    let missing = 0;
    for (const id of this.db.files.keys()) if (!this.db.mediaFacts.has(id)) missing += 1;
    return missing;
  }
}
