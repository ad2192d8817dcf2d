import { type Kysely, sql } from 'kysely';

// Kysely<any>: a migration runs against the schema as it was when it was written, not today's HangarDatabase.

/**
 * 0041, Postgres only (SQLite's 0035 did the like): the size index also holds, after its key
 * `(user_id, size)`, each file's upload time, id, visibility, content type and search text
 * (`include`), as `files_user_id_size_covering`, replacing `files_user_id_size`. A `q` search with
 * a size range whose matches are collected by the range (PostgresFileSearch.collect) then reads
 * that index alone where Postgres's visibility map allows, testing the needle on each entry, not
 * each file's row: at 1,000,000 files `q=cat&sizeMin=50000000` collected its 3,049 matches in
 * 11 ms against 48 for the bitmaps of the trigram and size indexes and the rows
 * (the listing measurements of the time, kept in git history, "Combined filters: 0040, 0041 and collecting by the range's
 * index"). Each upload writes about a hundred bytes more to the index; it is about three times as
 * large (206 MB against 73 at 1,200,000 files), and is built in a few seconds per million files,
 * writes to `files` waiting meanwhile.
 */

/** Nothing to do on SQLite (see above). */
export async function sqlite(_db: Kysely<any>): Promise<void> {
  // Nothing on SQLite.
}

export async function postgres(db: Kysely<any>): Promise<void> {
  await sql`create index files_user_id_size_covering on files (user_id, size) include (created_at, id, is_public, content_type, search_text)`.execute(db);
  await db.schema.dropIndex('files_user_id_size').execute();
}
