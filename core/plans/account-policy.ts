import type { User } from '../accounts/user.js';
import type { UserRepository } from '../accounts/user-repository.js';
import type { Clock } from '../shared/clock.js';
import { DomainError } from '../shared/errors.js';
import { type AccountStanding, standingOf } from './account-standing.js';
import type { PlanCatalog } from './plan.js';

/** An account as the rules see it at one instant. */
export interface AccountView {
  user: User;
  standing: AccountStanding;
  /** The account's effective upload limit in bytes: its own setting (or the service default), never above the plan's ceiling. */
  uploadLimitBytes: number;
}

/**
 * Loads an account with its plan and standing; shared by the use cases that apply plan rules.
 * Not a use case.
 */
export class AccountPolicy {
  constructor(private readonly deps: { users: UserRepository; plans: PlanCatalog; clock: Clock; options: { defaultMaxUploadSizeBytes: number } }) {}

  /** @throws DomainError UNAUTHORIZED (401) when the account no longer exists */
  async view(userId: string): Promise<AccountView> {
    const user = await this.deps.users.findById(userId);
    if (!user) throw new DomainError('UNAUTHORIZED', 'The account no longer exists.');
    const standing = standingOf(user, this.deps.plans, this.deps.clock.now());
    const wanted = user.maxUploadSizeBytes ?? this.deps.options.defaultMaxUploadSizeBytes;
    return { user, standing, uploadLimitBytes: Math.min(wanted, standing.plan.maxUploadSizeBytes) };
  }
}
