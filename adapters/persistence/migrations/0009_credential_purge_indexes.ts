import { type Kysely } from 'kysely';

// Kysely<any>: a migration runs against the schema as it was when it was written, not today's HangarDatabase.

/**
 * 0009: indexes for purging spent credentials (PurgeCredentials, run hourly): expired one-time
 * tokens by `expires_at`, revoked sessions by `revoked_at`, rotated refresh tokens by `rotated_at`,
 * so that each purge reads only what it removes instead of scanning tables that grow with every
 * login and token refresh.
 */

export async function sqlite(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('one_time_tokens_expires_at').on('one_time_tokens').column('expires_at').execute();
  await db.schema.createIndex('sessions_revoked_at').on('sessions').column('revoked_at').execute();
  await db.schema.createIndex('refresh_tokens_rotated_at').on('refresh_tokens').column('rotated_at').execute();
}

/** The same statements as on SQLite. */
export async function postgres(db: Kysely<any>): Promise<void> {
  await sqlite(db);
}
