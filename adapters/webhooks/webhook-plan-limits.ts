import { type Kysely, sql } from 'kysely';

/** The limits of one plan, as the configuration gives them (core/plans/plan.ts). */
export interface PlanLimits {
  name: string;
  /** Bytes. */
  storageLimitBytes: number;
  fileCountLimit: number;
}

/**
 * Writes each plan's limits to `webhook_plan_limits` (migration 0044), where the quota trigger on
 * `account_totals` reads them to send `quota.warning` and `quota.reached` (docs/webhooks.md); the
 * default plan is written a second time under the name `''`, the plan of accounts whose plan has no
 * row. Run at every start (the plans come from the configuration, which the database cannot read):
 * rows are upserted, then plans no longer configured removed, so processes starting at once agree.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- webhook_plan_limits is read only by SQL triggers, so HangarDatabase does not declare it
export async function writeWebhookPlanLimits(db: Kysely<any>, options: { plans: readonly PlanLimits[]; defaultPlan: string }): Promise<void> {
  const fallback = options.plans.find((plan) => plan.name === options.defaultPlan);
  const rows = [...options.plans, ...(fallback ? [{ ...fallback, name: '' }] : [])];
  await db.transaction().execute(async (trx) => {
    for (const plan of rows) {
      await sql`insert into webhook_plan_limits (plan_name, storage_bytes, files) values (${plan.name}, ${plan.storageLimitBytes}, ${plan.fileCountLimit})
                on conflict (plan_name) do update set storage_bytes = excluded.storage_bytes, files = excluded.files`.execute(trx);
    }
    const names = rows.map((plan) => plan.name);
    await sql`delete from webhook_plan_limits where plan_name not in (${sql.join(names)})`.execute(trx);
  });
}
