import type { AccountTotals, FileRepository } from '../files/file-repository.js';
import type { AccountPolicy, AccountView } from '../plans/account-policy.js';
import { whileAccountExists } from './admin-target.js';

/** An account with its standing and totals, as administration shows it. */
export interface AdminAccountView extends AccountView {
  totals: AccountTotals;
}

/** Builds {@link AdminAccountView}s; shared by the admin use cases. Not a use case. */
export class AccountReport {
  constructor(private readonly deps: { accounts: AccountPolicy; files: FileRepository }) {}

  /** @throws DomainError USER_NOT_FOUND (404) when the account is gone (also when it goes while being read) */
  async of(userId: string): Promise<AdminAccountView> {
    const [view, totals] = await whileAccountExists(Promise.all([this.deps.accounts.view(userId), this.deps.files.totals(userId)]));
    return { ...view, totals };
  }
}
