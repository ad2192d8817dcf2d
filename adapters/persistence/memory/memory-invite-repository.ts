import type { Invite } from '../../../core/invites/invite.js';
import type { InviteRepository } from '../../../core/invites/invite-repository.js';
import { MemoryDatabase } from './memory-database.js';

function copyInvite(invite: Invite): Invite {
  const date = (d: Date | null) => (d === null ? null : new Date(d.getTime()));
  return {
    ...invite,
    createdAt: new Date(invite.createdAt.getTime()),
    expiresAt: date(invite.expiresAt),
    usedAt: date(invite.usedAt),
    revokedAt: date(invite.revokedAt),
  };
}

/** {@link InviteRepository} held in process memory (a {@link MemoryDatabase}). Claims are synchronous, so one process never uses an invite twice. */
export class MemoryInviteRepository implements InviteRepository {
  constructor(private readonly db: MemoryDatabase = new MemoryDatabase()) {}

  /** @throws Error when an invite with the same id or token hash exists */
  async create(invite: Invite): Promise<void> {
    if (this.db.invites.has(invite.id)) throw new Error(`An invite with id ${invite.id} already exists.`);
    for (const stored of this.db.invites.values()) {
      if (stored.tokenHash === invite.tokenHash) throw new Error('An invite with this token hash already exists.');
    }
    this.db.invites.set(invite.id, copyInvite(invite));
  }

  async list(options: { limit: number }): Promise<Invite[]> {
    return [...this.db.invites.values()]
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
      .slice(0, options.limit)
      .map(copyInvite);
  }

  async claim(options: { tokenHash: string; userId: string; now: Date }): Promise<Invite | undefined> {
    for (const invite of this.db.invites.values()) {
      if (invite.tokenHash !== options.tokenHash) continue;
      if (invite.usedAt !== null || invite.revokedAt !== null) return undefined;
      if (invite.expiresAt !== null && invite.expiresAt.getTime() <= options.now.getTime()) return undefined;
      invite.usedAt = new Date(options.now.getTime());
      invite.usedBy = options.userId;
      return copyInvite(invite);
    }
    return undefined;
  }

  async release(options: { id: string; userId: string }): Promise<void> {
    const invite = this.db.invites.get(options.id);
    if (invite && invite.usedBy === options.userId) {
      invite.usedAt = null;
      invite.usedBy = null;
    }
  }

  async revoke(options: { id: string; now: Date }): Promise<boolean> {
    const invite = this.db.invites.get(options.id);
    if (!invite || invite.usedAt !== null || invite.revokedAt !== null) return false;
    invite.revokedAt = new Date(options.now.getTime());
    return true;
  }
}
