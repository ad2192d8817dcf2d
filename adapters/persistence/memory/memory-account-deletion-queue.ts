import type { AccountDeletion, AccountDeletionQueue } from '../../../core/admin/account-deletion-queue.js';

interface Row extends AccountDeletion {
  leaseOwner: string | null;
  /** Unix ms; 0 when free. */
  leaseUntil: number;
}

function copy(row: Row): AccountDeletion {
  return { userId: row.userId, email: row.email, requestedAt: new Date(row.requestedAt), actor: { ...row.actor }, filesDeleted: row.filesDeleted };
}

/**
 * {@link AccountDeletionQueue} held in process memory: the test double and the embedding default.
 * Each method reads and writes with no await in between, so a claim is atomic on the one thread.
 */
export class MemoryAccountDeletionQueue implements AccountDeletionQueue {
  private readonly rows = new Map<string, Row>();

  async request(deletion: Omit<AccountDeletion, 'filesDeleted'>): Promise<AccountDeletion> {
    const existing = this.rows.get(deletion.userId);
    if (existing) return copy(existing);
    const row: Row = {
      ...deletion,
      requestedAt: new Date(deletion.requestedAt),
      actor: { ...deletion.actor },
      filesDeleted: 0,
      leaseOwner: null,
      leaseUntil: 0,
    };
    this.rows.set(row.userId, row);
    return copy(row);
  }

  async find(userId: string): Promise<AccountDeletion | undefined> {
    const row = this.rows.get(userId);
    return row && copy(row);
  }

  async claim(options: { owner: string; now: Date; until: Date; userId?: string }): Promise<AccountDeletion | undefined> {
    const free = [...this.rows.values()]
      .filter((row) => row.leaseUntil <= options.now.getTime() && (options.userId === undefined || row.userId === options.userId))
      .sort((a, b) => a.requestedAt.getTime() - b.requestedAt.getTime());
    const row = free[0];
    if (!row) return undefined;
    row.leaseOwner = options.owner;
    row.leaseUntil = options.until.getTime();
    return copy(row);
  }

  async renew(options: { userId: string; owner: string; until: Date; filesDeleted: number }): Promise<boolean> {
    const row = this.rows.get(options.userId);
    if (!row || row.leaseOwner !== options.owner) return false;
    row.leaseUntil = options.until.getTime();
    row.filesDeleted += options.filesDeleted;
    return true;
  }

  async release(options: { userId: string; owner: string }): Promise<void> {
    const row = this.rows.get(options.userId);
    if (row && row.leaseOwner === options.owner) {
      row.leaseOwner = null;
      row.leaseUntil = 0;
    }
  }

  async remove(options: { userId: string; owner?: string }): Promise<boolean> {
    const row = this.rows.get(options.userId);
    if (!row || (options.owner !== undefined && row.leaseOwner !== options.owner)) return false;
    return this.rows.delete(options.userId);
  }
}
