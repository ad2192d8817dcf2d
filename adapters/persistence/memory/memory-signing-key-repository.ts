import type { SigningKeyRepository } from '../../../core/files/signing-key-repository.js';
import { MemoryDatabase } from './memory-database.js';

/** {@link SigningKeyRepository} in a {@link MemoryDatabase} (`signingKeys`); synchronous inside, so `ensure` is atomic. */
export class MemorySigningKeyRepository implements SigningKeyRepository {
  constructor(private readonly db: MemoryDatabase = new MemoryDatabase()) {}

  async ensure(options: { userId: string; candidate: string }): Promise<string | undefined> {
    if (!this.db.hasUser(options.userId)) return undefined;
    const key = this.db.signingKeys.get(options.userId);
    if (key !== undefined) return key;
    this.db.signingKeys.set(options.userId, options.candidate);
    return options.candidate;
  }

  async replace(options: { userId: string; key: string }): Promise<boolean> {
    if (!this.db.hasUser(options.userId)) return false;
    this.db.signingKeys.set(options.userId, options.key);
    return true;
  }
}
