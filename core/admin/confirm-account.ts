import type { UserRepository } from '../accounts/user-repository.js';
import type { Clock } from '../shared/clock.js';
import type { AccountReport, AdminAccountView } from './account-report.js';
import { findAccount } from './find-account.js';

/** Marks an address confirmed without the e-mail link; idempotent (`users confirm`). @throws DomainError USER_NOT_FOUND (404) */
export class ConfirmAccount {
  constructor(private readonly deps: { users: UserRepository; report: AccountReport; clock: Clock }) {}

  async execute(input: { email: string }): Promise<AdminAccountView> {
    const user = await findAccount(this.deps.users, input.email);
    await this.deps.users.markEmailConfirmed({ userId: user.id, at: this.deps.clock.now() });
    return this.deps.report.of(user.id);
  }
}
