import { DAY_MS } from '../shared/time.js';

/**
 * What an account may do (spec 1, 8): a trial length and limits. Plans come from `PLANS_FILE` or
 * the built-in default plan; accounts refer to theirs by `name`.
 */
export interface Plan {
  name: string;
  /** Days from sign-up until the trial ends; 0 ends it at sign-up; null means no trial end. */
  trialDays: number | null;
  /** Bytes the account may store in all. */
  storageLimitBytes: number;
  /** Files the account may hold at once. */
  fileCountLimit: number;
  /** Ceiling, in bytes, of the `max_upload_size_bytes` the account may set (spec 4.14). */
  maxUploadSizeBytes: number;
  /**
   * Image transformations (`image_ops`, spec 2.6) the account may compute per billing period;
   * null or absent means unlimited (docs/images.md).
   */
  imageOpsLimit?: number | null;
}

/** The plans on offer and the one new accounts get. */
export interface PlanOptions {
  plans: readonly Plan[];
  /** Name of the plan of new accounts (`DEFAULT_PLAN`); must be one of `plans`. */
  defaultPlan: string;
}

/** Name of the built-in plan used when no `PLANS_FILE` is given. */
export const BUILT_IN_PLAN_NAME = 'default';

/**
 * The plans, looked up by name: those of the configuration (`PLANS_FILE` or the built-in plan),
 * replaced or joined by the plans administrators set ({@link applyOverrides}, kept in the database
 * and reloaded by every process: core/plans/plan-overrides.ts).
 */
export class PlanCatalog {
  private readonly configured: readonly Plan[];
  private byName: ReadonlyMap<string, Plan>;
  private readonly defaultPlanName: string;

  /** @throws Error when the default plan is not among the plans or a name repeats (a configuration bug) */
  constructor(options: PlanOptions) {
    this.configured = [...options.plans];
    this.byName = new Map(options.plans.map((plan) => [plan.name, plan]));
    if (this.byName.size !== options.plans.length) throw new Error('Plan names must be unique.');
    if (!this.byName.has(options.defaultPlan)) throw new Error(`The default plan "${options.defaultPlan}" is not defined.`);
    this.defaultPlanName = options.defaultPlan;
  }

  /** The plan of new accounts (`DEFAULT_PLAN`), as it stands now. */
  get defaultPlan(): Plan {
    return this.byName.get(this.defaultPlanName)!;
  }

  /**
   * Replaces the administrators' plans by `overrides`: each replaces the configured plan of its
   * name, or joins the catalogue after them; a configured plan without override is as configured.
   */
  applyOverrides(overrides: readonly Plan[]): void {
    const plans = new Map(this.configured.map((plan) => [plan.name, plan]));
    for (const plan of overrides) plans.set(plan.name, plan);
    this.byName = plans;
  }

  /** Whether `name` is a plan of the configuration (not only an administrator's). */
  isConfigured(name: string): boolean {
    return this.configured.some((plan) => plan.name === name);
  }

  /** The plan called `name`, or undefined. */
  find(name: string): Plan | undefined {
    return this.byName.get(name);
  }

  /** The plan of an account: its own, or the default plan when its plan was removed from the catalogue. */
  planOf(account: { planName: string }): Plan {
    return this.byName.get(account.planName) ?? this.defaultPlan;
  }

  /** Every plan, in catalogue order. */
  all(): Plan[] {
    return [...this.byName.values()];
  }

  /** When a trial that starts at `start` ends under `plan`; null for a plan without trial end. */
  static trialEnd(plan: Plan, start: Date): Date | null {
    return plan.trialDays === null ? null : new Date(start.getTime() + plan.trialDays * DAY_MS);
  }
}
