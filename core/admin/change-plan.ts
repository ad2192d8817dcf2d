import type { UserRepository } from '../accounts/user-repository.js';
import type { PlanCatalog } from '../plans/plan.js';
import type { Clock } from '../shared/clock.js';
import { DomainError } from '../shared/errors.js';
import type { AccountReport, AdminAccountView } from './account-report.js';
import { findAccount } from './find-account.js';

/**
 * Moves an account to another plan (`users set-plan`). A plan change lifts the trial end: the
 * account was chosen for this plan, so its trial no longer applies.
 * @throws DomainError USER_NOT_FOUND (404), PLAN_NOT_FOUND (400)
 */
export class ChangePlan {
  constructor(private readonly deps: { users: UserRepository; plans: PlanCatalog; report: AccountReport; clock: Clock }) {}

  async execute(input: { email: string; planName: string }): Promise<AdminAccountView> {
    const user = await findAccount(this.deps.users, input.email);
    const plan = this.deps.plans.find(input.planName);
    if (!plan) {
      const names = this.deps.plans.all().map((p) => p.name).join(', ');
      throw new DomainError('PLAN_NOT_FOUND', `No plan named "${input.planName}". Plans: ${names}.`);
    }
    await this.deps.users.setPlan({ userId: user.id, planName: plan.name, trialEndsAt: null, at: this.deps.clock.now() });
    return this.deps.report.of(user.id);
  }
}
