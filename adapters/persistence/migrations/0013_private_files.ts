import { type Kysely, sql } from 'kysely';

// Kysely<any>: a migration runs against the schema as it was when it was written, not today's HangarDatabase.

/**
 * 0013 (docs/private-files.md): `files.expires_at` (Unix ms, null: never), indexed for the expiry sweep, which
 * reads only the files that are due; `users.signing_key`, the per-account key of signed URLs
 * (null until the account signs its first URL; rotating it revokes every URL signed before);
 * `files.view_count` and `files.download_count`, the reads of each file (FileReadCounts flushes them).
 */

export async function sqlite(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('files').addColumn('expires_at', 'bigint').execute();
  await db.schema.createIndex('files_expires_at').on('files').column('expires_at').where(sql.ref('expires_at'), 'is not', null).execute();
  await db.schema.alterTable('users').addColumn('signing_key', 'text').execute();
  await db.schema.alterTable('files').addColumn('view_count', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('files').addColumn('download_count', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
}

/** The same statements as on SQLite. */
export async function postgres(db: Kysely<any>): Promise<void> {
  await sqlite(db);
}
