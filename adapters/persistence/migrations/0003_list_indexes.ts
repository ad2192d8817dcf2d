import { type Kysely, sql } from 'kysely';

// Kysely<any>: a migration runs against the schema as it was when it was written, not today's HangarDatabase.

/**
 * 0003: what keeps `GET /files` fast on an account with a million files (see
 * the listing measurements of the time, kept in git history), on both dialects unless noted.
 * - `account_totals.public_files_count`: with `files_count`, the exact total of a listing filtered
 *   by visibility alone, without counting rows (backfilled here, then kept by every insert and delete).
 * - `files (user_id, is_public, created_at, id)`: a visibility filter, alone or with others, walks
 *   only matching rows in list order, even when they are rare.
 * - Postgres only: a `pg_trgm` GIN index on `search_text`, which serves the `q` filter's
 *   `LIKE '%…%'` (needles of 3 characters or more). The extension is used where it is installed, or
 *   created in the current schema (`pg_trgm` is a trusted extension: the database owner may
 *   create it). When that fails (not shipped with the server, no privilege) the migration goes on
 *   without the index: `q` still answers correctly, by scanning the account's rows, and
 *   openPostgresDatabase reports the missing index at every start. Installing pg_trgm later and
 *   running `CREATE INDEX files_search_text_trgm ON files USING gin (search_text gin_trgm_ops)`
 *   makes it fast. SQLite has no such index: its `LIKE '%…%'` scans the account's rows.
 */

export async function sqlite(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('account_totals').addColumn('public_files_count', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
  await sql`
      update account_totals set public_files_count = (
        select count(*) from files where files.user_id = account_totals.user_id and files.is_public = 1
      )
    `.execute(db);
  await db.schema.createIndex('files_user_id_is_public_created_at_id').on('files').columns(['user_id', 'is_public', 'created_at', 'id']).execute();
}

/** The statements of SQLite, then the trigram index where pg_trgm is or can be installed. */
export async function postgres(db: Kysely<any>): Promise<void> {
  await sqlite(db);
  await createTrigramIndex(db);
}

/** The name of the schema holding the pg_trgm extension, or undefined when it is not installed. */
async function trigramSchema(db: Kysely<any>): Promise<string | undefined> {
  const { rows } = await sql<{ schema: string }>`
    select n.nspname as schema from pg_extension e join pg_namespace n on n.oid = e.extnamespace where e.extname = 'pg_trgm'
  `.execute(db);
  return rows[0]?.schema;
}

/** The index `files_search_text_trgm` (see above). Runs inside the migration's transaction. */
async function createTrigramIndex(db: Kysely<any>): Promise<void> {
  if ((await trigramSchema(db)) === undefined && !(await createExtension(db, 'pg_trgm'))) return;
  // The operator class is qualified: the extension may live in a schema outside the search_path.
  await sql`create index files_search_text_trgm on files using gin (search_text ${sql.id((await trigramSchema(db))!)}.gin_trgm_ops)`.execute(db);
}

/**
 * Creates the Postgres extension `name` in the current schema unless it is installed already.
 * Runs inside the migration's transaction, so a failed CREATE EXTENSION (not shipped with the
 * server, no privilege) is undone to a savepoint.
 * @returns whether the extension is installed now
 */
async function createExtension(db: Kysely<any>, name: 'pg_trgm'): Promise<boolean> {
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
