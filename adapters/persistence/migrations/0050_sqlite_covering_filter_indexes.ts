import { type Kysely } from 'kysely';

// Kysely<any>: a migration runs against the schema as it was when it was written, not today's HangarDatabase.

/** Each index of 0050 as [new name, its columns, the index it replaces]. */
const REPLACEMENTS: readonly (readonly [string, readonly string[], string])[] = [
  ['files_user_id_content_type_created_at_id_is_public_size_search_text', ['user_id', 'content_type', 'created_at', 'id', 'is_public', 'size', 'search_text'], 'files_user_id_content_type'],
  ['files_user_id_is_public_created_at_id_size_content_type_search_text', ['user_id', 'is_public', 'created_at', 'id', 'size', 'content_type', 'search_text'], 'files_user_id_is_public_created_at_id'],
  ['files_user_id_size_is_public_content_type_created_at_search_text', ['user_id', 'size', 'is_public', 'content_type', 'created_at', 'search_text'], 'files_user_id_size_is_public_content_type'],
];

/**
 * 0050, SQLite only (Postgres gets nothing: its planner combines indexes, and its size index of
 * 0041 includes these columns already). Three indexes of `files` hold every column a listing
 * tests, so a listing with `q` and a content type, a visibility or a size range is answered by
 * walking only the files of that type, visibility or range, testing the needle and the other
 * filters on each index entry, instead of walking the whole account on the list-order index or
 * reading a row for every file holding the needle through the trigram index (docs/search.md,
 * "Choosing the way"; SQLite uses one index per table):
 * - `files (user_id, content_type)` becomes `files (user_id, content_type, created_at, id,
 *   is_public, size, search_text)`: the files of one type, newest first;
 * - `files (user_id, is_public, created_at, id)` becomes `files (user_id, is_public, created_at, id,
 *   size, content_type, search_text)`: the public or private files, newest first;
 * - `files (user_id, size, is_public, content_type)` of 0035 becomes `files (user_id, size,
 *   is_public, content_type, created_at, search_text)`: a size range.
 * At 1,000,000 files a common needle with such a filter tested 50,000–1,000,000 entries or rows;
 * now only the files the filter leaves. Existing rows are indexed as the indexes are created;
 * uploads write the same number of index entries, three of them wider.
 */
export async function sqlite(db: Kysely<any>): Promise<void> {
  for (const [name, columns, replaced] of REPLACEMENTS) {
    await db.schema.createIndex(name).on('files').columns([...columns]).execute();
    await db.schema.dropIndex(replaced).execute();
  }
}

/** Nothing to do on Postgres (see above). */
export async function postgres(_db: Kysely<any>): Promise<void> {
  // Nothing on Postgres.
}
