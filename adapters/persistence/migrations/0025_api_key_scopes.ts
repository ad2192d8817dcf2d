import { type Kysely } from 'kysely';

// Kysely<any>: a migration runs against the schema as it was when it was written, not today's HangarDatabase.

/**
 * 0025 (docs/api-keys.md): `api_keys.scopes`, what a key may do as a space-separated list (as
 * OAuth's `scope`, RFC 6749 §3.3), every scope for the keys that exist; `api_keys.expires_at` (Unix
 * ms; null: never). Both are fixed at creation and read with the key on every request, through the
 * cached lookup by hash, so no index is needed.
 */

export async function sqlite(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('api_keys').addColumn('scopes', 'text', (c) => c.notNull().defaultTo('files:read files:write files:delete account:read')).execute();
  await db.schema.alterTable('api_keys').addColumn('expires_at', 'bigint').execute();
}

/** The same statements as on SQLite. */
export async function postgres(db: Kysely<any>): Promise<void> {
  await sqlite(db);
}
