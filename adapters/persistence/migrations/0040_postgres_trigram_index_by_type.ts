import { type Kysely, sql } from 'kysely';

// Kysely<any>: a migration runs against the schema as it was when it was written, not today's HangarDatabase.

/**
 * 0040, Postgres only: the trigram index of `q` (0003) also holds each file's content type and
 * visibility (`files_search_text_trgm` on `(search_text gin_trgm_ops, content_type, is_public)`,
 * their GIN operator classes from the `btree_gin` extension). A search with `type` or `isPublic`
 * then takes from the index only the files that pass those filters: at 1,000,000 files
 * `q=holiday&type=image/png` ANDed the needle's 60,623 entries with the content type's 291,088 to
 * count 10,001 matches, and now reads 17,731 (the listing measurements of the time, kept in git history, "Combined filters:
 * 0040, 0041 and collecting by the range's index").
 *
 * `btree_gin` is used where it is installed, or created in the current schema (a trusted extension,
 * as `pg_trgm` is; both ship with Postgres). Without it, or without the trigram index (0003 found
 * no `pg_trgm`), nothing changes: the single-column index answers the same searches, more slowly.
 * The new index is built under a temporary name, then replaces the old one (about 15 s at
 * 1,200,000 files, writes to `files` waiting meanwhile).
 */

/** Nothing to do on SQLite (see above). */
export async function sqlite(_db: Kysely<any>): Promise<void> {
  // Nothing on SQLite.
}

export async function postgres(db: Kysely<any>): Promise<void> {
  const schema = await trigramSchema(db);
  const { rows: present } = await sql`select 1 from pg_indexes where schemaname = current_schema() and indexname = 'files_search_text_trgm'`.execute(db);
  if (schema === undefined || present.length === 0) return;
  if (!(await createExtension(db, 'btree_gin'))) return;
  await sql`create index files_search_text_trgm_by_type on files using gin (search_text ${sql.id(schema)}.gin_trgm_ops, content_type, is_public)`.execute(db);
  await sql`drop index files_search_text_trgm`.execute(db);
  await sql`alter index files_search_text_trgm_by_type rename to files_search_text_trgm`.execute(db);
}

/** The name of the schema holding the pg_trgm extension, or undefined when it is not installed. */
async function trigramSchema(db: Kysely<any>): Promise<string | undefined> {
  const { rows } = await sql<{ schema: string }>`
    select n.nspname as schema from pg_extension e join pg_namespace n on n.oid = e.extnamespace where e.extname = 'pg_trgm'
  `.execute(db);
  return rows[0]?.schema;
}

/**
 * Creates the Postgres extension `name` in the current schema unless it is installed already.
 * Runs inside the migration's transaction, so a failed CREATE EXTENSION (not shipped with the
 * server, no privilege) is undone to a savepoint.
 * @returns whether the extension is installed now
 */
async function createExtension(db: Kysely<any>, name: 'btree_gin'): Promise<boolean> {
  const savepoint = sql.id(`create_${name}`);
  await sql`savepoint ${savepoint}`.execute(db);
  try {
    await sql`create extension if not exists ${sql.id(name)}`.execute(db);
    await sql`release savepoint ${savepoint}`.execute(db);
    return true;
  } catch {
    await sql`rollback to savepoint ${savepoint}`.execute(db);
    return false;
  }
}
