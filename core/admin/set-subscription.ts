import type { UserRepository } from '../accounts/user-repository.js';
import type { Clock } from '../shared/clock.js';
import type { AdminActor } from './admin-audit.js';
import type { AdminTrail } from './admin-trail.js';
import type { AccountReport, AdminAccountView } from './account-report.js';
import { findAccount } from './find-account.js';

/**
 * Sets billing fields, as a billing system would (`users set-access-until`, `users set-canceled-at`):
 * `accessUntil` in the future gives paid access (it lifts the trial end); null clears a field;
 * an absent field stays as it is. With an `actor` (the CLI gives CLI_ACTOR) a change is audited as
 * `update_account` with the changed fields before and after (ISO 8601 dates or null; docs/admin.md,
 * "The audit log"); an embedding host's billing integration may call it without one.
 * @throws DomainError USER_NOT_FOUND (404)
 */
export class SetSubscription {
  constructor(private readonly deps: { users: UserRepository; report: AccountReport; trail: AdminTrail; clock: Clock }) {}

  async execute(input: { email: string; accessUntil?: Date | null; subscriptionCanceledAt?: Date | null; actor?: AdminActor }): Promise<AdminAccountView> {
    const user = await findAccount(this.deps.users, input.email);
    const before: Record<string, unknown> = {};
    const after: Record<string, unknown> = {};
    const note = (field: string, from: Date | null, to: Date | null | undefined) => {
      if (to === undefined || from?.getTime() === to?.getTime()) return;
      before[field] = from?.toISOString() ?? null;
      after[field] = to?.toISOString() ?? null;
    };
    note('access_until', user.accessUntil, input.accessUntil);
    note('subscription_canceled_at', user.subscriptionCanceledAt, input.subscriptionCanceledAt);
    await this.deps.users.setSubscription({
      userId: user.id,
      accessUntil: input.accessUntil,
      subscriptionCanceledAt: input.subscriptionCanceledAt,
      at: this.deps.clock.now(),
    });
    if (input.actor && Object.keys(after).length > 0)
      await this.deps.trail.record({ actor: input.actor, action: 'update_account', target: user, before, after });
    return this.deps.report.of(user.id);
  }
}
