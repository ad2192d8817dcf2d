import type { UserRepository } from '../accounts/user-repository.js';
import type { Clock } from '../shared/clock.js';
import type { AdminActor } from './admin-audit.js';
import type { AdminTrail } from './admin-trail.js';
import type { AccountReport, AdminAccountView } from './account-report.js';
import { findAccount } from './find-account.js';

/**
 * Marks an address confirmed without the e-mail link; idempotent (`users confirm`). With an `actor`
 * (the CLI gives CLI_ACTOR) a confirmation that changes the account is audited as `confirm_account`
 * (docs/admin.md, "The audit log"); an embedding host may call it without one.
 * @throws DomainError USER_NOT_FOUND (404)
 */
export class ConfirmAccount {
  constructor(private readonly deps: { users: UserRepository; report: AccountReport; trail: AdminTrail; clock: Clock }) {}

  async execute(input: { email: string; actor?: AdminActor }): Promise<AdminAccountView> {
    const user = await findAccount(this.deps.users, input.email);
    await this.deps.users.markEmailConfirmed({ userId: user.id, at: this.deps.clock.now() });
    if (input.actor && user.emailConfirmedAt === null) {
      await this.deps.trail.record({
        actor: input.actor,
        action: 'confirm_account',
        target: user,
        before: { email_confirmed: false },
        after: { email_confirmed: true },
      });
    }
    return this.deps.report.of(user.id);
  }
}
