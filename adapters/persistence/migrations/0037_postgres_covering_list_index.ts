import { type Kysely, sql } from 'kysely';

// Kysely<any>: a migration runs against the schema as it was when it was written, not today's HangarDatabase.

/**
 * 0037, Postgres only (SQLite's 0035 did the same with a wider index): the list-order index
 * `files (user_id, created_at, id)` of 0001 becomes `files (user_id, created_at, id) include
 * (is_public, size, content_type)`, so that a walk in list order that tests visibility, size or
 * content type on each file it passes reads the index alone (an index-only scan, where the
 * visibility map allows) instead of every file's row. SqlFileRepository asks for a deep page's ids
 * first so that the walk can be index-only: at 1,000,000 files, page 3,000 of `sizeMin=1000000`
 * (no day rows place it) 40 → 22 ms warm (the listing measurements of the time, kept in git history, "Postgres: a covering
 * list-order index (0037)"). Uploads write as many index entries as before, each about 25 bytes
 * wider (132 → 161 MB at 1,200,000 files).
 */

/** Nothing to do on SQLite (see above). */
export async function sqlite(_db: Kysely<any>): Promise<void> {
  // Nothing on SQLite.
}

export async function postgres(db: Kysely<any>): Promise<void> {
  await sql`create index files_user_id_created_at_id_covering on files (user_id, created_at, id) include (is_public, size, content_type)`.execute(db);
  await db.schema.dropIndex('files_user_id_created_at_id').execute();
}
