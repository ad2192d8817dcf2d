import { type Kysely, type RawBuilder, sql } from 'kysely';
import { containsPattern, fileSearchGramsUpTo3 } from '../file-search.js';
import { DAY_MS, floorDiv } from '../sql/file-histogram.js';
// postgres-file-search.ts imports this module too; neither uses the other's bindings while loading.
import { BITMAPS_ONLY } from '../sql/postgres-file-search.js';

/**
 * Per-account counts of the files that hold each gram (each substring of 1–3 code points of
 * `search_text`, fileSearchGramsUpTo3) on Postgres, migration 0036: what lets `GET /files?q=` with a
 * needle of at most 3 code points count its matches and place a deep page without visiting the
 * files (PostgresFileSearch; bench/postgres-list-files.md, "Gram counts"). SQLite has the same
 * counts in its FTS index (sqlite-file-search.ts).
 *
 * Tables:
 * - `file_grams (user_id, gram, content_type, is_public) → files`: every gram of every file, by
 *   content type and visibility, so a needle alone or with `type` and/or `isPublic` is counted by
 *   summing at most a few dozen rows.
 * - `file_grams_tracked (user_id, gram)`: the grams held by at least {@link TRACK_FROM_FILES} files of
 *   the account, and `file_gram_days (user_id, gram, content_type, day) → files` for those grams only,
 *   by UTC day of upload (`floor(created_at / 86,400,000)`, as `file_histogram`'s `day` buckets): a
 *   deep page is placed in the day that holds it, and a date range is summed by whole days. Rarer
 *   grams need no days: their matches are few enough to collect from the search indexes. A tracked
 *   gram stays tracked.
 * - `file_gram_types_tracked (user_id, gram, content_type)` (migration 0039): the content types of a
 *   tracked gram that themselves hold at least {@link TRACK_FROM_FILES} of its files, but not all of
 *   them when they start being tracked (a type that holds every file of the gram is placed by the
 *   gram's rows, PostgresFileSearch; an account of one type tracks none). Their files
 *   are counted by day in rows of their own content type, so a deep page of `q` with `type` is
 *   placed as one without; the files of the gram's other types are counted together, in rows whose
 *   `content_type` is {@link OTHER_TYPES}. A gram's rows of one day thus number at most its tracked
 *   types + 1 (a row per type of every tracked gram would be about five times as many, at 1,000,000
 *   files of ten types: bench/postgres-list-files.md). A tracked type stays tracked.
 * - {@link FILE_GRAM_PENDING_TABLE}: a change of `files` waiting to be counted, written by triggers on
 *   `files` in the writing statement's own transaction (insert: +1 with the new row's values;
 *   delete, also through an account deletion's cascade: −1 with the old row's; an update of name,
 *   content type, visibility, upload time or owner: both). Uploads thus pay one small insert, not
 *   ~80 counter updates; {@link foldFileGrams} counts the waiting changes in batches
 *   (FileGramFolder runs it in the background), and a search adds the waiting changes of its
 *   account to the counts in the same statement, so what it reads is exact either way.
 *
 * These tables are derived from `files` and stay outside HangarDatabase: a copy of the database
 * (copy-database.ts) does not carry them, and counts them anew in a Postgres destination ({@link recountFileGrams}).
 */
export const FILE_GRAM_PENDING_TABLE = 'file_gram_pending';

/** The tables of migrations 0036 and 0039, children of `users` and `files` by meaning (none is copied: see above). */
export const FILE_GRAM_TABLES = [FILE_GRAM_PENDING_TABLE, 'file_gram_days', 'file_gram_types_tracked', 'file_grams_tracked', 'file_grams'] as const;

/** `file_gram_days.content_type` of the rows that count a tracked gram's files of its untracked content types together. */
export const OTHER_TYPES = '';

/** Files of an account that hold a gram from which the gram is counted by day (`file_gram_days`). */
export const TRACK_FROM_FILES = 5_000;

/**
 * Waiting changes counted by one {@link foldFileGrams} (one transaction). A batch writes one row per
 * distinct (gram, content type, visibility) and per tracked (gram, day) it holds, and those repeat
 * across files, so larger batches write fewer rows per file (bench/postgres-list-files.md: ~250 µs
 * of work per file in batches of 2,000, ~130 µs in batches of 10,000).
 */
