import { type Kysely } from 'kysely';

// Kysely<any>: a migration runs against the schema as it was when it was written, not today's HangarDatabase.

/**
 * 0029: single sign-on (OIDC). `oidc_identities` links an account to a person at an OpenID
 * provider, unique by `(issuer, subject)`, removed with the account. `oidc_flows` holds a sign-in
 * between the redirect to the provider and its callback, by the SHA-256 of its `state`: the nonce
 * and PKCE verifier (secrets for ten minutes, deleted when used or purged) and the SHA-256 of an
 * invite token passed along. `oidc_sign_in_codes` holds the single-use hand-over codes (by SHA-256) that the
 * dashboard exchanges for a session, for a minute. Both are found for purging by `expires_at`.
 */

export async function sqlite(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('oidc_identities')
    .addColumn('issuer', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('email', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('oidc_identities_pkey', ['issuer', 'subject'])
    .execute();
  await db.schema.createIndex('oidc_identities_user_id').on('oidc_identities').column('user_id').execute();
  await db.schema
    .createTable('oidc_flows')
    .addColumn('state_hash', 'text', (c) => c.primaryKey().notNull())
    .addColumn('nonce', 'text', (c) => c.notNull())
    .addColumn('code_verifier', 'text', (c) => c.notNull())
    .addColumn('invite_hash', 'text')
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('oidc_flows_expires_at').on('oidc_flows').column('expires_at').execute();
  await db.schema
    .createTable('oidc_sign_in_codes')
    .addColumn('code_hash', 'text', (c) => c.primaryKey().notNull())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('oidc_sign_in_codes_expires_at').on('oidc_sign_in_codes').column('expires_at').execute();
}

/** The same statements as on SQLite. */
export async function postgres(db: Kysely<any>): Promise<void> {
  await sqlite(db);
}
