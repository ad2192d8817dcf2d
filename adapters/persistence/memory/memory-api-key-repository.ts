import type { ApiKey } from '../../../core/api-keys/api-key.js';
import type { ApiKeyRepository } from '../../../core/api-keys/api-key-repository.js';
import type { Paged, Window } from '../../../core/shared/pagination.js';
import { copyDate, copyNullableDate } from './copy-date.js';
import { MemoryDatabase } from './memory-database.js';
import { newestFirst } from './newest-first.js';

function copyApiKey(key: ApiKey): ApiKey {
  return {
    id: key.id,
    userId: key.userId,
    name: key.name,
    keyPrefix: key.keyPrefix,
    keyHash: key.keyHash,
    createdAt: copyDate(key.createdAt),
    lastUsedAt: copyNullableDate(key.lastUsedAt),
    scopes: [...key.scopes],
    expiresAt: copyNullableDate(key.expiresAt),
  };
}

/**
 * {@link ApiKeyRepository} held in process memory (a {@link MemoryDatabase}). `touch` writes
 * when `lastUsedAt` is null or at least `minIntervalMs` before `at` (the bound the Authenticate
 * use case checks).
 */
export class MemoryApiKeyRepository implements ApiKeyRepository {
  /** @param db the store shared with the other memory repositories; a private one by default */
  constructor(private readonly db: MemoryDatabase = new MemoryDatabase()) {}

  /** @throws Error when the id or the key hash already exists */
  async create(key: ApiKey): Promise<void> {
    if (this.db.apiKeys.has(key.id)) throw new Error(`An API key with id ${key.id} already exists.`);
    if (this.db.apiKeyIdByHash.has(key.keyHash)) throw new Error('An API key with this hash already exists.');
    this.db.apiKeys.set(key.id, copyApiKey(key));
    this.db.apiKeyIdByHash.set(key.keyHash, key.id);
  }

  /** One synchronous check and insert: nothing else runs in between in one process. */
  async createWithin(key: ApiKey, options: { maxPerUser: number; now: Date }): Promise<boolean> {
    const now = options.now.getTime();
    let live = 0;
    for (const held of this.db.apiKeys.values()) if (held.userId === key.userId && (held.expiresAt === null || held.expiresAt.getTime() > now)) live++;
    if (live >= options.maxPerUser) return false;
    await this.create(key);
    return true;
  }

  async findById(id: string): Promise<ApiKey | undefined> {
    const key = this.db.apiKeys.get(id);
    return key && copyApiKey(key);
  }

  async findByHash(keyHash: string): Promise<ApiKey | undefined> {
    const id = this.db.apiKeyIdByHash.get(keyHash);
    const key = id === undefined ? undefined : this.db.apiKeys.get(id);
    return key && copyApiKey(key);
  }

  async list(options: { userId: string; window: Window }): Promise<Paged<ApiKey>> {
    const keys = [...this.db.apiKeys.values()].filter((key) => key.userId === options.userId).sort(newestFirst);
    const { offset, limit } = options.window;
    return { items: keys.slice(offset, offset + limit).map(copyApiKey), total: keys.length };
  }

  async delete(options: { userId: string; id: string }): Promise<boolean> {
    const key = this.db.apiKeys.get(options.id);
    if (!key || key.userId !== options.userId) return false;
    this.db.apiKeys.delete(key.id);
    this.db.apiKeyIdByHash.delete(key.keyHash);
    this.db.deleteSharesOfApiKey(key.id);
    return true;
  }

  async deleteAllForUser(options: { userId: string }): Promise<number> {
    let deleted = 0;
    for (const key of [...this.db.apiKeys.values()]) {
      if (key.userId !== options.userId) continue;
      this.db.apiKeys.delete(key.id);
      this.db.apiKeyIdByHash.delete(key.keyHash);
      this.db.deleteSharesOfApiKey(key.id);
      deleted += 1;
    }
    return deleted;
  }

  async touch(options: { id: string; at: Date; minIntervalMs: number }): Promise<void> {
    const key = this.db.apiKeys.get(options.id);
    if (!key) return;
    if (key.lastUsedAt === null || key.lastUsedAt.getTime() <= options.at.getTime() - options.minIntervalMs) {
      key.lastUsedAt = copyDate(options.at);
    }
  }
}
