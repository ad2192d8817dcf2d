import type { OneTimeToken, OneTimeTokenPurpose, OneTimeTokenRepository } from '../../../core/accounts/one-time-token-repository.js';
import { copyDate } from './copy-date.js';

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
 * {@link OneTimeTokenRepository} held in process memory. A token is valid while `now` is before
 * its `expiresAt` (it is expired from `expiresAt` on).
 */
export class MemoryOneTimeTokenRepository implements OneTimeTokenRepository {
  /** Token hash → token; the unique index. */
  private readonly byHash = new Map<string, OneTimeToken>();

  /** @throws Error when a token with the same `id` or `tokenHash` exists */
  async create(token: OneTimeToken): Promise<void> {
    if (this.byHash.has(token.tokenHash)) throw new Error('A one-time token with this hash already exists.');
    for (const stored of this.byHash.values()) {
      if (stored.id === token.id) throw new Error(`A one-time token with id ${token.id} already exists.`);
    }
    this.byHash.set(token.tokenHash, copyToken(token));
  }

  async consume(options: { purpose: OneTimeTokenPurpose; tokenHash: string; now: Date }): Promise<{ userId: string; redirectTo: string | null } | undefined> {
    const token = this.byHash.get(options.tokenHash);
    if (!token || token.purpose !== options.purpose || token.expiresAt.getTime() <= options.now.getTime()) return undefined;
    this.byHash.delete(options.tokenHash);
    return { userId: token.userId, redirectTo: token.redirectTo };
  }

  async deleteForUser(options: { userId: string; purpose: OneTimeTokenPurpose }): Promise<void> {
    for (const [hash, token] of this.byHash) {
      if (token.userId === options.userId && token.purpose === options.purpose) this.byHash.delete(hash);
    }
  }
}
