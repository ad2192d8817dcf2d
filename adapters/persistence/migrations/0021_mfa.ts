import { type Kysely } from 'kysely';

// Kysely<any>: a migration runs against the schema as it was when it was written, not today's HangarDatabase.

/**
 * 0021 (docs/account-security.md): `totp_factors` (one per account, the secret sealed, the last
 * accepted time step for replay refusal), `recovery_codes` (SHA-256 of each one-time code, by
 * account) and `mfa_challenges` (pending two-step sign-ins by token hash, found by expiry for the
 * purge). Every row goes with its account.
 */

export async function sqlite(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('totp_factors')
    .addColumn('user_id', 'text', (c) => c.primaryKey().notNull().references('users.id').onDelete('cascade'))
    .addColumn('sealed_secret', 'text', (c) => c.notNull())
    .addColumn('confirmed_at', 'bigint')
    .addColumn('last_time_step', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('recovery_codes')
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('code_hash', 'text', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .addPrimaryKeyConstraint('recovery_codes_pkey', ['user_id', 'code_hash'])
    .execute();
  await db.schema
    .createTable('mfa_challenges')
    .addColumn('token_hash', 'text', (c) => c.primaryKey().notNull())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('mfa_challenges_expires_at').on('mfa_challenges').column('expires_at').execute();
  await db.schema.createIndex('mfa_challenges_user_id').on('mfa_challenges').column('user_id').execute();
}

/** The same statements as on SQLite. */
export async function postgres(db: Kysely<any>): Promise<void> {
  await sqlite(db);
}
