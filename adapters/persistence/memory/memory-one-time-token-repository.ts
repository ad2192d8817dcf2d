import type { OneTimeToken, OneTimeTokenPurpose, OneTimeTokenRepository } from '../../../core/accounts/one-time-token-repository.js';
import { copyDate } from './copy-date.js';
import { MemoryDatabase } from './memory-database.js';

function copyToken(token: OneTimeToken): OneTimeToken {
  return {
    id: token.id,
    userId: token.userId,
    purpose: token.purpose,
    tokenHash: token.tokenHash,
    redirectTo: token.redirectTo,
    expiresAt: copyDate(token.expiresAt),
    createdAt: copyDate(token.createdAt),
  };
}

/**
 * {@link OneTimeTokenRepository} held in process memory (a {@link MemoryDatabase}). A token is
 * valid while `now` is before its `expiresAt` (it is expired from `expiresAt` on).
 */
export class MemoryOneTimeTokenRepository implements OneTimeTokenRepository {
  /** @param db the store shared with the other memory repositories; a private one by default */
  constructor(private readonly db: MemoryDatabase = new MemoryDatabase()) {}

  /** @throws Error when a token with the same `id` or `tokenHash` exists */
  async create(token: OneTimeToken): Promise<void> {
    if (this.db.oneTimeTokens.has(token.tokenHash)) throw new Error('A one-time token with this hash already exists.');
    for (const stored of this.db.oneTimeTokens.values()) {
      if (stored.id === token.id) throw new Error(`A one-time token with id ${token.id} already exists.`);
    }
    this.db.oneTimeTokens.set(token.tokenHash, copyToken(token));
  }

  async consume(options: { purpose: OneTimeTokenPurpose; tokenHash: string; now: Date }): Promise<{ userId: string; redirectTo: string | null } | undefined> {
    const token = this.db.oneTimeTokens.get(options.tokenHash);
    if (!token || token.purpose !== options.purpose || token.expiresAt.getTime() <= options.now.getTime()) return undefined;
    this.db.oneTimeTokens.delete(options.tokenHash);
    return { userId: token.userId, redirectTo: token.redirectTo };
  }

  async deleteForUser(options: { userId: string; purpose: OneTimeTokenPurpose }): Promise<void> {
    for (const [hash, token] of this.db.oneTimeTokens) {
      if (token.userId === options.userId && token.purpose === options.purpose) this.db.oneTimeTokens.delete(hash);
    }
  }

  async deleteExpired(options: { now: Date }): Promise<number> {
    let deleted = 0;
    for (const [hash, token] of this.db.oneTimeTokens) {
      if (token.expiresAt.getTime() <= options.now.getTime()) {
        this.db.oneTimeTokens.delete(hash);
        deleted += 1;
      }
    }
    return deleted;
  }
}