export const FOLD_BATCH = 10_000;

/** FileGramFolder folds once this many changes wait… */
export const FOLD_FROM_WAITING = 5_000;
/** …or once this long (ms) has passed since its last fold while any wait. */
export const FOLD_AFTER_MS = 5_000;

/** Changes whose grams a fold computes between two turns of the event loop (~1–2 ms of work). */
const YIELD_EVERY = 50;

/** Keys per upsert statement of a fold: its parameters are serialized between two turns of the event loop. */
const KEYS_PER_STATEMENT = 2_000;

/** Lets the event loop run what waits (requests) before a fold goes on. */
const turn = () => new Promise((resolve) => setImmediate(resolve));

/** Grams that one {@link foldFileGrams} starts tracking at most (each costs a scan of its matches); the others at a later batch that holds them. */
const PROMOTIONS_PER_FOLD = 20;

/**
 * Content types of tracked grams that one {@link foldFileGrams} starts tracking at most: each reads
 * its matches among the files of its type, ~0.2–0.7 s at 1,000,000 files, so a fold that promotes
 * this many takes ~1–3 s more (bench/postgres-list-files.md, "Gram days by content type (0039)").
 */
const TYPE_PROMOTIONS_PER_FOLD = 5;

/** Rows of `files` per statement while migration 0036 counts the files already stored. */
const BACKFILL_BATCH = 10_000;

/** Keys aggregated in memory before they are written, while migration 0036 counts. */
const BACKFILL_FLUSH_KEYS = 200_000;

/** First key of the transaction-level advisory lock a fold holds (the second is the schema's hash), so one fold runs at a time per schema. */
const FOLD_LOCK_KEY = 0x48_46_47; // "HFG"

/** The SQL of migration 0036 (Postgres): the tables and the triggers that fill the pending table. */
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

/**
 * The SQL of migration 0039 (Postgres): `file_gram_days` by content type for the tracked types
 * (see above; its rows before it count every type, as {@link OTHER_TYPES}, and are counted anew by
 * {@link countGramDays}), and `file_gram_types_tracked`. The primary key holds `files` too, so a
 * search sums a gram's days (up to its tracked types + 1 rows a day, scattered over the table) by an
 * index-only scan rather than one heap page a row.
 */
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

/** The UTC day of an upload time (Unix ms), as `file_gram_days.day` holds it. */
export function gramDay(createdAtMs: number): number {
  return floorDiv(createdAtMs, DAY_MS);
}

/** `floor(created_at / 86,400,000)` in SQL for the column `column` (exact: numeric division). */
export const DAY_OF = (column: string) => `floor(${column} / 86400000.0)::bigint`;

/** A file (or a waiting change of one) as the counts see it. */
interface GramSource {
  user_id: string;
  created_at: string | number;
  search_text: string;
  content_type: string;
  is_public: string | number;
}

/**
 * Sums of `delta` per gram within groups (a group: the other parts of a key, joined with NUL, which
 * no id, content type or day holds): short gram keys in small maps rather than one long string per key.
 */
class Sums {
  private readonly groups = new Map<string, Map<string, number>>();
  private count = 0;

  /** The sums of group `name` (created empty). */
  group(name: string): Map<string, number> {
    let group = this.groups.get(name);
    if (!group) this.groups.set(name, (group = new Map()));
    return group;
  }

  /** Adds `delta` to `gram` in `group`. */
  add(group: Map<string, number>, gram: string, delta: number): void {
    const sum = group.get(gram);
    if (sum === undefined) this.count++;
    group.set(gram, (sum ?? 0) + delta);
  }

  /** Keys held (an upper bound once sums returned to 0). */
  get size(): number {
    return this.count;
  }

  /** The group parts (split), grams and sums whose sum is not 0, as columns; empties the sums. */
  take(): { parts: string[][]; grams: string[]; sums: number[] } {
    const parts: string[][] = [];
    const grams: string[] = [];
    const sums: number[] = [];
    for (const [name, group] of this.groups) {
      const split = name.split('\0');
      for (const [gram, sum] of group) {
        if (sum === 0) continue;
        parts.push(split);
        grams.push(gram);
        sums.push(sum);
      }
    }
    this.groups.clear();
    this.count = 0;
    return { parts, grams, sums };
  }
}

