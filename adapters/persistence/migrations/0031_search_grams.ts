import { type Kysely, sql } from 'kysely';

// Kysely<any>: a migration runs against the schema as it was when it was written, not today's HangarDatabase.

/**
 * 0031 (Postgres only; SQLite gets nothing: it has no GIN): an index for `q` needles of one or two
 * code points, which the trigram index of 0003 cannot serve (see postgres-file-search.ts and
 * the listing measurements of the time, kept in git history, the section on 0031).
 * - `hangar_search_grams(text) → text[]`: the substrings of one and of two code points of a
 *   `search_text` (its characters, as `regexp_split_to_array(…, '')` gives them in a UTF-8
 *   database, then each pair of neighbours): as a set, what fileSearchGrams (file-search.ts)
 *   computes in JavaScript. Repeats are kept (GIN keeps each key of an item once, and `@>` ignores
 *   them), which spares a sort per call. Immutable, as an index expression must be. Each call
 *   costs tens of µs (per upload, and per file wherever a plan tests files with it; 0034 made it
 *   PL/pgSQL), so PostgresFileSearch reads it only through the index's bitmaps and tests files one
 *   by one with LIKE.
 * - `files_search_grams`: GIN on `hangar_search_grams(search_text)`: `… @> array[needle]` is then
 *   exact (every substring of that length is there), without a column in the table (the grams
 *   would take ~440 bytes a row, nearly tripling the heap every listing reads).
 */

/** Nothing to do on SQLite (see above). */
export async function sqlite(_db: Kysely<any>): Promise<void> {
  // Nothing on SQLite.
}

export async function postgres(db: Kysely<any>): Promise<void> {
  await sql`
      create function hangar_search_grams(search_text text) returns text[]
      language sql immutable strict parallel safe
      as $$
        select case when search_text = '' then '{}'::text[]
          else c || array(select c[i] || c[i + 1] from generate_series(1, cardinality(c) - 1) as i) end
        from regexp_split_to_array(search_text, '') as c
      $$
    `.execute(db);
  await sql`create index files_search_grams on files using gin (hangar_search_grams(search_text))`.execute(db);
}
