import type { UserRepository } from '../accounts/user-repository.js';
import type { AccountReport, AdminAccountView } from './account-report.js';
import { findAccount } from './find-account.js';

/** One account by e-mail, with standing and totals (`users show`). @throws DomainError USER_NOT_FOUND (404) */
export class ShowAccount {
  constructor(private readonly deps: { users: UserRepository; report: AccountReport }) {}

  async execute(input: { email: string }): Promise<AdminAccountView> {
    return this.deps.report.of((await findAccount(this.deps.users, input.email)).id);
  }
}
