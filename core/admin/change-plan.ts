import type { UserRepository } from '../accounts/user-repository.js';
import type { PlanCatalog } from '../plans/plan.js';
import type { Clock } from '../shared/clock.js';
import type { AdminActor } from './admin-audit.js';
import type { AdminTrail } from './admin-trail.js';
import { DomainError } from '../shared/errors.js';
import type { AccountReport, AdminAccountView } from './account-report.js';
import { findAccount } from './find-account.js';

/**
 * Moves an account to another plan (`users set-plan`). A plan change lifts the trial end: the
 * account was chosen for this plan, so its trial no longer applies. With an `actor` (the CLI gives
 * CLI_ACTOR) a change is audited as `update_account` with the plan and the trial end before and
 * after (docs/admin.md, "The audit log"); an embedding host may call it without one.
 * @throws DomainError USER_NOT_FOUND (404), PLAN_NOT_FOUND (400)
 */
export class ChangePlan {
  constructor(private readonly deps: { users: UserRepository; plans: PlanCatalog; report: AccountReport; trail: AdminTrail; clock: Clock }) {}

  async execute(input: { email: string; planName: string; actor?: AdminActor }): Promise<AdminAccountView> {
    const user = await findAccount(this.deps.users, input.email);
    const plan = this.deps.plans.find(input.planName);
    if (!plan) {
      const names = this.deps.plans
        .all()
        .map((p) => p.name)
        .join(', ');
      throw new DomainError('PLAN_NOT_FOUND', `No plan named "${input.planName}". Plans: ${names}.`);
    }
    await this.deps.users.setPlan({ userId: user.id, planName: plan.name, trialEndsAt: null, at: this.deps.clock.now() });
    if (input.actor && (user.planName !== plan.name || user.trialEndsAt !== null)) {
      await this.deps.trail.record({
        actor: input.actor,
        action: 'update_account',
        target: user,
        before: { plan: user.planName, trial_ends_at: user.trialEndsAt?.toISOString() ?? null },
        after: { plan: plan.name, trial_ends_at: null },
      });
    }
    return this.deps.report.of(user.id);
  }
}
