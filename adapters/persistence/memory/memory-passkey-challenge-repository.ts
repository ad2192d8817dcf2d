import type { PasskeyCeremony, PasskeyChallenge, PasskeyChallengeRepository } from '../../../core/passkeys/passkey-challenge-repository.js';
import { copyDate } from './copy-date.js';
import { MemoryDatabase } from './memory-database.js';

/**
 * {@link PasskeyChallengeRepository} held in process memory (a {@link MemoryDatabase}). A challenge
 * is valid while `now` is before its `expiresAt`; `take` checks and deletes with no await in between.
 */
export class MemoryPasskeyChallengeRepository implements PasskeyChallengeRepository {
  /** @param db the store shared with the other memory repositories; a private one by default */
  constructor(private readonly db: MemoryDatabase = new MemoryDatabase()) {}

  /** @throws Error when the challenge exists already */
  async create(challenge: PasskeyChallenge): Promise<void> {
    if (this.db.passkeyChallenges.has(challenge.challenge)) throw new Error('This passkey challenge exists already.');
    this.db.passkeyChallenges.set(challenge.challenge, { ...challenge, expiresAt: copyDate(challenge.expiresAt), createdAt: copyDate(challenge.createdAt) });
  }

  async take(options: { challenge: string; ceremony: PasskeyCeremony; now: Date }): Promise<{ userId: string | null } | undefined> {
    const stored = this.db.passkeyChallenges.get(options.challenge);
    if (!stored || stored.ceremony !== options.ceremony || stored.expiresAt.getTime() <= options.now.getTime()) return undefined;
    this.db.passkeyChallenges.delete(options.challenge);
    return { userId: stored.userId };
  }

  async deleteExpired(options: { now: Date }): Promise<number> {
    let deleted = 0;
    for (const [key, stored] of this.db.passkeyChallenges) {
      if (stored.expiresAt.getTime() <= options.now.getTime()) {
        this.db.passkeyChallenges.delete(key);
        deleted += 1;
      }
    }
    return deleted;
  }
}
