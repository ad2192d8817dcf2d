import { type Kysely, type RawBuilder, sql } from 'kysely';

// Kysely<any>: a migration runs against the schema as it was when it was written, not today's HangarDatabase.

/**
 * 0039, Postgres only: the tracked grams' day counts by content type: `file_gram_days` gains
 * `content_type` (in its primary key, which includes `files`) and `file_gram_types_tracked` is
 * created; then the content types that hold 5,000 of a tracked gram's files (but not all of them)
 * are tracked, and the day rows are counted anew from the files (one pass, about two minutes at
 * 1,000,000 files): a tracked type's files in rows of their own content type, the gram's other
 * types together in rows of content type '', less the changes still waiting in
 * `file_gram_pending` (the rows hold what the application's fold has counted). So
 * `GET /files?q=…&type=…` places a deep page by day as a search without `type` does. The counting
 * code is copied below, frozen.
 */

/** Nothing to do on SQLite (see above). */
export async function sqlite(_db: Kysely<any>): Promise<void> {
  // Nothing on SQLite.
}

/** The table and key changes, then the day rows counted anew. */
export async function postgres(db: Kysely<any>): Promise<void> {
  for (const statement of SCHEMA) await sql.raw(statement).execute(db);
  await countGramDays(db);
}

const SCHEMA: readonly string[] = [
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

/** `file_gram_days.content_type` of the rows that count a tracked gram's files of its untracked content types together. */
const OTHER_TYPES = '';

/** Files of a tracked gram that a content type must hold to be tracked. */
const TRACK_FROM_FILES = 5_000;

/** Rows of `files` per statement while the files are counted. */
const BACKFILL_BATCH = 10_000;

/** Keys aggregated in memory before they are written. */
const BACKFILL_FLUSH_KEYS = 200_000;

/** Keys per upsert statement: its parameters are serialized between two turns of the event loop. */
const KEYS_PER_STATEMENT = 2_000;

/** A UTC day in milliseconds. */
const DAY_MS = 86_400_000;

/** Lets the event loop run what waits before the count goes on. */
const turn = () => new Promise((resolve) => setImmediate(resolve));

/** The line feed that separates name and file id in `search_text`. */
const SEPARATOR = '\n';

/** `Math.floor(value / width)` exactly for any safe integer `value`. */
function floorDiv(value: number, width: number): number {
  return (value - (((value % width) + width) % width)) / width;
}

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

/** A file (or a waiting change of one) as the counts see it. */
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

/** Adds `sums` (groups user, day, content type or {@link OTHER_TYPES}) to `file_gram_days`, one upsert per slice of {@link KEYS_PER_STATEMENT} keys. */
async function addToDays(db: Kysely<any>, sums: Sums): Promise<void> {
  const taken = sums.take();
  for (let at = 0; at < taken.sums.length; at += KEYS_PER_STATEMENT) {
    if (at > 0) await turn();
    const end = at + KEYS_PER_STATEMENT;
    const parts = taken.parts.slice(at, end);
    const statement: RawBuilder<unknown> = sql`
      insert into file_gram_days (user_id, gram, content_type, day, files)
      select * from unnest(${parts.map((p) => p[0])}::text[], ${taken.grams.slice(at, end)}::text[], ${parts.map((p) => p[2])}::text[], ${parts.map((p) => Number(p[1]))}::bigint[], ${taken.sums.slice(at, end)}::bigint[])
      order by 1, 2, 3, 4
      on conflict (user_id, gram, content_type, day) do update set files = file_gram_days.files + excluded.files
    `;
    await statement.execute(db);
  }
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

/** The tracked grams and the tracked content types of each account. */
class TrackedGrams {
  private readonly grams: Map<string, Set<string>>;
  /** Per account, `content type + NUL + gram` of the tracked types. */
  private readonly types: Map<string, Set<string>>;

  constructor(grams: ReadonlyArray<{ user_id: string; gram: string }>, types: ReadonlyArray<{ user_id: string; gram: string; content_type: string }>) {
    this.grams = gramsByAccount(grams);
    this.types = gramsByAccount(types.map((row) => ({ user_id: row.user_id, gram: `${row.content_type}\0${row.gram}` })));
  }

  /** Reads both tables. */
  static async read(db: Kysely<any>): Promise<TrackedGrams> {
    const { rows: grams } = await sql<{ user_id: string; gram: string }>`select user_id, gram from file_grams_tracked`.execute(db);
    const { rows: types } = await sql<{ user_id: string; gram: string; content_type: string }>`select user_id, gram, content_type from file_gram_types_tracked`.execute(db);
    return new TrackedGrams(grams, types);
  }

  /** The tracked grams of `userId` (undefined: none). */
  of(userId: string): Set<string> | undefined {
    return this.grams.get(userId);
  }

  /** Adds `delta` for each tracked gram of `source` to `days`: in its content type's rows when that type is tracked, else in {@link OTHER_TYPES}'. */
  addDays(days: Sums, source: GramSource, grams: Iterable<string>, delta: number): void {
    const tracked = this.grams.get(source.user_id);
    if (!tracked) return;
    const day = floorDiv(Number(source.created_at), DAY_MS);
    const typed = days.group(`${source.user_id}\0${day}\0${source.content_type}`);
    const others = days.group(`${source.user_id}\0${day}\0${OTHER_TYPES}`);
    const types = this.types.get(source.user_id);
    for (const gram of grams) {
      if (!tracked.has(gram)) continue;
      if (types?.has(`${source.content_type}\0${gram}`)) days.add(typed, gram, delta);
      else days.add(others, gram, delta);
    }
  }
}

/**
 * Counts `file_gram_days` anew, in the migration's transaction: tracks each content type of a
 * tracked gram that holds {@link TRACK_FROM_FILES} of its files in `file_grams` but not all of
 * them, then counts the tracked grams' files by day and by tracked type (the other types
 * together), less the changes still waiting. One pass over `files` in upload order per account.
 */
async function countGramDays(db: Kysely<any>): Promise<void> {
  await sql`delete from file_gram_days`.execute(db);
  await sql`delete from file_gram_types_tracked`.execute(db);
  await sql`
    insert into file_gram_types_tracked (user_id, gram, content_type)
    select g.user_id, g.gram, g.content_type from file_grams as g
    join file_grams_tracked as t on t.user_id = g.user_id and t.gram = g.gram
    join (select user_id, gram, sum(files) as files from file_grams group by user_id, gram) as a on a.user_id = g.user_id and a.gram = g.gram
    where g.content_type <> ${OTHER_TYPES}
    group by g.user_id, g.gram, g.content_type, a.files having sum(g.files) >= ${TRACK_FROM_FILES} and sum(g.files) < a.files
  `.execute(db);
  const tracked = await TrackedGrams.read(db);
  const days = new Sums();
  let after: { user_id: string; created_at: string | number; id: string } | undefined;
  for (;;) {
    const { rows } = await sql<GramSource & { id: string }>`
      select id, user_id, created_at, search_text, content_type, is_public from files
      ${after === undefined ? sql`` : sql`where (user_id, created_at, id) > (${after.user_id}, ${after.created_at}::bigint, ${after.id})`}
      order by user_id, created_at, id limit ${BACKFILL_BATCH}
    `.execute(db);
    if (rows.length === 0) break;
    for (const row of rows) if (tracked.of(row.user_id)) tracked.addDays(days, row, fileSearchGramsUpTo3(row.search_text), 1);
    if (days.size >= BACKFILL_FLUSH_KEYS) await addToDays(db, days);
    after = rows[rows.length - 1]!;
    if (rows.length < BACKFILL_BATCH) break;
  }
  const { rows: waiting } = await sql<GramSource & { delta: number }>`
    select p.user_id, p.created_at, p.search_text, p.content_type, p.is_public, p.delta
    from file_gram_pending as p join users as u on u.id = p.user_id
  `.execute(db);
  for (const change of waiting) {
    if (tracked.of(change.user_id)) tracked.addDays(days, change, fileSearchGramsUpTo3(change.search_text), -Number(change.delta));
  }
  await addToDays(db, days);
}
