import type { AdminActor } from '../admin/admin-audit.js';
import type { AdminTrail } from '../admin/admin-trail.js';
import { type ChangeFeed, NO_OTHER_PROCESSES } from '../shared/change-feed.js';
import type { Clock } from '../shared/clock.js';
import { DomainError } from '../shared/errors.js';
import type { Plan, PlanCatalog } from './plan.js';
import type { PlanOverrideStore } from './plan-override-store.js';

/**
 * How often each process checks the stored plans whatever the change feed says, in ms: the backstop
 * for a host whose feed hears no other process (an embedded core on a shared database).
 */
export const PLAN_SYNC_INTERVAL_MS = 1_000;

/**
 * Brings this process's {@link PlanCatalog} up to date with the stored plans: reads the store's
 * stamp (one small indexed query) and reloads the plans only when it changed. HangarRuntime runs
 * it when the change feed reports a change that may concern the plans ({@link watch}: Postgres's
 * `plans` notification a few ms after the commit; SQLite's `everything`, seen by {@link catchUp}
 * which the runtime calls every PLAN_CATCH_UP_MS), and every {@link PLAN_SYNC_INTERVAL_MS} besides.
 */
export class SyncPlans {
  private lastStamp: string | undefined;
  private readonly changes: ChangeFeed;

  /** @param deps.changes what other processes commit (default: nothing, for a core alone on its database) */
  constructor(private readonly deps: { store: PlanOverrideStore; plans: PlanCatalog; changes?: ChangeFeed }) {
    this.changes = deps.changes ?? NO_OTHER_PROCESSES;
  }

  /**
   * Calls `listener` for every change the feed delivers that may concern the plans: `plans`, or
   * `everything` (a feed that does not itemise, or missed changes). @returns the function that stops it
   */
  watch(listener: () => void): () => void {
    return this.changes.subscribe((change) => {
      if (change.kind === 'plans' || change.kind === 'everything') listener();
    });
  }

  /**
   * Asks the feed to deliver what was committed since it last looked (ChangeFeed.catchUp): a feed
   * that is asked rather than told (SQLite's) reports commits through it. Never rejects.
   */
  catchUp(): Promise<void> {
    return this.changes.catchUp() ?? Promise.resolve();
  }

  /** @returns whether the plans were reloaded */
  async execute(): Promise<boolean> {
    const stamp = await this.deps.store.stamp();
    if (stamp === this.lastStamp) return false;
    this.deps.plans.applyOverrides(await this.deps.store.list());
    this.lastStamp = stamp;
    return true;
  }
}

/** Largest limit a plan may set: bytes, files and operations are whole numbers below 2^53. */
const MAX_LIMIT = Number.MAX_SAFE_INTEGER;
/** Longest plan name, in characters. */
export const MAX_PLAN_NAME_LENGTH = 100;

/**
 * Sets a plan as an administrator (`PUT /admin/plans/:name`, `plans set`): replaces the plan of
 * that name (from the plans file or set before) or adds a new one, stores it for every process
 * (applied here at once, on the others as soon as the change feed tells them (SyncPlans): every account on the
 * plan gets its limits from then on), and records the change in the audit log with the plan before
 * and after. Trials already running keep their end: a plan's `trialDays` counts from sign-up.
 * @returns the plan as stored
 * @throws DomainError VALIDATION_FAILED (400) for an empty or too long name, or a limit that is not a whole number in range
 */
export class SetPlan {
  constructor(private readonly deps: { store: PlanOverrideStore; plans: PlanCatalog; sync: SyncPlans; trail: AdminTrail; clock: Clock }) {}

  async execute(input: { actor: AdminActor; plan: Plan }): Promise<Plan> {
    const plan = checked(input.plan);
    const before = this.deps.plans.find(plan.name);
    await this.deps.store.save({ plan, at: this.deps.clock.now() });
    await this.deps.sync.execute();
    await this.deps.trail.record({ actor: input.actor, action: 'update_plan', before: before ? planFields(before) : undefined, after: planFields(plan) });
    return plan;
  }
}

/** A plan's fields as the audit log and the API show them (snake_case). */
export function planFields(plan: Plan): Record<string, unknown> {
  return {
    name: plan.name,
    trial_days: plan.trialDays,
    storage_limit_bytes: plan.storageLimitBytes,
    file_count_limit: plan.fileCountLimit,
    max_upload_size_bytes: plan.maxUploadSizeBytes,
    image_ops_limit: plan.imageOpsLimit ?? null,
  };
}

/** @throws DomainError VALIDATION_FAILED */
function checked(plan: Plan): Plan {
  const name = plan.name.trim();
  if (name === '' || name.length > MAX_PLAN_NAME_LENGTH) invalid('name', `Expected 1 to ${MAX_PLAN_NAME_LENGTH} characters`);
  const whole = (value: number | null | undefined, field: string, min: number, nullable: boolean) => {
    if ((value === null || value === undefined) && nullable) return;
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > MAX_LIMIT)
      invalid(field, `Expected a whole number from ${min}${nullable ? ', or null' : ''}`);
  };
  whole(plan.trialDays, 'trial_days', 0, true);
  whole(plan.storageLimitBytes, 'storage_limit_bytes', 0, false);
  whole(plan.fileCountLimit, 'file_count_limit', 0, false);
  whole(plan.maxUploadSizeBytes, 'max_upload_size_bytes', 1, false);
  whole(plan.imageOpsLimit, 'image_ops_limit', 0, true);
  return { ...plan, name, imageOpsLimit: plan.imageOpsLimit ?? null };
}

function invalid(field: string, message: string): never {
  throw new DomainError('VALIDATION_FAILED', `${field}: ${message}.`, [{ path: `/${field}`, message }]);
}
