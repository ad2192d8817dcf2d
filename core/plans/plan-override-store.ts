import type { Plan } from './plan.js';

/** Port: the plans administrators set, shared by every process on the database (docs/admin.md, "Plans"). */
export interface PlanOverrideStore {
  /** Every stored plan, by name ascending. */
  list(): Promise<Plan[]>;
  /** Stores `plan`, replacing the stored plan of its name. */
  save(options: { plan: Plan; at: Date }): Promise<void>;
  /**
   * A stamp that changes whenever a plan is saved (the number of plans and the last change time):
   * a process compares it once a second and reloads the plans only when it changed.
   */
  stamp(): Promise<string>;
}