/**
 * Writes what `sums` holds with `statement` (one upsert per slice of {@link KEYS_PER_STATEMENT} keys,
 * the event loop getting a turn between them): each slice as columns, the group's parts split.
 */
async function addInSlices(
  db: Kysely<any>,
  sums: Sums,
  statement: (slice: { parts: string[][]; grams: string[]; sums: number[] }) => RawBuilder<unknown>,
): Promise<void> {
  const taken = sums.take();
  for (let at = 0; at < taken.sums.length; at += KEYS_PER_STATEMENT) {
    if (at > 0) await turn();
    const end = at + KEYS_PER_STATEMENT;
    await statement({ parts: taken.parts.slice(at, end), grams: taken.grams.slice(at, end), sums: taken.sums.slice(at, end) }).execute(db);
  }
}

/** Adds `sums` (groups user, content type, visibility) to `file_grams`: rows whose key exists get the sum added. */
function addToGrams(db: Kysely<any>, sums: Sums): Promise<void> {
  return addInSlices(db, sums, ({ parts, grams, sums: files }) => sql`
    insert into file_grams (user_id, gram, content_type, is_public, files)
    select * from unnest(${parts.map((p) => p[0])}::text[], ${grams}::text[], ${parts.map((p) => p[1])}::text[], ${parts.map((p) => Number(p[2]))}::int[], ${files}::bigint[])
    order by 1, 2, 3, 4
    on conflict (user_id, gram, content_type, is_public) do update set files = file_grams.files + excluded.files
  `);
}

/** Adds `sums` (groups user, day, content type or {@link OTHER_TYPES}) to `file_gram_days`: rows whose key exists get the sum added. */
function addToDays(db: Kysely<any>, sums: Sums): Promise<void> {
  return addInSlices(db, sums, ({ parts, grams, sums: files }) => sql`
    insert into file_gram_days (user_id, gram, content_type, day, files)
    select * from unnest(${parts.map((p) => p[0])}::text[], ${grams}::text[], ${parts.map((p) => p[2])}::text[], ${parts.map((p) => Number(p[1]))}::bigint[], ${files}::bigint[])
    order by 1, 2, 3, 4
    on conflict (user_id, gram, content_type, day) do update set files = file_gram_days.files + excluded.files
  `);
}

/** `rows` (user, gram) as a set of grams per account. */
function gramsByAccount(rows: ReadonlyArray<{ user_id: string; gram: string }>): Map<string, Set<string>> {
  const byAccount = new Map<string, Set<string>>();
  for (const { user_id: userId, gram } of rows) {
    let grams = byAccount.get(userId);
    if (!grams) byAccount.set(userId, (grams = new Set()));
    grams.add(gram);
  }
  return byAccount;
}

/** What a change of `files` adds to `file_gram_days`: the tracked grams and the tracked content types of each account. */
class TrackedGrams {
  private readonly grams: Map<string, Set<string>>;
  /** Per account, `content type + NUL + gram` of the tracked types. */
  private readonly types: Map<string, Set<string>>;

  constructor(grams: ReadonlyArray<{ user_id: string; gram: string }>, types: ReadonlyArray<{ user_id: string; gram: string; content_type: string }>) {
    this.grams = gramsByAccount(grams);
    this.types = gramsByAccount(types.map((row) => ({ user_id: row.user_id, gram: `${row.content_type}\0${row.gram}` })));
  }

  /** Reads both tables, for `userIds` only when given. */
  static async read(db: Kysely<any>, userIds?: readonly string[]): Promise<TrackedGrams> {
    const only = userIds === undefined ? sql`` : sql` where user_id = any(${userIds}::text[])`;
    const { rows: grams } = await sql<{ user_id: string; gram: string }>`select user_id, gram from file_grams_tracked${only}`.execute(db);
    const { rows: types } = await sql<{ user_id: string; gram: string; content_type: string }>`select user_id, gram, content_type from file_gram_types_tracked${only}`.execute(db);
    return new TrackedGrams(grams, types);
  }

