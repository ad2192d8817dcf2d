/**
 * 0042: `GET /files` listing and `q` on the databases' own indexes (docs/search.md).
 *
 * Both dialects:
 * - The tables, triggers, functions and indexes only the previous search kept are dropped:
 *   `file_histogram` (0006, 0007); on SQLite the FTS5 gram index `files_search`, its pending table
 *   `files_search_pending` and their triggers (0032, 0033); on Postgres the gram counts
 *   `file_grams`, `file_grams_tracked`, `file_gram_days`, `file_gram_types_tracked`,
 *   `file_gram_pending` with their triggers and trigger functions (0036, 0039), and the gram index
 *   `files_search_grams` with its function `hangar_search_grams` (0031, 0034).
 * - `files.search_text` of every file is folded again, in batches of {@link BATCH} files, with the
 *   fold that ignores accents as well as case ({@link fold}, a frozen copy of `foldSearchText` in
 *   adapters/persistence/file-search.ts): `q=resume` finds "résumé.pdf".
 *
 * SQLite: a contentless FTS5 table `files_trigram` with the built-in `trigram` tokenizer over
 * `search_text` (case-sensitive: the text is folded already), whose rowids are the keys of
 * `files_trigram_keys (key integer primary key, file_record_id)`. `files` has a text primary key,
 * so its own rowids may be renumbered by VACUUM; an INTEGER PRIMARY KEY never is, so the index
 * cannot go stale. Triggers on `files` keep both (insert, delete, change of `search_text`).
 *
 * Postgres: the `pg_trgm` extension (created in the current schema unless installed; a trusted
 * extension, so the database owner may) and a plain GIN index `files_search_text_trgm` on
 * `search_text`, replacing 0040's multi-column one. Without `pg_trgm` (not shipped, no privilege)
 * the migration goes on without the index: `q` still answers correctly, walking the account's files.
 */
import { type Kysely, sql } from 'kysely';

// Kysely's migrations take Kysely<any>: a migration runs against the schema as it was then.

/** Files whose `search_text` is folded again per statement. */
const BATCH = 1_000;

/** Frozen copy of `foldSearchText` (file-search.ts) as this migration ships: NFD, marks U+0300–U+036F dropped, lower case, NFC. */
function fold(text: string): string {
  return text.normalize('NFD').replace(/[\u0300-\u036f]/g, '').toLowerCase().normalize('NFC');
}

/** Frozen: name and file id joined by a line feed, folded. */
function searchTextOf(row: { name: string | null; file_id: string }): string {
  return fold(`${row.name ?? ''}\n${row.file_id}`);
}

/**
 * Folds `search_text` of every file again, {@link BATCH} files per statement in ascending `id`.
 * @param write one statement that sets each `[id, search_text]` pair
 */
async function refold(db: Kysely<any>, write: (pairs: Array<[string, string]>) => Promise<void>): Promise<void> {
  let after: string | undefined;
  for (;;) {
    let query = db.selectFrom('files').select(['id', 'name', 'file_id']).orderBy('id').limit(BATCH);
    if (after !== undefined) query = query.where('id', '>', after);
    const rows = (await query.execute()) as Array<{ id: string; name: string | null; file_id: string }>;
    if (rows.length === 0) return;
    await write(rows.map((row) => [row.id, searchTextOf(row)]));
    after = rows[rows.length - 1].id;
  }
}

