import { DomainError } from '../shared/errors.js';
import { isUuid } from '../shared/uuid.js';
import type { ApiKeyRepository } from './api-key-repository.js';

/**
 * Revokes (deletes) one of the user's API keys; it stops working at once (spec 4.7), and so do
 * what it made that outlives a request: its share links go with it (the repository's cascade) and
 * its signed URLs are refused from then on (ReadSignedFile looks the key up; docs/api-keys.md).
 * @throws DomainError API_KEY_NOT_FOUND (404) — also for another account's key
 */
export class RevokeApiKey {
  constructor(private readonly deps: { apiKeys: ApiKeyRepository }) {}

  async execute(input: { userId: string; id: string }): Promise<void> {
    const deleted = isUuid(input.id) && (await this.deps.apiKeys.delete({ userId: input.userId, id: input.id.toLowerCase() }));
    if (!deleted) throw new DomainError('API_KEY_NOT_FOUND', 'No API key with this id.');
  }
}
