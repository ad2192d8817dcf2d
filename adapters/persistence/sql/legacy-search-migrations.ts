import type { Kysely } from 'kysely';

/*
 * The SQL of the search structures of migrations 0032, 0033 (SQLite) and 0036, 0039 (Postgres), as
 * those migrations ran it, kept here only so that they still run in order on a database older than
 * them. Migration 0042 drops every one of these structures, so their backfills (documents and gram
 * counts of the files already stored) are no longer run: the schema after 0042 is the same with or
 * without them. Nothing else uses this file; it goes when those migrations become frozen files.
 */

/* eslint-disable @typescript-eslint/no-explicit-any */

const FILE_SEARCH_TABLE = 'files_search';
const FILE_SEARCH_PENDING_TABLE = 'files_search_pending';
const FILE_SEARCH_FUNCTION = 'hangar_file_search_document';
const FILE_GRAM_PENDING_TABLE = 'file_gram_pending';

/** A file's document in SQL, from the columns of the row `alias` (`new` in a trigger). */
const documentOf = (alias: string) =>
  `${FILE_SEARCH_FUNCTION}(${alias}.user_id, ${alias}.search_text, ${alias}.content_type, ${alias}.is_public, ${alias}.size, ${alias}.created_at)`;

const UPDATE_TRIGGER_HEAD = `create trigger files_search_update after update of search_text, content_type, is_public, size, created_at, user_id on files
  when old.search_text is not new.search_text or old.content_type is not new.content_type or old.is_public is not new.is_public or old.size is not new.size
    or old.created_at is not new.created_at or old.user_id is not new.user_id begin`;

export const FILE_SEARCH_SCHEMA: readonly string[] = [
  `create virtual table ${FILE_SEARCH_TABLE} using fts5(document, content='', contentless_delete=1, detail=none, tokenize='ascii')`,
  `create trigger files_search_insert after insert on files begin
    insert into ${FILE_SEARCH_TABLE} (rowid, document) values (new.rowid, ${documentOf('new')});
  end`,
  `create trigger files_search_delete after delete on files begin
    delete from ${FILE_SEARCH_TABLE} where rowid = old.rowid;
  end`,
  `${UPDATE_TRIGGER_HEAD}
    delete from ${FILE_SEARCH_TABLE} where rowid = old.rowid;
    insert into ${FILE_SEARCH_TABLE} (rowid, document) values (new.rowid, ${documentOf('new')});
  end`,
];

export const FILE_SEARCH_PENDING_SCHEMA: readonly string[] = [
  `create table ${FILE_SEARCH_PENDING_TABLE} (file_rowid integer primary key)`,
  `drop trigger if exists files_search_insert`,
  `drop trigger if exists files_search_delete`,
  `drop trigger if exists files_search_update`,
  `create trigger files_search_insert after insert on files begin
    insert or ignore into ${FILE_SEARCH_PENDING_TABLE} (file_rowid) values (new.rowid);
  end`,
  `create trigger files_search_delete after delete on files begin
    delete from ${FILE_SEARCH_TABLE} where rowid = old.rowid;
    delete from ${FILE_SEARCH_PENDING_TABLE} where file_rowid = old.rowid;
  end`,
  `${UPDATE_TRIGGER_HEAD}
    delete from ${FILE_SEARCH_TABLE} where rowid = old.rowid;
    insert or ignore into ${FILE_SEARCH_PENDING_TABLE} (file_rowid) values (new.rowid);
  end`,
];

export const FILE_GRAM_SCHEMA: readonly string[] = [
  `create table ${FILE_GRAM_PENDING_TABLE} (
    seq bigserial primary key,
    user_id text not null,
    created_at bigint not null,
    search_text text not null,
    content_type text not null,
    is_public integer not null,
    delta integer not null
  )`,
  `create index file_gram_pending_user_id on ${FILE_GRAM_PENDING_TABLE} (user_id)`,
  `create table file_grams (
    user_id text not null references users (id) on delete cascade,
    gram text not null,
    content_type text not null,
    is_public integer not null,
    files bigint not null,
    primary key (user_id, gram, content_type, is_public)
  )`,
  `create table file_grams_tracked (
    user_id text not null references users (id) on delete cascade,
    gram text not null,
    primary key (user_id, gram)
  )`,
  `create table file_gram_days (
    user_id text not null references users (id) on delete cascade,
    gram text not null,
    day bigint not null,
    files bigint not null,
    primary key (user_id, gram, day)
  )`,
  `create function hangar_file_grams_inserted() returns trigger language plpgsql as $$
  begin
    insert into ${FILE_GRAM_PENDING_TABLE} (user_id, created_at, search_text, content_type, is_public, delta)
      select user_id, created_at, search_text, content_type, is_public, 1 from hangar_added;
    return null;
  end $$`,
  `create function hangar_file_grams_deleted() returns trigger language plpgsql as $$
  begin
    insert into ${FILE_GRAM_PENDING_TABLE} (user_id, created_at, search_text, content_type, is_public, delta)
      select user_id, created_at, search_text, content_type, is_public, -1 from hangar_removed;
    return null;
  end $$`,
  `create function hangar_file_grams_updated() returns trigger language plpgsql as $$
  begin
    insert into ${FILE_GRAM_PENDING_TABLE} (user_id, created_at, search_text, content_type, is_public, delta)
      values (old.user_id, old.created_at, old.search_text, old.content_type, old.is_public, -1),
             (new.user_id, new.created_at, new.search_text, new.content_type, new.is_public, 1);
    return null;
  end $$`,
  `create trigger file_grams_insert after insert on files referencing new table as hangar_added
    for each statement execute function hangar_file_grams_inserted()`,
  `create trigger file_grams_delete after delete on files referencing old table as hangar_removed
    for each statement execute function hangar_file_grams_deleted()`,
  // Row level: Postgres allows a column list or transition tables, not both, and the counters'
  // updates of `files` (views, downloads) must not fire it.
  `create trigger file_grams_update after update of search_text, content_type, is_public, created_at, user_id on files for each row
    when (old.search_text is distinct from new.search_text or old.content_type is distinct from new.content_type
      or old.is_public is distinct from new.is_public or old.created_at is distinct from new.created_at or old.user_id is distinct from new.user_id)
    execute function hangar_file_grams_updated()`,
];

export const FILE_GRAM_TYPES_SCHEMA: readonly string[] = [
  `create table file_gram_types_tracked (
    user_id text not null references users (id) on delete cascade,
    gram text not null,
    content_type text not null,
    primary key (user_id, gram, content_type)
  )`,
  `alter table file_gram_days add column content_type text not null default ''`,
  `alter table file_gram_days drop constraint file_gram_days_pkey`,
  `alter table file_gram_days add primary key (user_id, gram, content_type, day) include (files)`,
];

/** Migration 0032's backfill, not run any more (see the top of this file). */
export async function rebuildFileSearch(_db: Kysely<any>): Promise<void> {}

/** Migration 0036's backfill, not run any more (see the top of this file). */
export async function countFileGrams(_db: Kysely<any>): Promise<void> {}

/** Migration 0039's backfill, not run any more (see the top of this file). */
export async function countGramDays(_db: Kysely<any>): Promise<void> {}
