import { DomainError } from '../shared/errors.js';
import { isApiKeyExpired } from './api-key.js';
import type { ApiKeyRepository } from './api-key-repository.js';

/** What a lasting credential (signed URL, share link) keeps of the API key that made it. */
export interface MintingKey {
  /** The key's id, written into what it makes (a signed URL's `kid`, a share's `apiKeyId`). */
  id: string;
  /** When the key stops working (null: never): what it makes stops no later (docs/api-keys.md). */
  expiresAt: Date | null;
}

/**
 * The API key `apiKeyId` of `userId` that is making a signed URL or a share link, read again at
 * `now` (a cached lookup): the request was authenticated with it, but it may have been revoked
 * since, and what it makes is tied to it.
 * @throws DomainError UNAUTHORIZED (401) when the key is gone or not the user's; API_KEY_EXPIRED (401) past its expiry
 */
export async function mintingKey(apiKeys: ApiKeyRepository, options: { apiKeyId: string; userId: string; now: Date }): Promise<MintingKey> {
  const key = await apiKeys.findById(options.apiKeyId);
  if (!key || key.userId !== options.userId) throw new DomainError('UNAUTHORIZED', 'This API key was revoked.');
  if (isApiKeyExpired(key, options.now)) throw new DomainError('API_KEY_EXPIRED', `This API key expired at ${key.expiresAt!.toISOString()}; create a new one.`);
  return { id: key.id, expiresAt: key.expiresAt };
}
