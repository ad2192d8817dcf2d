import type { OneTimeTokenPurpose } from '../../../core/accounts/one-time-token-repository.js';
import type { Role, User } from '../../../core/accounts/user.js';
import type { AdminAccountChanges, UserRepository } from '../../../core/accounts/user-repository.js';
import type { ImageMetadataMode } from '../../../core/files/image-metadata/image-metadata-mode.js';
import type { Paged, Window } from '../../../core/shared/pagination.js';
import { copyDate, copyNullableDate } from './copy-date.js';
import { MemoryDatabase } from './memory-database.js';

function copyUser(user: User): User {
  return {
    id: user.id,
    email: user.email,
    passwordHash: user.passwordHash,
    emailConfirmedAt: copyNullableDate(user.emailConfirmedAt),
    maxUploadSizeBytes: user.maxUploadSizeBytes,
    imageMetadata: user.imageMetadata,
    lastEmailSentAt: copyNullableDate(user.lastEmailSentAt),
    lastResetEmailSentAt: copyNullableDate(user.lastResetEmailSentAt),
    planName: user.planName,
    trialEndsAt: copyNullableDate(user.trialEndsAt),
    accessUntil: copyNullableDate(user.accessUntil),
    subscriptionCanceledAt: copyNullableDate(user.subscriptionCanceledAt),
    role: user.role,
    suspendedAt: copyNullableDate(user.suspendedAt),
    storageLimitBytes: user.storageLimitBytes,
    fileCountLimit: user.fileCountLimit,
    createdAt: copyDate(user.createdAt),
    updatedAt: copyDate(user.updatedAt),
  };
}

