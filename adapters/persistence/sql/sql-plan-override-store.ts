import { type Kysely, sql } from 'kysely';
import type { Plan } from '../../../core/plans/plan.js';
import type { PlanOverrideStore } from '../../../core/plans/plan-override-store.js';
import { toMillis, toNumber } from './rows.js';
import type { HangarDatabase } from './schema.js';

/** The stored form of a plan: snake_case JSON, like PLANS_FILE. */
interface StoredPlan {
  trial_days: number | null;
  storage_limit_bytes: number;
  file_count_limit: number;
  max_upload_size_bytes: number;
  image_ops_limit: number | null;
}

/**
 * {@link PlanOverrideStore} over `plan_overrides` (migration 0045): a save is one upsert that moves
 * the row's `updated_at` strictly forward (to now, or one past its value when the clocks of two
 * processes disagree), so the stamp, the number of rows and the sum of `updated_at`, changes with
 * every save; it is one aggregate over a table of a few rows, cheap enough to read each second.
 */
export class SqlPlanOverrideStore implements PlanOverrideStore {
  constructor(private readonly db: Kysely<HangarDatabase>) {}

  async list(): Promise<Plan[]> {
    const rows = await this.db.selectFrom('plan_overrides').selectAll().orderBy('name').execute();
    return rows.map((row) => {
      const stored = JSON.parse(row.definition) as StoredPlan;
      return {
        name: row.name,
        trialDays: stored.trial_days,
        storageLimitBytes: stored.storage_limit_bytes,
        fileCountLimit: stored.file_count_limit,
        maxUploadSizeBytes: stored.max_upload_size_bytes,
        imageOpsLimit: stored.image_ops_limit,
      };
    });
  }

  async save(options: { plan: Plan; at: Date }): Promise<void> {
    const { plan } = options;
    const stored: StoredPlan = {
      trial_days: plan.trialDays,
      storage_limit_bytes: plan.storageLimitBytes,
      file_count_limit: plan.fileCountLimit,
      max_upload_size_bytes: plan.maxUploadSizeBytes,
      image_ops_limit: plan.imageOpsLimit ?? null,
    };
    const definition = JSON.stringify(stored);
    const at = toMillis(options.at);
    await this.db
      .insertInto('plan_overrides')
      .values({ name: plan.name, definition, updated_at: at })
      .onConflict((conflict) =>
        conflict.column('name').doUpdateSet({
          definition,
          updated_at: sql<number>`case when plan_overrides.updated_at >= ${at} then plan_overrides.updated_at + 1 else ${at} end`,
        }),
      )
      .execute();
  }

  async stamp(): Promise<string> {
    const row = await this.db
      .selectFrom('plan_overrides')
      .select((eb) => [eb.fn.countAll().as('count'), eb.fn.sum('updated_at').as('sum')])
      .executeTakeFirstOrThrow();
    return `${toNumber(row.count)}:${row.sum === null ? 0 : String(row.sum)}`;
  }
}
