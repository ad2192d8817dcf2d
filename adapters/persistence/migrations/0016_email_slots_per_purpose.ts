import { type Kysely } from 'kysely';

// Kysely<any>: a migration runs against the schema as it was when it was written, not today's HangarDatabase.

/** 0016: `users.last_reset_email_sent_at`, the password reset e-mail's own one-per-minute slot, apart from the confirmation e-mail's (`last_email_sent_at`). */

export async function sqlite(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').addColumn('last_reset_email_sent_at', 'bigint').execute();
}

/** The same statements as on SQLite. */
export async function postgres(db: Kysely<any>): Promise<void> {
  await sqlite(db);
}
