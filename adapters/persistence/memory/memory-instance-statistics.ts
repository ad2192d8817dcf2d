import type { InstanceCounts, InstanceStatistics } from '../../../core/admin/instance-statistics.js';
import type { MemoryDatabase } from './memory-database.js';

const DAY_MS = 86_400_000;

/** {@link InstanceStatistics} over a {@link MemoryDatabase}: the same answers as the SQL adapter. */
export class MemoryInstanceStatistics implements InstanceStatistics {
  constructor(private readonly db: MemoryDatabase) {}

  async counts(options: { since: Date; top: number }): Promise<InstanceCounts> {
    const users = [...this.db.users.values()];
    const totals = [...this.db.accountTotals.entries()];
    const days = new Map<string, { files: number; bytes: number }>();
    const sinceDay = Math.floor(options.since.getTime() / DAY_MS);
    for (const row of this.db.files.values()) {
      const day = Math.floor(row.file.createdAt.getTime() / DAY_MS);
      if (day < sinceDay) continue;
      const key = new Date(day * DAY_MS).toISOString().slice(0, 10);
      const counted = days.get(key) ?? { files: 0, bytes: 0 };
      days.set(key, { files: counted.files + 1, bytes: counted.bytes + row.file.size });
    }
    const top = totals
      .filter(([id]) => this.db.users.has(id))
      .sort(([a, x], [b, y]) => y.storageBytes - x.storageBytes || (a < b ? -1 : a > b ? 1 : 0))
      .slice(0, options.top)
      .map(([id, t]) => ({ id, email: this.db.users.get(id)!.email, storageBytes: t.storageBytes, filesCount: t.filesCount }));
    return {
      accounts: {
        total: users.length,
        active: users.filter((u) => u.suspendedAt === null).length,
        suspended: users.filter((u) => u.suspendedAt !== null).length,
        unconfirmed: users.filter((u) => u.emailConfirmedAt === null).length,
        admins: users.filter((u) => u.role === 'admin').length,
      },
      files: totals.reduce((sum, [, t]) => sum + t.filesCount, 0),
      bytes: totals.reduce((sum, [, t]) => sum + t.storageBytes, 0),
      uploadsPerDay: [...days.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([day, counted]) => ({ day, ...counted })),
      topAccounts: top,
    };
  }
}
