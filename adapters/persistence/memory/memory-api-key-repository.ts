import type { ApiKey } from '../../../core/api-keys/api-key.js';
import type { ApiKeyRepository } from '../../../core/api-keys/api-key-repository.js';
import type { Paged, Window } from '../../../core/shared/pagination.js';
import { copyDate, copyNullableDate } from './copy-date.js';
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
  };
}

/**
 * {@link ApiKeyRepository} held in process memory. `touch` writes when `lastUsedAt` is null or
 * at least `minIntervalMs` before `at` (the bound the Authenticate use case checks).
 */
export class MemoryApiKeyRepository implements ApiKeyRepository {
  private readonly byId = new Map<string, ApiKey>();
  /** Key hash → key id; the unique index. */
  private readonly idByHash = new Map<string, string>();

  /** @throws Error when the id or the key hash already exists */
  async create(key: ApiKey): Promise<void> {
    if (this.byId.has(key.id)) throw new Error(`An API key with id ${key.id} already exists.`);
    if (this.idByHash.has(key.keyHash)) throw new Error('An API key with this hash already exists.');
    this.byId.set(key.id, copyApiKey(key));
    this.idByHash.set(key.keyHash, key.id);
  }

  async findByHash(keyHash: string): Promise<ApiKey | undefined> {
    const id = this.idByHash.get(keyHash);
    const key = id === undefined ? undefined : this.byId.get(id);
    return key && copyApiKey(key);
  }

  async list(options: { userId: string; window: Window }): Promise<Paged<ApiKey>> {
    const keys = [...this.byId.values()].filter((key) => key.userId === options.userId).sort(newestFirst);
    const { offset, limit } = options.window;
    return { items: keys.slice(offset, offset + limit).map(copyApiKey), total: keys.length };
  }

  async delete(options: { userId: string; id: string }): Promise<boolean> {
    const key = this.byId.get(options.id);
    if (!key || key.userId !== options.userId) return false;
    this.byId.delete(key.id);
    this.idByHash.delete(key.keyHash);
    return true;
  }

  async touch(options: { id: string; at: Date; minIntervalMs: number }): Promise<void> {
    const key = this.byId.get(options.id);
    if (!key) return;
    if (key.lastUsedAt === null || key.lastUsedAt.getTime() <= options.at.getTime() - options.minIntervalMs) {
      key.lastUsedAt = copyDate(options.at);
    }
  }
}
