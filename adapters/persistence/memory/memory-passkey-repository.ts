import type { Passkey } from '../../../core/passkeys/passkey.js';
import type { PasskeyRepository } from '../../../core/passkeys/passkey-repository.js';
import { copyDate, copyNullableDate } from './copy-date.js';
import { MemoryDatabase } from './memory-database.js';

function copyPasskey(passkey: Passkey): Passkey {
  return { ...passkey, transports: [...passkey.transports], createdAt: copyDate(passkey.createdAt), lastUsedAt: copyNullableDate(passkey.lastUsedAt) };
}

/**
 * {@link PasskeyRepository} held in process memory (a {@link MemoryDatabase}). Each method checks
 * and writes with no await in between, so it is atomic on the one JavaScript thread.
 */
export class MemoryPasskeyRepository implements PasskeyRepository {
  /** @param db the store shared with the other memory repositories; a private one by default */
  constructor(private readonly db: MemoryDatabase = new MemoryDatabase()) {}

  /** @throws Error when a passkey with the same `id` exists */
  async insert(passkey: Passkey): Promise<boolean> {
    if (this.db.passkeys.has(passkey.id)) throw new Error(`A passkey with id ${passkey.id} already exists.`);
    if (this.db.passkeyIdByCredentialId.has(passkey.credentialId)) return false;
    this.db.passkeys.set(passkey.id, copyPasskey(passkey));
    this.db.passkeyIdByCredentialId.set(passkey.credentialId, passkey.id);
    return true;
  }

  async listForUser(userId: string): Promise<Passkey[]> {
    return [...this.db.passkeys.values()]
      .filter((passkey) => passkey.userId === userId)
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .map(copyPasskey);
  }

  async findByCredentialId(credentialId: string): Promise<Passkey | undefined> {
    const id = this.db.passkeyIdByCredentialId.get(credentialId);
    const passkey = id === undefined ? undefined : this.db.passkeys.get(id);
    return passkey && copyPasskey(passkey);
  }

  async rename(options: { userId: string; id: string; name: string }): Promise<Passkey | undefined> {
    const passkey = this.db.passkeys.get(options.id);
    if (!passkey || passkey.userId !== options.userId) return undefined;
    passkey.name = options.name;
    return copyPasskey(passkey);
  }

  async delete(options: { userId: string; id: string }): Promise<boolean> {
    const passkey = this.db.passkeys.get(options.id);
    if (!passkey || passkey.userId !== options.userId) return false;
    this.db.passkeys.delete(passkey.id);
    this.db.passkeyIdByCredentialId.delete(passkey.credentialId);
    return true;
  }

  async recordUse(options: { id: string; previousCounter: number; counter: number; at: Date }): Promise<boolean> {
    const passkey = this.db.passkeys.get(options.id);
    if (!passkey || passkey.counter !== options.previousCounter) return false;
    passkey.counter = options.counter;
    passkey.lastUsedAt = copyDate(options.at);
    return true;
  }
}
