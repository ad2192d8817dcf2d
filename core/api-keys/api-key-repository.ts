import type { Paged, Window } from '../shared/pagination.js';
import type { ApiKey } from './api-key.js';

/** Port: persistence of API keys. */
export interface ApiKeyRepository {
  create(key: ApiKey): Promise<void>;
  /**
   * Stores `key` only when its user then holds at most `maxPerUser` keys that have not expired at
   * `now` (expired keys work no more and do not count). Atomic across processes: of many creations
   * racing for the last place, exactly one succeeds.
   * @returns false when the user already holds `maxPerUser` live keys (nothing stored)
   */
  createWithin(key: ApiKey, options: { maxPerUser: number; now: Date }): Promise<boolean>;
  /**
   * Looks a key up by id (its primary key), whoever owns it: on the path of every signed URL a key
   * made, so adapters answer it from their lookup cache while the key is unchanged (a revocation
   * is seen by every process within the change feed's delay, docs/scale-out.md).
   */
  findById(id: string): Promise<ApiKey | undefined>;
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
