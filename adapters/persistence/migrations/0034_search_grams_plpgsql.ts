import { type Kysely, sql } from 'kysely';

// Kysely<any>: a migration runs against the schema as it was when it was written, not today's HangarDatabase.

/**
 * 0034 (Postgres only; SQLite gets nothing): `hangar_search_grams` of 0031 again, as PL/pgSQL that
 * returns exactly the same array for every text (the characters, then each pair of neighbours, in
 * that order), so the index built on it stays valid and is not rebuilt.
 *
 * Why: the function is evaluated for every row an `insert into files` writes (the index
 * expression of `files_search_grams`), and an SQL function whose body has a `FROM` cannot be
 * inlined, so Postgres parsed and planned its body again for every insert statement: that, not
 * the grams, was most of what the index cost per upload. A PL/pgSQL function is compiled once per
 * connection, and this body has no query in it, only expressions, so a call costs a few tens of µs
 * whether it comes from an insert or a query (measured with the bench of the time, kept in git history: "The gram index's
 * function").
 */

/** Nothing to do on SQLite (see above). */
export async function sqlite(_db: Kysely<any>): Promise<void> {
  // Nothing on SQLite.
}

export async function postgres(db: Kysely<any>): Promise<void> {
  await sql`
      create or replace function hangar_search_grams(search_text text) returns text[]
      language plpgsql immutable strict parallel safe
      as $$
      declare
        c text[] := regexp_split_to_array(search_text, '');
        grams text[] := c;
      begin
        if search_text = '' then
          return '{}'::text[];
        end if;
        for i in 1 .. cardinality(c) - 1 loop
          grams := grams || (c[i] || c[i + 1]);
        end loop;
        return grams;
      end
      $$
    `.execute(db);
}