  /** The tracked grams of `userId` (undefined: none). */
  of(userId: string): Set<string> | undefined {
    return this.grams.get(userId);
  }

  /** Whether `contentType` of `gram` is tracked in `userId`'s account. */
  typeTracked(userId: string, gram: string, contentType: string): boolean {
    return this.types.get(userId)?.has(`${contentType}\0${gram}`) ?? false;
  }

  /**
   * Adds `delta` for each tracked gram of `source` to `days` (groups user, day, content type or
   * {@link OTHER_TYPES}). Each other gram is handed to `untracked`, and each tracked gram whose
   * content type is not (nor {@link OTHER_TYPES}) to `typeUntracked`.
   */
  addDays(
    days: Sums,
    source: GramSource,
    grams: Iterable<string>,
    delta: number,
    seen: { untracked?: (gram: string) => void; typeUntracked?: (gram: string) => void } = {},
  ): void {
    const tracked = this.grams.get(source.user_id);
    const day = gramDay(Number(source.created_at));
    const typed = tracked && days.group(`${source.user_id}\0${day}\0${source.content_type}`);
    const others = tracked && days.group(`${source.user_id}\0${day}\0${OTHER_TYPES}`);
    const typeCanTrack = source.content_type !== OTHER_TYPES;
    for (const gram of grams) {
      if (!tracked?.has(gram)) seen.untracked?.(gram);
      else if (this.typeTracked(source.user_id, gram, source.content_type)) days.add(typed!, gram, delta);
      else {
        days.add(others!, gram, delta);
        if (typeCanTrack) seen.typeUntracked?.(gram);
      }
    }
  }
}

/**
 * Counts every file already stored into `file_grams` by content type and visibility, and tracks the
 * grams of {@link TRACK_FROM_FILES} files or more (`file_grams_tracked`), in the caller's
 * transaction (migration 0036; their days are {@link countGramDays}'). One pass over `files` in
 * upload order per account, grams computed here.
 */
export async function countFileGrams(db: Kysely<any>, trackFrom = TRACK_FROM_FILES): Promise<void> {
  const grams = new Sums();
  await eachFileBatch(db, async (rows) => {
    for (const row of rows) {
      const group = grams.group(`${row.user_id}\0${row.content_type}\0${Number(row.is_public)}`);
      for (const gram of fileSearchGramsUpTo3(row.search_text)) grams.add(group, gram, 1);
    }
    if (grams.size >= BACKFILL_FLUSH_KEYS) await addToGrams(db, grams);
  });
  await addToGrams(db, grams);
  await sql`
    insert into file_grams_tracked (user_id, gram)
    select user_id, gram from file_grams group by user_id, gram having sum(files) >= ${trackFrom}
  `.execute(db);
}

/**
 * Counts `file_gram_days` anew, in the caller's transaction (migration 0039, and after
 * {@link countFileGrams}): tracks each content type of a tracked gram that holds `trackFrom` of its
 * files in `file_grams` but not all of them, then counts the tracked grams' files by day and by tracked type (the other
 * types together), less the changes still waiting (the rows hold what is folded). One pass over
 * `files` in upload order per account; about two minutes for 1,000,000 files (bench/postgres-list-files.md).
 */
export async function countGramDays(db: Kysely<any>, trackFrom = TRACK_FROM_FILES): Promise<void> {
  await sql`delete from file_gram_days`.execute(db);
  await sql`delete from file_gram_types_tracked`.execute(db);
  await sql`
    insert into file_gram_types_tracked (user_id, gram, content_type)
    select g.user_id, g.gram, g.content_type from file_grams as g
    join file_grams_tracked as t on t.user_id = g.user_id and t.gram = g.gram
    join (select user_id, gram, sum(files) as files from file_grams group by user_id, gram) as a on a.user_id = g.user_id and a.gram = g.gram
    where g.content_type <> ${OTHER_TYPES}
    group by g.user_id, g.gram, g.content_type, a.files having sum(g.files) >= ${trackFrom} and sum(g.files) < a.files
  `.execute(db);
  const tracked = await TrackedGrams.read(db);
  const days = new Sums();
  await eachFileBatch(db, async (rows) => {
    for (const row of rows) if (tracked.of(row.user_id)) tracked.addDays(days, row, fileSearchGramsUpTo3(row.search_text), 1);
    if (days.size >= BACKFILL_FLUSH_KEYS) await addToDays(db, days);
  });
  const { rows: waiting } = await sql<GramSource & { delta: number }>`
    select p.user_id, p.created_at, p.search_text, p.content_type, p.is_public, p.delta
    from ${sql.table(FILE_GRAM_PENDING_TABLE)} as p join users as u on u.id = p.user_id
  `.execute(db);
  for (const change of waiting) {
    if (tracked.of(change.user_id)) tracked.addDays(days, change, fileSearchGramsUpTo3(change.search_text), -Number(change.delta));
  }
  await addToDays(db, days);
}

