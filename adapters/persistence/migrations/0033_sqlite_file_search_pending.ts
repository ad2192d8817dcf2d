import { type Kysely, sql } from 'kysely';

// Kysely<any>: a migration runs against the schema as it was when it was written, not today's HangarDatabase.

/**
 * 0033, SQLite only: files are indexed for `q` in batches after their upload's commit instead of
 * inside it: the pending table `files_search_pending` (the rowids in `files` of the files written
 * since the last batch), and triggers on `files` that note a written file there (insert; update of
 * an indexed column, after dropping its old document) and drop a deleted file from both tables.
 * Searches read the pending files too. Every file stored so far is indexed already (0032).
 */

export async function sqlite(db: Kysely<any>): Promise<void> {
  for (const statement of SCHEMA) await sql.raw(statement).execute(db);
}

/** Nothing to do on Postgres (see above). */
export async function postgres(_db: Kysely<any>): Promise<void> {
  // Nothing on Postgres.
}

const SCHEMA: readonly string[] = [
  `create table files_search_pending (file_rowid integer primary key)`,
  `drop trigger if exists files_search_insert`,
  `drop trigger if exists files_search_delete`,
  `drop trigger if exists files_search_update`,
  `create trigger files_search_insert after insert on files begin
    insert or ignore into files_search_pending (file_rowid) values (new.rowid);
  end`,
  `create trigger files_search_delete after delete on files begin
    delete from files_search where rowid = old.rowid;
    delete from files_search_pending where file_rowid = old.rowid;
  end`,
  `create trigger files_search_update after update of search_text, content_type, is_public, size, created_at, user_id on files
  when old.search_text is not new.search_text or old.content_type is not new.content_type or old.is_public is not new.is_public or old.size is not new.size
    or old.created_at is not new.created_at or old.user_id is not new.user_id begin
    delete from files_search where rowid = old.rowid;
    insert or ignore into files_search_pending (file_rowid) values (new.rowid);
  end`,
];
