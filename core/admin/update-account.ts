import type { Role, User } from '../accounts/user.js';
import { ROLES } from '../accounts/user.js';
import type { UserRepository } from '../accounts/user-repository.js';
import type { PlanCatalog } from '../plans/plan.js';
import type { Clock } from '../shared/clock.js';
import { DomainError } from '../shared/errors.js';
import type { AdminAction, AdminActor } from './admin-audit.js';
import type { AdminTrail } from './admin-trail.js';
import { type AccountRef, accountOf, lastAdmin } from './admin-target.js';

/** The status of an account as administrators set it. */
export type AccountStatus = 'active' | 'suspended';

/** The changes {@link UpdateAccount} applies; an absent field stays as it is, null returns a limit to the plan's or the service default. */
export interface AccountChanges {
  /** A plan of the catalogue; a change lifts the trial end (as `users set-plan`). */
  plan?: string;
  status?: AccountStatus;
  role?: Role;
  /** Bytes, a whole number from 1; null: the service default (never above the plan's ceiling either way). */
  maxUploadSizeBytes?: number | null;
  /** Bytes, a whole number from 0; null: the plan's. */
  storageLimitBytes?: number | null;
  /** A whole number from 0; null: the plan's. */
  fileCountLimit?: number | null;
}

/**
 * Changes an account as an administrator (`PATCH /admin/users/:id`; the CLI's `users promote`,
 * `demote`, `suspend`, `reinstate`): plan, status, role and limits, then records one
 * audit entry with the changed fields before and after (action `promote`/`demote`, `suspend`/
 * `reinstate` when that is the only change, else `update_account`) and tells the account's activity
 * log. Fields that already hold the asked value are no change; with no change nothing is recorded.
 * Every field is written in one transaction (UserRepository.applyAdminChanges): all or nothing.
 * Suspension ends no session and deletes nothing: the account's credentials and files stop working
 * until it is reinstated (docs/admin.md). The last-admin rule is checked in that same transaction,
 * atomically across processes.
 * @returns the account after the change
 * @throws DomainError USER_NOT_FOUND (404), PLAN_NOT_FOUND (400), VALIDATION_FAILED (400) for a limit
 *   that is not a whole number in range or an unknown role or status, LAST_ADMIN (409)
 */
export class UpdateAccount {
  constructor(private readonly deps: { users: UserRepository; plans: PlanCatalog; trail: AdminTrail; clock: Clock }) {}

  async execute(input: { actor: AdminActor; account: AccountRef; changes: AccountChanges }): Promise<User> {
    const { users } = this.deps;
    const user = await accountOf(users, input.account);
    const changes = input.changes;
    check(changes, this.deps.plans);
    const before: Record<string, unknown> = {};
    const after: Record<string, unknown> = {};
    const note = (field: string, from: unknown, to: unknown): boolean => {
      if (from === to) return false;
      before[field] = from;
      after[field] = to;
      return true;
    };
    const currentStatus: AccountStatus = user.suspendedAt === null ? 'active' : 'suspended';
    const plan = changes.plan !== undefined && note('plan', user.planName, changes.plan);
    const status = changes.status !== undefined && note('status', currentStatus, changes.status);
    const role = changes.role !== undefined && note('role', user.role, changes.role);
    const upload = changes.maxUploadSizeBytes !== undefined && note('max_upload_size_bytes', user.maxUploadSizeBytes, changes.maxUploadSizeBytes);
    const storage = changes.storageLimitBytes !== undefined && note('storage_limit_bytes', user.storageLimitBytes, changes.storageLimitBytes);
    const count = changes.fileCountLimit !== undefined && note('file_count_limit', user.fileCountLimit, changes.fileCountLimit);
    if (Object.keys(after).length === 0) return user;
    const at = this.deps.clock.now();
    const outcome = await users.applyAdminChanges({
      userId: user.id,
      at,
      // Taking the account out of the active administrators: refused, atomically, when it is the last one.
      keepAnAdmin: (status && changes.status === 'suspended') || (role && changes.role === 'user'),
      changes: {
        ...(plan && { planName: changes.plan!, trialEndsAt: null }),
        ...(status && { suspendedAt: changes.status === 'suspended' ? at : null }),
        ...(role && { role: changes.role! }),
        ...(upload && { maxUploadSizeBytes: changes.maxUploadSizeBytes! }),
        ...(storage && { storageLimitBytes: changes.storageLimitBytes! }),
        ...(count && { fileCountLimit: changes.fileCountLimit! }),
      },
    });
    if (outcome === 'last_admin') lastAdmin(user);
    if (outcome === 'not_found') throw new DomainError('USER_NOT_FOUND', 'No account with this id.');
    await this.deps.trail.record({ actor: input.actor, action: actionOf(after), target: user, before, after });
    return (await users.findById(user.id)) ?? user;
  }
}

/** The audit action of a change: the named one when only the role or only the status changed. */
function actionOf(after: Record<string, unknown>): AdminAction {
  const fields = Object.keys(after);
  if (fields.length === 1 && fields[0] === 'role') return after.role === 'admin' ? 'promote' : 'demote';
  if (fields.length === 1 && fields[0] === 'status') return after.status === 'suspended' ? 'suspend' : 'reinstate';
  return 'update_account';
}

/** @throws DomainError PLAN_NOT_FOUND, VALIDATION_FAILED */
function check(changes: AccountChanges, plans: PlanCatalog): void {
  if (changes.plan !== undefined && !plans.find(changes.plan)) {
    throw new DomainError(
      'PLAN_NOT_FOUND',
      `No plan named "${changes.plan}". Plans: ${plans
        .all()
        .map((p) => p.name)
        .join(', ')}.`,
    );
  }
  if (changes.status !== undefined && changes.status !== 'active' && changes.status !== 'suspended') invalid('status', 'Expected "active" or "suspended"');
  if (changes.role !== undefined && !(ROLES as readonly string[]).includes(changes.role)) invalid('role', `Expected one of ${ROLES.join(', ')}`);
  wholeOrNull(changes.maxUploadSizeBytes, 'max_upload_size_bytes', 1);
  wholeOrNull(changes.storageLimitBytes, 'storage_limit_bytes', 0);
  wholeOrNull(changes.fileCountLimit, 'file_count_limit', 0);
}

function wholeOrNull(value: number | null | undefined, field: string, minimum: number): void {
  if (value === undefined || value === null) return;
  if (!Number.isSafeInteger(value) || value < minimum) invalid(field, `Expected a whole number from ${minimum}, or null`);
}

function invalid(field: string, message: string): never {
  throw new DomainError('VALIDATION_FAILED', `${field}: ${message}.`, [{ path: `/${field}`, message }]);
}