/**
 * Counts every file already stored into the gram tables, in the caller's transaction:
 * {@link countFileGrams}, then {@link countGramDays}: two passes over `files`.
 */
export async function backfillFileGrams(db: Kysely<any>, trackFrom = TRACK_FROM_FILES): Promise<void> {
  await countFileGrams(db, trackFrom);
  await countGramDays(db, trackFrom);
}

/**
 * Counts the gram tables anew from `files` (in the caller's transaction): emptied, the waiting
 * changes dropped, then {@link backfillFileGrams}. For a copy into Postgres (copy-database.ts),
 * whose triggers noted every copied file as a change: counted at once rather than through the
 * pending table, which would start tracking each common gram only after reading its matches.
 */
export async function recountFileGrams(db: Kysely<any>): Promise<void> {
  for (const table of FILE_GRAM_TABLES) await sql`delete from ${sql.table(table)}`.execute(db);
  await backfillFileGrams(db);
}

/**
 * Calls `each` with the rows of `files` in batches of {@link BACKFILL_BATCH}, account by account and
 * in upload order (the list-order index `(user_id, created_at, id)`): a day's keys are complete
 * before the next day's come, so each row is written about once (in key order a flush would
 * update every day's row again and again, leaving dead rows the migration's transaction cannot reclaim).
 */
async function eachFileBatch(db: Kysely<any>, each: (rows: GramSource[]) => Promise<void>): Promise<void> {
  let after: { user_id: string; created_at: string | number; id: string } | undefined;
  for (;;) {
    const { rows } = await sql<GramSource & { id: string }>`
      select id, user_id, created_at, search_text, content_type, is_public from files
      ${after === undefined ? sql`` : sql`where (user_id, created_at, id) > (${after.user_id}, ${after.created_at}::bigint, ${after.id})`}
      order by user_id, created_at, id limit ${BACKFILL_BATCH}
    `.execute(db);
    if (rows.length === 0) return;
    await each(rows);
    after = rows[rows.length - 1]!;
    if (rows.length < BACKFILL_BATCH) return;
  }
}

/** Options of {@link foldFileGrams}. */
export interface FoldOptions {
  /** Waiting changes per fold; default {@link FOLD_BATCH}. */
  batch?: number;
  /** See {@link TRACK_FROM_FILES}; tests set it low. */
  trackFrom?: number;
  /** Wait for a fold under way in another connection instead of returning 0 at once (tests, tools). */
  wait?: boolean;
}

/**
 * Counts the oldest waiting changes ({@link FILE_GRAM_PENDING_TABLE}), up to `batch` of them, in one
 * transaction: removes them from the pending table, adds their grams to `file_grams` and, for the
 * tracked grams, to `file_gram_days` (by tracked content type, the others together), and starts
 * tracking the grams (at most 20 per fold, the commonest first) that now reach `trackFrom` files:
 * their day rows are the account's files that hold the gram, by day, less the changes still waiting
 * (one statement per gram); then the content types of tracked grams that now reach `trackFrom` of
 * their files (startTrackingTypes, at most 5 per fold). Only the grams and types of added files are
 * candidates. Changes of an account deleted since are dropped. A transaction-level advisory lock (per schema) keeps folds
 * one at a time; without `wait`, a fold that finds it taken returns 0.
 * @param db a Kysely on the database (its statements are not observed or grouped: the folder's own)
 * @returns the number of changes counted (0: none waited, or another fold runs)
 * @throws the database's errors; nothing is counted then (the transaction rolls back)
 */
