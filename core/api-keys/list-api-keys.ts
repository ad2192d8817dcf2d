import { type PageRequest, type Paged, toWindow } from '../shared/pagination.js';
import type { ApiKey } from './api-key.js';
import type { ApiKeyRepository } from './api-key-repository.js';

/** Lists the user's API keys, newest first (spec 4.6).
 *  @throws DomainError VALIDATION_FAILED (400) when `page` or `limit` is out of bounds ({@link toWindow}) */
export class ListApiKeys {
  constructor(private readonly deps: { apiKeys: ApiKeyRepository }) {}

  async execute(input: { userId: string } & PageRequest): Promise<Paged<ApiKey>> {
    return this.deps.apiKeys.list({ userId: input.userId, window: toWindow(input) });
  }
}
