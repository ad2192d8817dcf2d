import { type Kysely } from 'kysely';

// Kysely<any>: a migration runs against the schema as it was when it was written, not today's HangarDatabase.

/**
 * 0024: `passkey_challenges`, the WebAuthn challenges handed out and not yet answered
 * (core/passkeys/passkey-challenge-repository.ts): taken by primary key, purged by expiry.
 * `user_id` is the registering account (removed with it), null for a sign-in.
 */

export async function sqlite(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('passkey_challenges')
    .addColumn('challenge', 'text', (c) => c.primaryKey().notNull())
    .addColumn('ceremony', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.references('users.id').onDelete('cascade'))
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('passkey_challenges_expires_at').on('passkey_challenges').column('expires_at').execute();
}

/** The same statements as on SQLite. */
export async function postgres(db: Kysely<any>): Promise<void> {
  await sqlite(db);
}
