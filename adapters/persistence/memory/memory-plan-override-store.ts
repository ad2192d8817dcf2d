import type { Plan } from '../../../core/plans/plan.js';
import type { PlanOverrideStore } from '../../../core/plans/plan-override-store.js';

/** {@link PlanOverrideStore} held in process memory: the test double and the embedding default. */
export class MemoryPlanOverrideStore implements PlanOverrideStore {
  private readonly plans = new Map<string, Plan>();
  private changes = 0;

  async list(): Promise<Plan[]> {
    return [...this.plans.values()].sort((a, b) => (a.name < b.name ? -1 : 1)).map((plan) => ({ ...plan }));
  }

  async save(options: { plan: Plan; at: Date }): Promise<void> {
    this.plans.set(options.plan.name, { ...options.plan, imageOpsLimit: options.plan.imageOpsLimit ?? null });
    this.changes++;
  }

  async stamp(): Promise<string> {
    return String(this.changes);
  }
}
