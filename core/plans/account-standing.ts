import type { User } from '../accounts/user.js';
import { DomainError } from '../shared/errors.js';
import type { Plan, PlanCatalog } from './plan.js';

/**
 * Billing state shown in the profile (spec 2.8):
 * - `active`: paid access (`access_until` in the future), not canceled;
 * - `canceled`: canceled, but paid access runs until `access_until`;
 * - `trialing`: in the trial;
 * - `free`: a plan without trial end;
 * - `expired`: the trial ended and there is no paid access.
 */
export type SubscriptionStatus = 'active' | 'canceled' | 'trialing' | 'free' | 'expired';

/** Where an account stands at one instant: its plan, trial and whether it may change its files. */
export interface AccountStanding {
  plan: Plan;
  /** Null when the trial never ends (a plan without trial, or lifted by a plan change). */
  trialEndsAt: Date | null;
  /** True while a trial runs (before `trialEndsAt`); false after it, and for an account without trial end. */
  trialActive: boolean;
  accessUntil: Date | null;
  subscriptionCanceledAt: Date | null;
  status: SubscriptionStatus;
  /** Uploads and deletes are allowed: in the trial, without trial end, or with paid access (spec 8). */
  canWrite: boolean;
}

/** Computes an account's standing at `now`; its `plan` carries the account's own limits where an administrator set them. */
export function standingOf(user: User, plans: PlanCatalog, now: Date): AccountStanding {
  const trialActive = user.trialEndsAt !== null && now.getTime() < user.trialEndsAt.getTime();
  const paid = user.accessUntil !== null && now.getTime() < user.accessUntil.getTime();
  let status: SubscriptionStatus;
  if (paid) status = user.subscriptionCanceledAt === null ? 'active' : 'canceled';
  else if (user.trialEndsAt === null) status = 'free';
  else status = trialActive ? 'trialing' : 'expired';
  const planned = plans.planOf(user);
  // An administrator's limits for this account replace its plan's (docs/admin.md).
  const plan =
    user.storageLimitBytes === null && user.fileCountLimit === null
      ? planned
      : { ...planned, storageLimitBytes: user.storageLimitBytes ?? planned.storageLimitBytes, fileCountLimit: user.fileCountLimit ?? planned.fileCountLimit };
  return {
    plan,
    trialEndsAt: user.trialEndsAt,
    trialActive,
    accessUntil: user.accessUntil,
    subscriptionCanceledAt: user.subscriptionCanceledAt,
    status,
    canWrite: paid || trialActive || user.trialEndsAt === null,
  };
}

/**
 * Refuses changes to files once the trial has ended without paid access (spec 4.8, 4.11, 8).
 * @throws DomainError TRIAL_ENDED (403)
 */
export function requireWriteAccess(standing: AccountStanding): void {
  if (!standing.canWrite) {
    throw new DomainError('TRIAL_ENDED', 'The trial of this account has ended: uploads and deletes are paused until the plan is changed.', {
      trial_ends_at: standing.trialEndsAt?.toISOString() ?? null,
    });
  }
}
