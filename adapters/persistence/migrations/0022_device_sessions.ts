import { type Kysely, sql } from 'kysely';

// Kysely<any>: a migration runs against the schema as it was when it was written, not today's HangarDatabase.

/**
 * 0022 (docs/account-security.md): device sessions. `sessions.last_used_at` (Unix ms; existing rows
 * take their `created_at`), indexed for the idle sweep; `user_agent` and `ip` of the request that
 * opened the session.
 */

export async function sqlite(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('sessions').addColumn('last_used_at', 'bigint').execute();
  await db.schema.alterTable('sessions').addColumn('user_agent', 'text').execute();
  await db.schema.alterTable('sessions').addColumn('ip', 'text').execute();
  await db.updateTable('sessions').set({ last_used_at: sql.ref('created_at') }).execute();
  await db.schema.createIndex('sessions_live_last_used_at').on('sessions').column('last_used_at').where(sql.ref('revoked_at'), 'is', null).execute();
}

/** The same statements as on SQLite. */
export async function postgres(db: Kysely<any>): Promise<void> {
  await sqlite(db);
}
