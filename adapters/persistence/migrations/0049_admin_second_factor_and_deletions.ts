import { type Kysely, sql } from 'kysely';

// Kysely<any>: a migration runs against the schema as it was when it was written, not today's HangarDatabase.
 

/**
 * 0049: what the operator console (docs/admin.md) needs to hold across processes and restarts.
 *
 * - `sessions.second_factor_at` (Unix ms): when the session proved a second factor (a sign-in that
 *   passed TOTP or a recovery code, a passkey sign-in, or the enrolment of a factor by the session).
 *   Null for every other session, existing ones included: the admin routes refuse such a session of
 *   an account that has a factor now.
 * - `account_deletions`: one row per account an administrator is deleting in the background (more
 *   than one step of files), with who asked (for the audit entry written once the account is gone),
 *   the files deleted so far, and the lease of the process running it (`lease_owner`, `lease_until`
 *   in Unix ms; 0 when free). Any process claims a row whose lease has lapsed and goes on, so a
 *   deletion resumes by itself after a crash or a restart. No foreign key: the row outlives the
 *   account until the audit entry is written. `account_deletions_lease` finds the lapsed ones.
 * - Postgres: a statement trigger on `plan_overrides` sends `{"kind":"plans"}` on the change feed's
 *   channel, in the transaction of the change, so every process reloads the plans as soon as it
 *   commits. SQLite's feed reports every commit already (through the WAL index).
 */
async function both(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('sessions').addColumn('second_factor_at', 'bigint').execute();
  await db.schema
    .createTable('account_deletions')
    .addColumn('user_id', 'text', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('requested_at', 'bigint', (c) => c.notNull())
    .addColumn('actor_id', 'text')
    .addColumn('actor_email', 'text', (c) => c.notNull())
    .addColumn('actor_client', 'text')
    .addColumn('files_deleted', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('lease_owner', 'text')
    .addColumn('lease_until', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('account_deletions_lease').on('account_deletions').column('lease_until').execute();
}

/** SQLite: the column and the table. */
export async function sqlite(db: Kysely<any>): Promise<void> {
  await both(db);
}

/** Postgres: the column, the table, and the trigger that announces plan changes. */
export async function postgres(db: Kysely<any>): Promise<void> {
  await both(db);
  await sql`
    create function hangar_notify_plans() returns trigger language plpgsql as $$
      begin
        perform pg_notify(left('hangar:' || tg_table_schema, 63), '{"kind":"plans"}');
        return null;
      end
    $$`.execute(db);
  await sql`create trigger plan_overrides_changes after insert or update or delete on plan_overrides for each statement execute function hangar_notify_plans()`.execute(db);
}
