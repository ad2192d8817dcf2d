import type { Paged, Window } from '../shared/pagination.js';
import type { ApiKey } from './api-key.js';

/** Port: persistence of API keys. */
export interface ApiKeyRepository {
  create(key: ApiKey): Promise<void>;
  /** Looks a key up by the SHA-256 of its secret (indexed). */
  findByHash(keyHash: string): Promise<ApiKey | undefined>;
  /** The user's keys, newest first (created_at, then id, descending). */
  list(options: { userId: string; window: Window }): Promise<Paged<ApiKey>>;
  /** Deletes the user's key `id`. @returns false when the user has no such key */
  delete(options: { userId: string; id: string }): Promise<boolean>;
  /** Deletes every key of the user (a password reset that revokes them). @returns how many were deleted */
  deleteAllForUser(options: { userId: string }): Promise<number>;
  /** Sets `lastUsedAt = at` when it is null or not after `at - minIntervalMs` (a gap of exactly the interval writes). */
  touch(options: { id: string; at: Date; minIntervalMs: number }): Promise<void>;
}
