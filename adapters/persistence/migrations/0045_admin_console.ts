import { type Kysely, sql } from 'kysely';

/**
 * The operator console (docs/admin.md): every account gets a `role` (`user` or `admin`, default
 * `user`), a `suspended_at` (Unix ms; null while the account is active) and its own limits set by
 * an administrator, `storage_limit_bytes` and `file_count_limit` (null: the plan's), and the table
 * `admin_audit` keeps one row per administrator action (who, when, what, on which account, from
 * which address, the values before and after as JSON text), listed newest first and pruned by age.
 * The table `plan_overrides` holds the plans administrators set (`PUT /admin/plans/:name`), one row
 * per plan name with its definition as JSON text, over those of the plans file; every process
 * reloads it when its `(count, max(updated_at))` changes.
 * Both dialects share the statements: the columns are plain additions with defaults, so existing
 * accounts become active users, and Postgres' existing row trigger on `users` announces changes of
 * the new columns like any other change of the row.
 */
async function both(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').addColumn('role', 'text', (c) => c.notNull().defaultTo('user')).execute();
  await db.schema.alterTable('users').addColumn('suspended_at', 'bigint').execute();
  await db.schema.alterTable('users').addColumn('storage_limit_bytes', 'bigint').execute();
  await db.schema.alterTable('users').addColumn('file_count_limit', 'bigint').execute();
  await db.schema
    .createTable('admin_audit')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('actor_id', 'text')
    .addColumn('actor_email', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('target_id', 'text')
    .addColumn('target_email', 'text')
    .addColumn('client', 'text')
    .addColumn('before_json', 'text')
    .addColumn('after_json', 'text')
    .execute();
  await db.schema.createIndex('admin_audit_created_at').on('admin_audit').columns(['created_at', 'id']).execute();
  await db.schema.createIndex('admin_audit_target').on('admin_audit').columns(['target_id', 'created_at']).execute();
  await db.schema
    .createTable('plan_overrides')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('definition', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  // Counting administrators (the last-admin rule) reads this index only.
  await sql`create index users_admins on users (role) where role = 'admin'`.execute(db);
}

/** SQLite: the columns, the audit table and its indexes. */
export async function sqlite(db: Kysely<any>): Promise<void> {
  await both(db);
}

/** Postgres: the same statements as SQLite. */
export async function postgres(db: Kysely<any>): Promise<void> {
  await both(db);
}
