import { type Kysely, sql } from 'kysely';

// Kysely<any>: a migration runs against the schema as it was when it was written, not today's HangarDatabase.

/**
 * 0051, Postgres only: a GIN index of the characters each file's search text holds,
 * `files_search_characters` on `string_to_array(search_text, null)` (a built-in, immutable function
 * that splits a text into its characters), then `analyze files`, so that the planner has the
 * characters' frequencies (`most_common_elems`) from the start.
 *
 * Why: `pg_trgm` finds a needle of three characters or more, but a needle of one or two characters
 * holds no trigram, so such a `q` walked the account in list order, testing each file, and a needle
 * that no file holds walked every file of the account: 30–60 ms at 100,000 files and 290–340 ms at
 * 1,000,000 on the 2-CPU machine (docs/search.md). A listing with such a needle now also asks for
 * the files whose characters include the needle's (`string_to_array(search_text, null) @> …`, the
 * LIKE stays the truth), and Postgres's planner chooses between this index, for a character few
 * files hold, and the walk in list order, for a common one, from those statistics.
 *
 * The index holds each distinct character of a search text once (about 20 per file): 3 MB at
 * 100,000 files against 13 MB for the trigram index, built in about a second per 100,000 files,
 * writes to `files` waiting meanwhile. Each upload adds those entries to the index's pending list.
 */
export async function postgres(db: Kysely<any>): Promise<void> {
  await sql`create index files_search_characters on files using gin (string_to_array(search_text, null))`.execute(db);
  await sql`analyze files`.execute(db);
}

/** Nothing on SQLite: FTS5 has no index of single characters; docs/search.md gives the cost of its walk. */
export async function sqlite(_db: Kysely<any>): Promise<void> {
  // Nothing on SQLite.
}
