import type { AccountPolicy, AccountView } from '../plans/account-policy.js';

/**
 * The account's profile (spec 2.8, 4.17): user, plan with trial state, and billing fields.
 * @throws DomainError UNAUTHORIZED when the account is gone
 */
export class GetProfile {
  constructor(private readonly deps: { accounts: AccountPolicy }) {}

  execute(input: { userId: string }): Promise<AccountView> {
    return this.deps.accounts.view(input.userId);
  }
}
