import { type PageRequest, type Paged, toWindow } from '../shared/pagination.js';
import type { AccountDirectory, AccountSearch, AccountSummary } from './account-directory.js';

/**
 * The accounts, filtered and ordered, for administrators (`GET /admin/users`, `users list`): counts
 * only, never a file (docs/admin.md).
 * @throws DomainError VALIDATION_FAILED (400) for a page or limit out of range
 */
export class SearchAccounts {
  constructor(private readonly deps: { directory: AccountDirectory }) {}

  async execute(input: Omit<AccountSearch, 'window' | 'sort'> & Partial<Pick<AccountSearch, 'sort'>> & PageRequest): Promise<Paged<AccountSummary>> {
    const { page, limit, sort, ...filters } = input;
    return this.deps.directory.search({ ...filters, sort: sort ?? '-created', window: toWindow({ page, limit }) });
  }
}
