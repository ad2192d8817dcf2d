import type { UserRepository } from '../accounts/user-repository.js';
import type { Clock } from '../shared/clock.js';
import type { AccountReport, AdminAccountView } from './account-report.js';
import { findAccount } from './find-account.js';

/**
 * Sets billing fields, as a billing system would (`users set-access-until`, `users set-canceled-at`):
 * `accessUntil` in the future gives paid access (it lifts the trial end); null clears a field;
 * an absent field stays as it is.
 * @throws DomainError USER_NOT_FOUND (404)
 */
export class SetSubscription {
  constructor(private readonly deps: { users: UserRepository; report: AccountReport; clock: Clock }) {}

  async execute(input: { email: string; accessUntil?: Date | null; subscriptionCanceledAt?: Date | null }): Promise<AdminAccountView> {
    const user = await findAccount(this.deps.users, input.email);
    await this.deps.users.setSubscription({
      userId: user.id,
      accessUntil: input.accessUntil,
      subscriptionCanceledAt: input.subscriptionCanceledAt,
      at: this.deps.clock.now(),
    });
    return this.deps.report.of(user.id);
  }
}
