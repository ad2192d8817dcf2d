import { type Kysely, sql } from 'kysely';
import type { InstanceCounts, InstanceStatistics } from '../../../core/admin/instance-statistics.js';
import { toMillis, toNumber } from './rows.js';
import type { HangarDatabase } from './schema.js';

/** A UTC day in ms. */
const DAY_MS = 86_400_000;

/**
 * {@link InstanceStatistics} over `users`, `account_totals` (one row per account, kept with every
 * file change) and, for the uploads per day, the files created since `since` grouped by UTC day
 * with their bytes (one aggregate over the recent rows of `files`; an admin's page, never a
 * per-request path).
 */
export class SqlInstanceStatistics implements InstanceStatistics {
  constructor(private readonly db: Kysely<HangarDatabase>) {}

  async counts(options: { since: Date; top: number }): Promise<InstanceCounts> {
    const count = (condition: ReturnType<typeof sql<number>>) => sql<number>`sum(case when ${condition} then 1 else 0 end)`;
    const [accounts, totals, days, top] = await Promise.all([
      this.db
        .selectFrom('users')
        .select((eb) => [
          eb.fn.countAll().as('total'),
          count(sql`suspended_at is null`).as('active'),
          count(sql`suspended_at is not null`).as('suspended'),
          count(sql`email_confirmed_at is null`).as('unconfirmed'),
          count(sql`role = 'admin'`).as('admins'),
        ])
        .executeTakeFirstOrThrow(),
      this.db
        .selectFrom('account_totals')
        .select((eb) => [
          eb.fn.coalesce(eb.fn.sum('files_count'), sql<number>`0`).as('files'),
          eb.fn.coalesce(eb.fn.sum('storage_bytes'), sql<number>`0`).as('bytes'),
        ])
        .executeTakeFirstOrThrow(),
      this.db
        .selectFrom('files')
        .where('created_at', '>=', toMillis(options.since))
        // The day length as a literal, not a parameter: Postgres matches the select's expression with the group's by its text.
        .select((eb) => [
          sql<number>`floor(created_at / ${sql.lit(DAY_MS)})`.as('bucket'),
          eb.fn.countAll().as('files'),
          eb.fn.coalesce(eb.fn.sum('size'), sql<number>`0`).as('bytes'),
        ])
        .groupBy(sql`floor(created_at / ${sql.lit(DAY_MS)})`)
        .execute(),
      this.db
        .selectFrom('account_totals')
        .innerJoin('users', 'users.id', 'account_totals.user_id')
        .select(['users.id', 'users.email', 'account_totals.storage_bytes', 'account_totals.files_count'])
        .orderBy('account_totals.storage_bytes', 'desc')
        .orderBy('users.id')
        .limit(options.top)
        .execute(),
    ]);
    return {
      accounts: {
        total: toNumber(accounts.total),
        active: toNumber(accounts.active ?? 0),
        suspended: toNumber(accounts.suspended ?? 0),
        unconfirmed: toNumber(accounts.unconfirmed ?? 0),
        admins: toNumber(accounts.admins ?? 0),
      },
      files: toNumber(totals.files),
      bytes: toNumber(totals.bytes),
      uploadsPerDay: days
        .map((d) => ({ day: new Date(toNumber(d.bucket) * DAY_MS).toISOString().slice(0, 10), files: toNumber(d.files as number), bytes: toNumber(d.bytes) }))
        .sort((a, b) => (a.day < b.day ? -1 : 1)),
      topAccounts: top.map((row) => ({ id: row.id, email: row.email, storageBytes: toNumber(row.storage_bytes), filesCount: toNumber(row.files_count) })),
    };
  }
}
