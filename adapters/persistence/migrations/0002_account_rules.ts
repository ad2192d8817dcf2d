import { type Kysely, sql } from 'kysely';

// Kysely<any>: a migration runs against the schema as it was when it was written, not today's HangarDatabase.

/**
 * 0002: account rules (plans, trial, quotas, usage, activity logs). Accounts that exist already
 * get plan '' (the default plan: an unknown name falls back to it) and no trial end, and their
 * files are counted into `account_totals`, so quotas hold from the first upload after the upgrade.
 */

export async function sqlite(db: Kysely<any>): Promise<void> {
  // One column per statement: SQLite's ALTER TABLE adds one column at a time.
  await db.schema.alterTable('users').addColumn('plan_name', 'text', (c) => c.notNull().defaultTo('')).execute();
  await db.schema.alterTable('users').addColumn('trial_ends_at', 'bigint').execute();
  await db.schema.alterTable('users').addColumn('access_until', 'bigint').execute();
  await db.schema.alterTable('users').addColumn('subscription_canceled_at', 'bigint').execute();
  await db.schema.createIndex('users_created_at_id').on('users').columns(['created_at', 'id']).execute();

  await db.schema
    .createTable('account_totals')
    .addColumn('user_id', 'text', (c) => c.primaryKey().notNull().references('users.id').onDelete('cascade'))
    .addColumn('storage_bytes', 'bigint', (c) => c.notNull())
    .addColumn('files_count', 'bigint', (c) => c.notNull())
    .execute();
  await sql`
      insert into account_totals (user_id, storage_bytes, files_count)
      select user_id, sum(size), count(*) from files group by user_id
    `.execute(db);

  await db.schema
    .createTable('usage_periods')
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('period_start', 'bigint', (c) => c.notNull())
    .addColumn('origin_reads', 'bigint', (c) => c.notNull())
    .addColumn('image_ops', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('usage_periods_pkey', ['user_id', 'period_start'])
    .execute();

  await db.schema
    .createTable('activity_logs')
    .addColumn('id', 'text', (c) => c.primaryKey().notNull())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('status_code', 'integer', (c) => c.notNull())
    .addColumn('request_size_bytes', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('metadata', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('activity_logs_user_id_created_at_id').on('activity_logs').columns(['user_id', 'created_at', 'id']).execute();
  // For pruning by age (deleteBefore), across accounts.
  await db.schema.createIndex('activity_logs_created_at').on('activity_logs').column('created_at').execute();
}

/** The same statements as on SQLite. */
export async function postgres(db: Kysely<any>): Promise<void> {
  await sqlite(db);
}
