import type { User } from '../../../core/accounts/user.js';
import type { UserRepository } from '../../../core/accounts/user-repository.js';
import { copyDate, copyNullableDate } from './copy-date.js';

function copyUser(user: User): User {
  return {
    id: user.id,
    email: user.email,
    passwordHash: user.passwordHash,
    emailConfirmedAt: copyNullableDate(user.emailConfirmedAt),
    maxUploadSizeBytes: user.maxUploadSizeBytes,
    lastEmailSentAt: copyNullableDate(user.lastEmailSentAt),
    createdAt: copyDate(user.createdAt),
    updatedAt: copyDate(user.updatedAt),
  };
}

/**
 * {@link UserRepository} held in process memory (Maps): the test double and the embedding
 * default. Stores and returns copies. Updates of an unknown user id do nothing, as in SQL.
 */
export class MemoryUserRepository implements UserRepository {
  private readonly byId = new Map<string, User>();
  /** Normalised e-mail → user id; the unique index. */
  private readonly idByEmail = new Map<string, string>();

  /** @throws Error when a user with the same `id` exists (a caller bug, like a primary-key violation) */
  async create(user: User): Promise<boolean> {
    if (this.idByEmail.has(user.email)) return false;
    if (this.byId.has(user.id)) throw new Error(`A user with id ${user.id} already exists.`);
    this.byId.set(user.id, copyUser(user));
    this.idByEmail.set(user.email, user.id);
    return true;
  }

  async findById(id: string): Promise<User | undefined> {
    const user = this.byId.get(id);
    return user && copyUser(user);
  }

  async findByEmail(email: string): Promise<User | undefined> {
    const id = this.idByEmail.get(email);
    return id === undefined ? undefined : this.findById(id);
  }

  async markEmailConfirmed(options: { userId: string; at: Date }): Promise<void> {
    const user = this.byId.get(options.userId);
    if (!user) return;
    user.emailConfirmedAt ??= copyDate(options.at);
    user.updatedAt = copyDate(options.at);
  }

  async setPasswordHash(options: { userId: string; passwordHash: string; at: Date }): Promise<void> {
    const user = this.byId.get(options.userId);
    if (!user) return;
    user.passwordHash = options.passwordHash;
    user.updatedAt = copyDate(options.at);
  }

  async setMaxUploadSize(options: { userId: string; maxUploadSizeBytes: number | null; at: Date }): Promise<void> {
    const user = this.byId.get(options.userId);
    if (!user) return;
    user.maxUploadSizeBytes = options.maxUploadSizeBytes;
    user.updatedAt = copyDate(options.at);
  }

  async claimEmailSlot(options: { userId: string; now: Date; minIntervalMs: number }): Promise<boolean> {
    const user = this.byId.get(options.userId);
    if (!user) return false;
    // No await between the check and the write: atomic on the one JavaScript thread.
    const last = user.lastEmailSentAt;
    if (last !== null && last.getTime() > options.now.getTime() - options.minIntervalMs) return false;
    user.lastEmailSentAt = copyDate(options.now);
    return true;
  }
}