export async function foldFileGrams(db: Kysely<any>, options: FoldOptions = {}): Promise<number> {
  const batch = options.batch ?? FOLD_BATCH;
  const trackFrom = options.trackFrom ?? TRACK_FROM_FILES;
  return db.transaction().execute(async (trx) => {
    if (options.wait) {
      await sql`select pg_advisory_xact_lock(${FOLD_LOCK_KEY}::int, hashtext(current_schema()))`.execute(trx);
    } else {
      const { rows } = await sql<{ locked: boolean }>`select pg_try_advisory_xact_lock(${FOLD_LOCK_KEY}::int, hashtext(current_schema())) as locked`.execute(trx);
      if (!rows[0]?.locked) return 0;
    }
    const { rows: changes } = await sql<GramSource & { delta: number }>`
      delete from ${sql.table(FILE_GRAM_PENDING_TABLE)}
      where seq in (select seq from ${sql.table(FILE_GRAM_PENDING_TABLE)} order by seq limit ${batch})
      returning user_id, created_at, search_text, content_type, is_public, delta
    `.execute(trx);
    if (changes.length === 0) return 0;
    const userIds = [...new Set(changes.map((change) => change.user_id))];
    const { rows: existing } = await sql<{ id: string }>`select id from users where id = any(${userIds}::text[])`.execute(trx);
    const live = new Set(existing.map((row) => row.id));
    const tracked = await TrackedGrams.read(trx, [...live]);
    const grams = new Sums();
    const days = new Sums();
    const grown: Array<[string, string]> = [];
    const grownTypes: Array<[string, string, string]> = [];
    const seenGrams = new Set<string>();
    const seenTypes = new Set<string>();
    for (const [i, change] of changes.entries()) {
      // Grams cost ~10–30 µs a change here: the event loop gets a turn every few ms.
      if (i > 0 && i % YIELD_EVERY === 0) await turn();
      if (!live.has(change.user_id)) continue;
      const delta = Number(change.delta);
      const group = grams.group(`${change.user_id}\0${change.content_type}\0${Number(change.is_public)}`);
      const changeGrams = fileSearchGramsUpTo3(change.search_text);
      for (const gram of changeGrams) grams.add(group, gram, delta);
      // Only an added file can make a gram, or a content type of one, reach the threshold.
      const candidates =
        delta > 0
          ? {
              untracked: (gram: string) => {
                const key = `${change.user_id}\0${gram}`;
                if (seenGrams.has(key)) return;
                seenGrams.add(key);
                grown.push([change.user_id, gram]);
              },
              typeUntracked: (gram: string) => {
                const key = `${change.user_id}\0${gram}\0${change.content_type}`;
                if (seenTypes.has(key)) return;
                seenTypes.add(key);
                grownTypes.push([change.user_id, gram, change.content_type]);
              },
            }
          : {};
      tracked.addDays(days, change, changeGrams, delta, candidates);
    }
    await addToGrams(trx, grams);
    await addToDays(trx, days);
    if (grown.length > 0 || grownTypes.length > 0) await foldSettings().execute(trx);
    if (grown.length > 0) await startTracking(trx, grown, trackFrom);
    if (grownTypes.length > 0) await startTrackingTypes(trx, grownTypes, trackFrom);
    return changes.length;
  });
}

/**
 * Of the untracked `candidates` (user, gram), those now held by `trackFrom` files or more get
 * tracked, with their day rows, all of {@link OTHER_TYPES} (see {@link foldFileGrams}; a gram's
 * types are tracked only once it is). Runs under {@link foldSettings}.
 * Each candidate's count is summed through the primary key of `file_grams` (a lateral lookup per
 * candidate, one or a few rows each), so a fold costs in proportion to its own grams, not to the
 * table: a join left to the planner sorted all of `file_grams` (bench/README.md, eleventh session).
 *
 * A promoted gram's days are counted from the account's files, read through the account's index
 * and each tested with LIKE (exact: a gram is one of a text's grams exactly when it is a substring
 * of it, fileSearchGramsUpTo3), about 1 µs a file of the account, once per gram and account. The
 * gram index's own condition, `hangar_search_grams(search_text) @> …`, is not used: on that path the
 * planner evaluated the PL/pgSQL function for every file of the account (9–36 µs each), and the
 * index alone would read the files of every account that hold the gram (bench/README.md, fifteenth session).
 */
