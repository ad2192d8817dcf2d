import type { AdminAuditEntry } from '../../../core/admin/admin-audit.js';
import type { AdminAuditLog } from '../../../core/admin/admin-audit-log.js';
import type { Paged, Window } from '../../../core/shared/pagination.js';
import { copyDate } from './copy-date.js';
import { newestFirst } from './newest-first.js';

/** A copy of `entry`; `before` and `after` go through JSON, as the SQL adapter stores them. */
function copyEntry(entry: AdminAuditEntry): AdminAuditEntry {
  return {
    ...entry,
    createdAt: copyDate(entry.createdAt),
    actor: { ...entry.actor },
    before: entry.before === null ? null : (JSON.parse(JSON.stringify(entry.before)) as Record<string, unknown>),
    after: entry.after === null ? null : (JSON.parse(JSON.stringify(entry.after)) as Record<string, unknown>),
  };
}

/** {@link AdminAuditLog} held in process memory: the test double and the embedding default. Entries outlive accounts, as in SQL. */
export class MemoryAdminAuditLog implements AdminAuditLog {
  private readonly entries = new Map<string, AdminAuditEntry>();

  /** @throws Error when an entry with the same `id` is stored (a caller bug, like a primary-key violation) */
  async record(entry: AdminAuditEntry): Promise<void> {
    if (this.entries.has(entry.id)) throw new Error(`An audit entry with id ${entry.id} already exists.`);
    this.entries.set(entry.id, copyEntry(entry));
  }

  async list(options: { window: Window; targetId?: string }): Promise<Paged<AdminAuditEntry>> {
    const entries = [...this.entries.values()].filter((e) => options.targetId === undefined || e.targetId === options.targetId).sort(newestFirst);
    const { offset, limit } = options.window;
    return { items: entries.slice(offset, offset + limit).map(copyEntry), total: entries.length };
  }

  async deleteBefore(before: Date): Promise<number> {
    let deleted = 0;
    for (const [id, entry] of this.entries) {
      if (entry.createdAt.getTime() < before.getTime()) {
        this.entries.delete(id);
        deleted++;
      }
    }
    return deleted;
  }
}
