import { type Kysely } from 'kysely';

// Kysely<any>: a migration runs against the schema as it was when it was written, not today's HangarDatabase.

/**
 * 0035, SQLite only (Postgres gets nothing): two indexes of `files` that listings read become
 * covering for the filters tested on each file (the listing measurements of the time, kept in git history, "SQLite: covering
 * list indexes (0035)"):
 * - `files (user_id, created_at, id, search_text)` of 0005, which listings walk in list order,
 *   becomes `files (user_id, created_at, id, is_public, size, content_type, search_text)`. A walk
 *   that tests visibility, size or content type on each file it passes (a deep page of a size range,
 *   `q` with `type` or `isPublic`, a counted size range with an upload-time range) reads the index
 *   alone instead of every file's row: at 1,000,000 files, page 3,000 of `sizeMin=1000000` 141 →
 *   45 ms, `sizeMin` with `createdBefore` counted 50 → 6 ms.
 * - `files (user_id, size)` of 0001 becomes `files (user_id, size, is_public, content_type)`: the
 *   exact count of a size range's edge buckets with visibility or a content type (rangeTotal) reads
 *   that index alone too. Without it SQLite's planner counts those over the wider index above, every
 *   file of the account (185 ms instead of 3 ms at 1,000,000 files).
 * Uploads write as many index entries as before, two of them wider.
 */

export async function sqlite(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('files_user_id_created_at_id_is_public_size_content_type_search_text')
    .on('files')
    .columns(['user_id', 'created_at', 'id', 'is_public', 'size', 'content_type', 'search_text'])
    .execute();
  await db.schema.dropIndex('files_user_id_created_at_id_search_text').execute();
  await db.schema.createIndex('files_user_id_size_is_public_content_type').on('files').columns(['user_id', 'size', 'is_public', 'content_type']).execute();
  await db.schema.dropIndex('files_user_id_size').execute();
}

/** Nothing to do on Postgres (see above). */
export async function postgres(_db: Kysely<any>): Promise<void> {
  // Nothing on Postgres.
}