export async function sqlite(db: Kysely<any>): Promise<void> {
  for (const trigger of ['files_search_insert', 'files_search_update', 'files_search_delete']) {
    await sql`drop trigger if exists ${sql.id(trigger)}`.execute(db);
  }
  for (const table of ['files_search', 'files_search_pending', 'file_histogram']) {
    await sql`drop table if exists ${sql.id(table)}`.execute(db);
  }
  await refold(db, (pairs) =>
    sql`update files set search_text = json_extract(pair.value, '$[1]')
        from json_each(${JSON.stringify(pairs)}) as pair where files.id = json_extract(pair.value, '$[0]')`.execute(db).then(() => undefined),
  );
  await sql`create table files_trigram_keys (key integer primary key, file_record_id text not null unique)`.execute(db);
  await sql`create virtual table files_trigram using fts5(search_text, content='', contentless_delete=1, tokenize='trigram case_sensitive 1')`.execute(db);
  await sql`insert into files_trigram_keys (file_record_id) select id from files`.execute(db);
  await sql`insert into files_trigram (rowid, search_text) select k.key, f.search_text from files_trigram_keys k join files f on f.id = k.file_record_id`.execute(db);
  await sql`
    create trigger files_trigram_insert after insert on files begin
      insert into files_trigram_keys (file_record_id) values (new.id);
      insert into files_trigram (rowid, search_text) values ((select key from files_trigram_keys where file_record_id = new.id), new.search_text);
    end`.execute(db);
  await sql`
    create trigger files_trigram_delete after delete on files begin
      delete from files_trigram where rowid = (select key from files_trigram_keys where file_record_id = old.id);
      delete from files_trigram_keys where file_record_id = old.id;
    end`.execute(db);
  await sql`
    create trigger files_trigram_update after update of search_text on files when old.search_text is not new.search_text begin
      delete from files_trigram where rowid = (select key from files_trigram_keys where file_record_id = new.id);
      insert into files_trigram (rowid, search_text) values ((select key from files_trigram_keys where file_record_id = new.id), new.search_text);
    end`.execute(db);
}

export async function postgres(db: Kysely<any>): Promise<void> {
  for (const trigger of ['file_grams_insert', 'file_grams_delete', 'file_grams_update']) {
    await sql`drop trigger if exists ${sql.id(trigger)} on files`.execute(db);
  }
  for (const fn of ['hangar_file_grams_inserted', 'hangar_file_grams_deleted', 'hangar_file_grams_updated']) {
    await sql`drop function if exists ${sql.id(fn)}()`.execute(db);
  }
  for (const table of ['file_gram_pending', 'file_grams', 'file_grams_tracked', 'file_gram_days', 'file_gram_types_tracked', 'file_histogram']) {
    await sql`drop table if exists ${sql.id(table)}`.execute(db);
  }
  await sql`drop index if exists files_search_grams`.execute(db);
  await sql`drop function if exists hangar_search_grams(text)`.execute(db);
  // Dropped before the refold (every entry would change) and built again after it.
  await sql`drop index if exists files_search_text_trgm`.execute(db);
  await refold(db, (pairs) =>
    sql`update files set search_text = pair.search_text
        from unnest(${pairs.map((pair) => pair[0])}::text[], ${pairs.map((pair) => pair[1])}::text[]) as pair (id, search_text)
        where files.id = pair.id`.execute(db).then(() => undefined),
  );
  const schema = await trigramSchema(db);
  if (schema === undefined) return;
  // The operator class is qualified: the extension may live in a schema outside the search_path.
  await sql`create index files_search_text_trgm on files using gin (search_text ${sql.id(schema)}.gin_trgm_ops)`.execute(db);
}

/**
 * The schema that holds `pg_trgm`, created in the current schema first when it is not installed
 * (undone to a savepoint when that fails); undefined when it cannot be had.
 */
async function trigramSchema(db: Kysely<any>): Promise<string | undefined> {
  const installed = async () =>
    (await sql<{ schema: string }>`select n.nspname as schema from pg_extension e join pg_namespace n on n.oid = e.extnamespace where e.extname = 'pg_trgm'`.execute(db)).rows[0]?.schema;
  const found = await installed();
  if (found !== undefined) return found;
  await sql`savepoint create_pg_trgm`.execute(db);
  try {
    await sql`create extension if not exists pg_trgm`.execute(db);
    await sql`release savepoint create_pg_trgm`.execute(db);
  } catch {
    await sql`rollback to savepoint create_pg_trgm`.execute(db);
    return undefined;
  }
  return installed();
}
