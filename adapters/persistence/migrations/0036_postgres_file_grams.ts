import { type Kysely, type RawBuilder, sql } from 'kysely';

// Kysely<any>: a migration runs against the schema as it was when it was written, not today's HangarDatabase.

/**
 * 0036, Postgres only (SQLite's FTS index of 0032 holds the same counts): per-account gram counts
 * for `q`: `file_grams` (every 1–3-code-point gram of `search_text`, grams across the name/file-id
 * line feed left out, by content type and visibility), `file_grams_tracked` and `file_gram_days`
 * (the grams of 5,000 files or more, by upload day), and `file_gram_pending` with the triggers on
 * `files` that note each change there for the application's background fold. The files already
 * stored are counted here, from JavaScript in one pass over them (code copied below, frozen). Their
 * days are counted by 0039, which runs after it in the same upgrade and counts `file_gram_days`
 * anew on every database (so this migration counts no days: the end state is the same).
 */

/** Nothing to do on SQLite (see above). */
export async function sqlite(_db: Kysely<any>): Promise<void> {
  // Nothing on SQLite.
}

/** The tables, functions and triggers, then the counts of the files already stored. */
export async function postgres(db: Kysely<any>): Promise<void> {
  for (const statement of SCHEMA) await sql.raw(statement).execute(db);
  await countFileGrams(db);
}

const SCHEMA: readonly string[] = [
  `create table file_gram_pending (
    seq bigserial primary key,
    user_id text not null,
    created_at bigint not null,
    search_text text not null,
    content_type text not null,
    is_public integer not null,
    delta integer not null
  )`,
  `create index file_gram_pending_user_id on file_gram_pending (user_id)`,
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
    insert into file_gram_pending (user_id, created_at, search_text, content_type, is_public, delta)
      select user_id, created_at, search_text, content_type, is_public, 1 from hangar_added;
    return null;
  end $$`,
  `create function hangar_file_grams_deleted() returns trigger language plpgsql as $$
  begin
    insert into file_gram_pending (user_id, created_at, search_text, content_type, is_public, delta)
      select user_id, created_at, search_text, content_type, is_public, -1 from hangar_removed;
    return null;
  end $$`,
  `create function hangar_file_grams_updated() returns trigger language plpgsql as $$
  begin
    insert into file_gram_pending (user_id, created_at, search_text, content_type, is_public, delta)
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

/** Files of an account that hold a gram from which the gram is tracked (`file_grams_tracked`). */
const TRACK_FROM_FILES = 5_000;

/** Rows of `files` per statement while the files already stored are counted. */
const BACKFILL_BATCH = 10_000;

/** Keys aggregated in memory before they are written. */
const BACKFILL_FLUSH_KEYS = 200_000;

/** Keys per upsert statement: its parameters are serialized between two turns of the event loop. */
const KEYS_PER_STATEMENT = 2_000;

/** Lets the event loop run what waits before the count goes on. */
const turn = () => new Promise((resolve) => setImmediate(resolve));

/** The line feed that separates name and file id in `search_text`. */
const SEPARATOR = '\n';

/**
 * The distinct substrings of one, two and three code points of `searchText` that do not hold the
 * name/file-id separator, in order of first appearance.
 */
function fileSearchGramsUpTo3(searchText: string): string[] {
  const points = Array.from(searchText);
  const grams = new Set<string>();
  for (let i = 0; i < points.length; i++) {
    const first = points[i];
    if (first === SEPARATOR) continue;
    grams.add(first);
    const second = points[i + 1];
    if (second === undefined || second === SEPARATOR) continue;
    grams.add(first + second);
    const third = points[i + 2];
    if (third === undefined || third === SEPARATOR) continue;
    grams.add(first + second + third);
  }
  return [...grams];
}

/** A file as the counts see it. */
interface GramSource {
  user_id: string;
  created_at: string | number;
  search_text: string;
  content_type: string;
  is_public: string | number;
}

/** Sums of a count per gram within groups (a group: the other parts of a key, joined with NUL). */
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

  /** Keys held. */
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

/** Adds `sums` (groups user, content type, visibility) to `file_grams`, one upsert per slice of {@link KEYS_PER_STATEMENT} keys. */
async function addToGrams(db: Kysely<any>, sums: Sums): Promise<void> {
  const taken = sums.take();
  for (let at = 0; at < taken.sums.length; at += KEYS_PER_STATEMENT) {
    if (at > 0) await turn();
    const end = at + KEYS_PER_STATEMENT;
    const parts = taken.parts.slice(at, end);
    const statement: RawBuilder<unknown> = sql`
      insert into file_grams (user_id, gram, content_type, is_public, files)
      select * from unnest(${parts.map((p) => p[0])}::text[], ${taken.grams.slice(at, end)}::text[], ${parts.map((p) => p[1])}::text[], ${parts.map((p) => Number(p[2]))}::int[], ${taken.sums.slice(at, end)}::bigint[])
      order by 1, 2, 3, 4
      on conflict (user_id, gram, content_type, is_public) do update set files = file_grams.files + excluded.files
    `;
    await statement.execute(db);
  }
}

/**
 * Counts every file already stored into `file_grams` by content type and visibility, and tracks the
 * grams of {@link TRACK_FROM_FILES} files or more (`file_grams_tracked`), in the migration's
 * transaction: one pass over `files` in upload order per account, in batches of
 * {@link BACKFILL_BATCH} rows (the list-order index `(user_id, created_at, id)`).
 */
async function countFileGrams(db: Kysely<any>): Promise<void> {
  const grams = new Sums();
  let after: { user_id: string; created_at: string | number; id: string } | undefined;
  for (;;) {
    const { rows } = await sql<GramSource & { id: string }>`
      select id, user_id, created_at, search_text, content_type, is_public from files
      ${after === undefined ? sql`` : sql`where (user_id, created_at, id) > (${after.user_id}, ${after.created_at}::bigint, ${after.id})`}
      order by user_id, created_at, id limit ${BACKFILL_BATCH}
    `.execute(db);
    if (rows.length === 0) break;
    for (const row of rows) {
      const group = grams.group(`${row.user_id}\0${row.content_type}\0${Number(row.is_public)}`);
      for (const gram of fileSearchGramsUpTo3(row.search_text)) grams.add(group, gram, 1);
    }
    if (grams.size >= BACKFILL_FLUSH_KEYS) await addToGrams(db, grams);
    after = rows[rows.length - 1]!;
    if (rows.length < BACKFILL_BATCH) break;
  }
  await addToGrams(db, grams);
  await sql`
    insert into file_grams_tracked (user_id, gram)
    select user_id, gram from file_grams group by user_id, gram having sum(files) >= ${TRACK_FROM_FILES}
  `.execute(db);
}
