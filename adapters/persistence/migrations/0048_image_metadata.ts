import type { Kysely } from 'kysely';

// Kysely<any>: a migration runs against the schema as it was when it was written, not today's HangarDatabase.
 

/**
 * 0048: image metadata removal (issue #63, docs/image-metadata.md). `users.image_metadata` is the
 * account's setting, `strip_location` (the default, which every existing account gets), `strip_all`
 * or `keep`; `files.metadata_removed` is what an upload took out of an image, a comma list of
 * `location`, `exif`, `xmp`, `iptc`, `comment`, null when nothing (every file stored before this).
 */
export async function sqlite(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').addColumn('image_metadata', 'text', (c) => c.notNull().defaultTo('strip_location')).execute();
  await db.schema.alterTable('files').addColumn('metadata_removed', 'text').execute();
}

/** The same statements as on SQLite. */
export async function postgres(db: Kysely<any>): Promise<void> {
  await sqlite(db);
}