/** Oldest first: `createdAt` ascending, then `id` ascending (code-unit order, as the databases order ASCII ids). */
function oldestFirst(a: User, b: User): number {
  const byTime = a.createdAt.getTime() - b.createdAt.getTime();
  if (byTime !== 0) return byTime;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/**
 * {@link UserRepository} held in process memory: the test double and the embedding default.
 * Stores and returns copies. Updates of an unknown user id do nothing, as in SQL. `delete`
 * cascades through the whole {@link MemoryDatabase} (keys, sessions, tokens, files, totals, usage,
 * logs), so give every repository the same one (createMemoryRepositories does).
 */
export class MemoryUserRepository implements UserRepository {
  /** @param db the store shared with the other memory repositories; a private one by default */
  constructor(private readonly db: MemoryDatabase = new MemoryDatabase()) {}

  /** @throws Error when a user with the same `id` exists (a caller bug, like a primary-key violation) */
  async create(user: User): Promise<boolean> {
    if (this.db.userIdByEmail.has(user.email)) return false;
    if (this.db.users.has(user.id)) throw new Error(`A user with id ${user.id} already exists.`);
    this.db.users.set(user.id, copyUser(user));
    this.db.userIdByEmail.set(user.email, user.id);
    return true;
  }

  async findById(id: string): Promise<User | undefined> {
    const user = this.db.users.get(id);
    return user && copyUser(user);
  }

  async findByEmail(email: string): Promise<User | undefined> {
    const id = this.db.userIdByEmail.get(email);
    return id === undefined ? undefined : this.findById(id);
  }

  async markEmailConfirmed(options: { userId: string; at: Date }): Promise<void> {
    const user = this.db.users.get(options.userId);
    if (!user) return;
    user.emailConfirmedAt ??= copyDate(options.at);
    user.updatedAt = copyDate(options.at);
  }

  async setPasswordHash(options: { userId: string; passwordHash: string; at: Date }): Promise<void> {
    const user = this.db.users.get(options.userId);
    if (!user) return;
    user.passwordHash = options.passwordHash;
    user.updatedAt = copyDate(options.at);
  }

  async setMaxUploadSize(options: { userId: string; maxUploadSizeBytes: number | null; at: Date }): Promise<void> {
    const user = this.db.users.get(options.userId);
    if (!user) return;
    user.maxUploadSizeBytes = options.maxUploadSizeBytes;
    user.updatedAt = copyDate(options.at);
  }

  async setImageMetadata(options: { userId: string; mode: ImageMetadataMode; at: Date }): Promise<void> {
    const user = this.db.users.get(options.userId);
    if (!user) return;
    user.imageMetadata = options.mode;
    user.updatedAt = copyDate(options.at);
  }

  async setPlan(options: { userId: string; planName: string; trialEndsAt: Date | null; at: Date }): Promise<void> {
    const user = this.db.users.get(options.userId);
    if (!user) return;
    user.planName = options.planName;
    user.trialEndsAt = copyNullableDate(options.trialEndsAt);
    user.updatedAt = copyDate(options.at);
  }

  async setSubscription(options: { userId: string; accessUntil?: Date | null; subscriptionCanceledAt?: Date | null; at: Date }): Promise<void> {
    const user = this.db.users.get(options.userId);
    if (!user) return;
    if (options.accessUntil !== undefined) user.accessUntil = copyNullableDate(options.accessUntil);
    if (options.subscriptionCanceledAt !== undefined) user.subscriptionCanceledAt = copyNullableDate(options.subscriptionCanceledAt);
    user.updatedAt = copyDate(options.at);
  }

  async setRole(options: { userId: string; role: Role; at: Date }): Promise<void> {
    const user = this.db.users.get(options.userId);
    if (!user) return;
    user.role = options.role;
    user.updatedAt = copyDate(options.at);
  }

  async setSuspended(options: { userId: string; suspendedAt: Date | null; at: Date }): Promise<void> {
    const user = this.db.users.get(options.userId);
    if (!user) return;
    user.suspendedAt = copyNullableDate(options.suspendedAt);
    user.updatedAt = copyDate(options.at);
  }

  async setLimits(options: { userId: string; storageLimitBytes?: number | null; fileCountLimit?: number | null; at: Date }): Promise<void> {
    const user = this.db.users.get(options.userId);
    if (!user) return;
    if (options.storageLimitBytes !== undefined) user.storageLimitBytes = options.storageLimitBytes;
    if (options.fileCountLimit !== undefined) user.fileCountLimit = options.fileCountLimit;
    user.updatedAt = copyDate(options.at);
  }

  async countActiveAdmins(): Promise<number> {
    let count = 0;
    for (const user of this.db.users.values()) if (user.role === 'admin' && user.suspendedAt === null) count++;
    return count;
  }

  /** Synchronous between its reads and writes, so atomic within the one process that holds the map. */
  async applyAdminChanges(options: {
    userId: string;
    changes: AdminAccountChanges;
    keepAnAdmin: boolean;
    at: Date;
  }): Promise<'applied' | 'last_admin' | 'not_found'> {
    const user = this.db.users.get(options.userId);
    if (!user) return 'not_found';
    if (options.keepAnAdmin && user.role === 'admin' && user.suspendedAt === null) {
      let others = 0;
      for (const other of this.db.users.values()) if (other.id !== user.id && other.role === 'admin' && other.suspendedAt === null) others++;
      if (others === 0) return 'last_admin';
    }
    const c = options.changes;
    if (c.planName !== undefined) user.planName = c.planName;
    if (c.trialEndsAt !== undefined) user.trialEndsAt = copyNullableDate(c.trialEndsAt);
    if (c.role !== undefined) user.role = c.role;
    if (c.suspendedAt !== undefined) user.suspendedAt = copyNullableDate(c.suspendedAt);
    if (c.maxUploadSizeBytes !== undefined) user.maxUploadSizeBytes = c.maxUploadSizeBytes;
    if (c.storageLimitBytes !== undefined) user.storageLimitBytes = c.storageLimitBytes;
    if (c.fileCountLimit !== undefined) user.fileCountLimit = c.fileCountLimit;
    user.updatedAt = copyDate(options.at);
    return 'applied';
  }

  async list(options: { window: Window }): Promise<Paged<User>> {
    const users = [...this.db.users.values()].sort(oldestFirst);
    const { offset, limit } = options.window;
    return { items: users.slice(offset, offset + limit).map(copyUser), total: users.length };
  }

  async delete(userId: string): Promise<boolean> {
    return this.db.deleteUser(userId);
  }

  async claimEmailSlot(options: { userId: string; purpose: OneTimeTokenPurpose; now: Date; minIntervalMs: number }): Promise<boolean> {
    const user = this.db.users.get(options.userId);
    if (!user) return false;
    const slot = options.purpose === 'email_confirmation' ? 'lastEmailSentAt' : 'lastResetEmailSentAt';
    // No await between the check and the write: atomic on the one JavaScript thread.
    const last = user[slot];
    if (last !== null && last.getTime() > options.now.getTime() - options.minIntervalMs) return false;
    user[slot] = copyDate(options.now);
    return true;
  }
}
