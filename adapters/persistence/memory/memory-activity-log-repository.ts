import { type ActivityKind, type ActivityLogEntry, type ActivityPosition, READ_METHODS } from '../../../core/activity/activity-log.js';
import type { ActivityLogRepository } from '../../../core/activity/activity-log-repository.js';
import type { Paged, Window } from '../../../core/shared/pagination.js';
import { copyDate } from './copy-date.js';
import { MemoryDatabase } from './memory-database.js';
import { newestFirst } from './newest-first.js';

/** A copy of `entry`; `metadata` goes through JSON, as the SQL adapter stores it. */
function copyEntry(entry: ActivityLogEntry): ActivityLogEntry {
  return {
    id: entry.id,
    userId: entry.userId,
    method: entry.method,
    path: entry.path,
    statusCode: entry.statusCode,
    requestSizeBytes: entry.requestSizeBytes,
    createdAt: copyDate(entry.createdAt),
    metadata: JSON.parse(JSON.stringify(entry.metadata)) as Record<string, unknown>,
  };
}

/**
 * {@link ActivityLogRepository} held in process memory (a {@link MemoryDatabase}). `metadata`
 * round-trips through JSON, as in SQL (a Date comes back as its ISO string). `insertMany` checks
 * every entry before writing any, with no await in between, so a batch is stored whole or not at
 * all; entries of accounts not in the database are skipped.
 */
export class MemoryActivityLogRepository implements ActivityLogRepository {
  /** @param db the store shared with the other memory repositories (it must hold the accounts); a private one by default */
  constructor(private readonly db: MemoryDatabase = new MemoryDatabase()) {}

  /** @throws Error when an entry's `id` is already stored or repeats in the batch; nothing is stored then */
  async insertMany(entries: readonly ActivityLogEntry[]): Promise<void> {
    const kept = entries.filter((entry) => this.db.hasUser(entry.userId));
    const ids = new Set<string>();
    for (const { id } of kept) {
      if (this.db.activityLogs.has(id) || ids.has(id)) throw new Error(`An activity log entry with id ${id} already exists.`);
      ids.add(id);
    }
    for (const entry of kept) this.db.activityLogs.set(entry.id, copyEntry(entry));
  }

  async list(options: { userId: string; window: Window; kind?: ActivityKind; before?: ActivityPosition }): Promise<Paged<ActivityLogEntry>> {
    const kind = options.kind ?? 'all';
    const entries = [...this.db.activityLogs.values()]
      .filter((entry) => entry.userId === options.userId && (kind === 'all' || READ_METHODS.includes(entry.method) === (kind === 'reads')))
      .sort(newestFirst);
    const before = options.before;
    const after = before ? entries.filter((entry) => newestFirst(before, entry) < 0) : entries;
    const { offset, limit } = options.window;
    return { items: after.slice(offset, offset + limit).map(copyEntry), total: entries.length };
  }

  async deleteBefore(before: Date): Promise<number> {
    let deleted = 0;
    for (const [id, entry] of this.db.activityLogs) {
      if (entry.createdAt.getTime() < before.getTime()) {
        this.db.activityLogs.delete(id);
        deleted++;
      }
    }
    return deleted;
  }

  async deleteForAccount(userId: string): Promise<number> {
    let deleted = 0;
    for (const [id, entry] of this.db.activityLogs) {
      if (entry.userId === userId) {
        this.db.activityLogs.delete(id);
        deleted++;
      }
    }
    return deleted;
  }
}
