import type { UserRepository } from '../accounts/user-repository.js';
import { type PageRequest, type Paged, toWindow } from '../shared/pagination.js';
import type { AccountReport, AdminAccountView } from './account-report.js';
import { isDomainError } from '../shared/errors.js';

/** Every account, oldest first, with standing and totals (admin CLI `users list`); an account deleted while the page is read is left out. */
export class ListAccounts {
  constructor(private readonly deps: { users: UserRepository; report: AccountReport }) {}

  async execute(input: PageRequest): Promise<Paged<AdminAccountView>> {
    const page = await this.deps.users.list({ window: toWindow(input) });
    const views = await Promise.all(page.items.map((user) => this.deps.report.of(user.id).catch(droppedIfGone)));
    return { items: views.filter((view) => view !== undefined), total: page.total };
  }
}

/** undefined for an account deleted while it was read (USER_NOT_FOUND); any other error is thrown again. */
function droppedIfGone(error: unknown): undefined {
  if (isDomainError(error, 'USER_NOT_FOUND')) return undefined;
  throw error;
}
