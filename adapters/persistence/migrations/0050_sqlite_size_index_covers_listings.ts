import { type Kysely } from 'kysely';

// Kysely<any>: a migration runs against the schema as it was when it was written, not today's HangarDatabase.

/**
 * 0050, SQLite only (Postgres gets nothing: its size index of 0041 includes these columns already):
 * the size index `files (user_id, size, is_public, content_type)` of 0035 becomes
 * `files (user_id, size, is_public, content_type, created_at, search_text)`, so a listing with a
 * size range and `q` (and visibility, content type or an upload-time range) can be answered by
 * walking the size range on that index alone, testing the needle and every other filter on each
 * entry, instead of walking the whole account on the list-order index or reading every file that
 * holds the needle through the trigram index (docs/search.md, "Choosing the way"). At 1,000,000
 * files a common needle with a size range of a few percent of the files tested 50,000–60,000 rows
 * either way. Existing rows are indexed as the index is created; uploads write one wider entry.
 */
export async function sqlite(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('files_user_id_size_is_public_content_type_created_at_search_text')
    .on('files')
    .columns(['user_id', 'size', 'is_public', 'content_type', 'created_at', 'search_text'])
    .execute();
  await db.schema.dropIndex('files_user_id_size_is_public_content_type').execute();
}

/** Nothing to do on Postgres (see above). */
export async function postgres(_db: Kysely<any>): Promise<void> {
  // Nothing on Postgres.
}
