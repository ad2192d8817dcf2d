import { type PageRequest, type Paged, toWindow } from '../shared/pagination.js';
import type { ApiKey } from './api-key.js';
import type { ApiKeyRepository } from './api-key-repository.js';

/** Lists the user's API keys, newest first (spec 4.6). Page bounds are checked at the edge. */
export class ListApiKeys {
  constructor(private readonly deps: { apiKeys: ApiKeyRepository }) {}

  execute(input: { userId: string } & PageRequest): Promise<Paged<ApiKey>> {
    return this.deps.apiKeys.list({ userId: input.userId, window: toWindow(input) });
  }
}