async function startTracking(trx: Kysely<any>, candidates: Array<[string, string]>, trackFrom: number): Promise<void> {
  const { rows } = await sql<{ user_id: string; gram: string }>`
    select c.user_id, c.gram
    from unnest(${candidates.map((c) => c[0])}::text[], ${candidates.map((c) => c[1])}::text[]) as c (user_id, gram)
    cross join lateral (select sum(g.files) as files from file_grams as g where g.user_id = c.user_id and g.gram = c.gram) as t
    where t.files >= ${trackFrom}
    order by t.files desc, c.user_id, c.gram
    limit ${PROMOTIONS_PER_FOLD}
  `.execute(trx);
  if (rows.length === 0) return;
  for (const { user_id: userId, gram } of rows) {
    await sql`insert into file_grams_tracked (user_id, gram) values (${userId}, ${gram}) on conflict do nothing`.execute(trx);
    await sql`
      insert into file_gram_days (user_id, gram, content_type, day, files)
      select ${userId}, ${gram}, ${OTHER_TYPES}, day, files from (${foldedByDay(userId, gram)}) as counted
      order by day
      on conflict (user_id, gram, content_type, day) do update set files = excluded.files
    `.execute(trx);
  }
}

/**
 * Of the untracked content types of tracked grams in `candidates` (user, gram, content type), those
 * that now hold `trackFrom` of the gram's files or more in `file_grams`, but not all of them, get tracked (at most
 * {@link TYPE_PROMOTIONS_PER_FOLD} per fold, the commonest first; the others when a later fold's
 * changes offer them again): the gram's files of that type, by day,
 * less the changes still waiting, become rows of their own, and are taken out of the gram's rows of
 * {@link OTHER_TYPES} (which held them until now; a row left at 0 is removed). The files are read
 * through the account's content-type index, each tested with LIKE, as {@link startTracking} reads its gram's.
 */
async function startTrackingTypes(trx: Kysely<any>, candidates: Array<[string, string, string]>, trackFrom: number): Promise<void> {
  const { rows } = await sql<{ user_id: string; gram: string; content_type: string }>`
    select c.user_id, c.gram, c.content_type
    from unnest(${candidates.map((c) => c[0])}::text[], ${candidates.map((c) => c[1])}::text[], ${candidates.map((c) => c[2])}::text[]) as c (user_id, gram, content_type)
    cross join lateral (
      select sum(g.files) filter (where g.content_type = c.content_type) as files, sum(g.files) as all_files
      from file_grams as g where g.user_id = c.user_id and g.gram = c.gram
    ) as t
    where t.files >= ${trackFrom} and t.files < t.all_files
    order by t.files desc, c.user_id, c.gram, c.content_type
    limit ${TYPE_PROMOTIONS_PER_FOLD}
  `.execute(trx);
  for (const { user_id: userId, gram, content_type: contentType } of rows) {
    await sql`insert into file_gram_types_tracked (user_id, gram, content_type) values (${userId}, ${gram}, ${contentType}) on conflict do nothing`.execute(trx);
    await sql`
      with counted as (${foldedByDay(userId, gram, contentType)}),
      typed as (
        insert into file_gram_days (user_id, gram, content_type, day, files)
        select ${userId}, ${gram}, ${contentType}, day, files from counted
        order by day
        on conflict (user_id, gram, content_type, day) do update set files = excluded.files
      )
      update file_gram_days as d set files = d.files - counted.files from counted
      where d.user_id = ${userId} and d.gram = ${gram} and d.content_type = ${OTHER_TYPES} and d.day = counted.day
    `.execute(trx);
    await sql`delete from file_gram_days where user_id = ${userId} and gram = ${gram} and content_type = ${OTHER_TYPES} and files = 0`.execute(trx);
  }
}

