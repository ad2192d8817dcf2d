import type { Clock } from '../shared/clock.js';
import { DomainError } from '../shared/errors.js';
import type { IdGenerator, SecretDigest } from '../shared/ids.js';
import { API_KEY_MARKER, API_KEY_PREFIX_LENGTH, API_KEY_RANDOM_LENGTH, type ApiKey, DEFAULT_API_KEY_NAME, MAX_API_KEY_NAME_LENGTH } from './api-key.js';
import type { ApiKeyRepository } from './api-key-repository.js';

/**
 * Creates an API key `hgr_` + 32 random base62 characters (spec 4.5). The full key is returned
 * once, here; only its SHA-256 is stored. The name is trimmed; empty means "API key".
 * @throws DomainError VALIDATION_FAILED (400) when the name is longer than
 *   {@link MAX_API_KEY_NAME_LENGTH} characters (UTF-16 code units, as JSON Schema's `maxLength` at the edge)
 */
export class CreateApiKey {
  constructor(private readonly deps: { apiKeys: ApiKeyRepository; ids: IdGenerator; digest: SecretDigest; clock: Clock }) {}

  async execute(input: { userId: string; name?: string }): Promise<{ apiKey: ApiKey; key: string }> {
    if (input.name !== undefined && input.name.length > MAX_API_KEY_NAME_LENGTH) {
      throw new DomainError('VALIDATION_FAILED', `name must be at most ${MAX_API_KEY_NAME_LENGTH} characters; got ${input.name.length}.`, [
        { path: '/name', message: `Expected at most ${MAX_API_KEY_NAME_LENGTH} characters` },
      ]);
    }
    const key = API_KEY_MARKER + this.deps.ids.base62(API_KEY_RANDOM_LENGTH);
    const apiKey: ApiKey = {
      id: this.deps.ids.uuid(),
      userId: input.userId,
      name: input.name?.trim() || DEFAULT_API_KEY_NAME,
      keyPrefix: key.slice(0, API_KEY_PREFIX_LENGTH),
      keyHash: this.deps.digest.sha256(key),
      createdAt: this.deps.clock.now(),
      lastUsedAt: null,
    };
    await this.deps.apiKeys.create(apiKey);
    return { apiKey, key };
  }
}
