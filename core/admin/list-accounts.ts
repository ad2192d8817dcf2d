import type { UserRepository } from '../accounts/user-repository.js';
import { type PageRequest, type Paged, toWindow } from '../shared/pagination.js';
import type { AccountReport, AdminAccountView } from './account-report.js';

/** Every account, oldest first, with standing and totals (admin CLI `users list`). */
export class ListAccounts {
  constructor(private readonly deps: { users: UserRepository; report: AccountReport }) {}

  async execute(input: PageRequest): Promise<Paged<AdminAccountView>> {
    const page = await this.deps.users.list({ window: toWindow(input) });
    return { items: await Promise.all(page.items.map((user) => this.deps.report.of(user.id))), total: page.total };
  }
}
