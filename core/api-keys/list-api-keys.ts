import type { Clock } from '../shared/clock.js';
import { type PageRequest, type Paged, toWindow } from '../shared/pagination.js';
import { type ApiKey, isApiKeyExpired } from './api-key.js';
import type { ApiKeyRepository } from './api-key-repository.js';

/** A listed key, and whether it has expired by the time of the listing. */
export type ListedApiKey = ApiKey & { expired: boolean };

/** Lists the user's API keys, newest first (spec 4.6), expired ones included and marked.
 *  @throws DomainError VALIDATION_FAILED (400) when `page` or `limit` is out of bounds ({@link toWindow}) */
export class ListApiKeys {
  constructor(private readonly deps: { apiKeys: ApiKeyRepository; clock: Clock }) {}

  async execute(input: { userId: string } & PageRequest): Promise<Paged<ListedApiKey>> {
    const page = await this.deps.apiKeys.list({ userId: input.userId, window: toWindow(input) });
    const now = this.deps.clock.now();
    return { ...page, items: page.items.map((key) => ({ ...key, expired: isApiKeyExpired(key, now) })) };
  }
}