/**
 * A statement `(day, files)`: the files of `userId`'s account that hold `gram` (of `contentType`
 * when given), by UTC day of upload, less the changes of them still waiting (what the day rows
 * hold once folded), days of 0 left out. Each file is tested with LIKE (exact for a gram:
 * fileSearchGramsUpTo3); read under {@link foldSettings}.
 */
function foldedByDay(userId: string, gram: string, contentType?: string): RawBuilder<{ day: string; files: string }> {
  const pattern = containsPattern(gram);
  const typed = contentType === undefined ? sql`` : sql` and content_type = ${contentType}`;
  return sql`
    select day, sum(n) as files from (
      select ${sql.raw(DAY_OF('created_at'))} as day, 1 as n from files
      where user_id = ${userId}${typed} and search_text like ${pattern} escape '\\'
      union all
      select ${sql.raw(DAY_OF('created_at'))}, -delta from ${sql.table(FILE_GRAM_PENDING_TABLE)}
      where user_id = ${userId}${typed} and search_text like ${pattern} escape '\\'
    ) as counted
    group by day having sum(n) <> 0
  `;
}

/**
 * Planner settings of a fold's promotions, local to its transaction: {@link BITMAPS_ONLY} (a promoted
 * gram's files are read through an index of the account's files; a plain scan would read every
 * account's) and `jit` off (the planner, counting ~20 rows a candidate lookup, would compile that
 * statement for longer than it runs). A function: this module may load before postgres-file-search.ts (see the imports).
 */
const foldSettings = () => sql`${BITMAPS_ONLY}, set_config('jit', 'off', true)`;

/** How often FileGramFolder looks at the waiting changes, in ms. */
export const FOLD_INTERVAL_MS = 200;

/**
 * Runs {@link foldFileGrams} in the background: every `intervalMs` ms it counts the waiting changes
 * (up to {@link FOLD_FROM_WAITING}, along the pending table's primary key) and folds, batch after
 * batch until one comes back short, when {@link FOLD_FROM_WAITING} wait or {@link FOLD_AFTER_MS} have
 * passed since its last fold, then vacuums the pending table. Searches add their account's waiting changes themselves, so this
 * changes how fast they are (a few ms for thousands of waiting changes), never what they find.
 * Every process runs one; the advisory lock lets one fold at a time, the others skip that turn. A
 * failed fold goes to `onError` and is tried at the next turn.
 */
export class FileGramFolder {
  private readonly timer: NodeJS.Timeout;
  private running: Promise<void> | undefined;
  private closed = false;
  private lastFold = Date.now();

  /**
   * @param db a Kysely on the database whose statements are the folder's own (not grouped or observed)
   * @param onError told of a fold that failed
   */
  constructor(
    private readonly db: Kysely<any>,
    private readonly onError: (error: Error) => void,
    intervalMs = FOLD_INTERVAL_MS,
  ) {
    this.timer = setInterval(() => this.turn(), intervalMs);
    this.timer.unref();
  }

  /** Stops; waits for a fold under way. Never rejects. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await this.running;
  }

  private turn(): void {
    if (this.running || this.closed) return;
    this.running = this.foldWaiting().finally(() => {
      this.running = undefined;
    });
  }

  private async foldWaiting(): Promise<void> {
    try {
      const { rows } = await sql<{ waiting: string | number }>`
        select count(*) as waiting from (select 1 from ${sql.table(FILE_GRAM_PENDING_TABLE)} limit ${FOLD_FROM_WAITING}) as w
      `.execute(this.db);
      const waiting = Number(rows[0]?.waiting ?? 0);
      if (waiting === 0 || (waiting < FOLD_FROM_WAITING && Date.now() - this.lastFold < FOLD_AFTER_MS)) return;
      this.lastFold = Date.now();
      while (!this.closed && (await foldFileGrams(this.db)) === FOLD_BATCH);
      // The folds left dead rows behind. A search reads its account's waiting changes from this
      // table, so it is vacuumed now rather than whenever autovacuum (if it is on at all) comes by.
      if (!this.closed) await sql`vacuum (analyze) ${sql.table(FILE_GRAM_PENDING_TABLE)}`.execute(this.db);
    } catch (error) {
      if (!this.closed) this.onError(error instanceof Error ? error : new Error(String(error)));
    }
  }
}
