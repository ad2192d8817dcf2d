import { CompiledQuery, type Kysely, sql } from 'kysely';
import type { FileFilter } from '../../../core/files/file-repository.js';
import type { Window } from '../../../core/shared/pagination.js';
import { containsPattern, fileSearchNeedle } from '../file-search.js';
import { toFlag, toMillis, toNumber } from './rows.js';
import { accountKey, codePointsOf, FILE_SEARCH_FUNCTION, fileSearchDocument, gramToken, clampedBucket, DAY_BUCKET_SHIFT, RANGE_DIMENSIONS, rangeToken, rangeTokens, typeToken, visibilityToken } from '../sqlite/file-search-tokens.js';
import { DAY_MS } from './file-histogram.js';
import type { SqlExecutor } from './sql-executor.js';

/**
 * The substring index of `GET /files?q=` on SQLite (spec 4.9; issue 21). SQLite has no index that
 * serves `LIKE '%needle%'`, so every file has one document in this contentless FTS5 table
 * (migration 0032) under its `rowid` in `files`: the tokens of file-search-tokens.ts, one per
 * distinct 1-, 2- and 3-code-point gram of `search_text`, one each for content type and
 * visibility, and the upload day's and size class's buckets, all prefixed with the owner's account key.
 *
 * A needle of at most 3 code points is then exactly one gram token: the files whose document has
 * it are exactly the account's files containing the needle (up to a collision of two accounts'
 * 64-bit keys). A longer needle is the AND of its trigram tokens: a superset, verified with the
 * same `LIKE` as before. Every row read is verified against the owner and every filter, so the
 * index may hold more than needed but never too little.
 *
 * The table is kept by triggers on `files` (insert; delete, also through the foreign-key cascade of
 * an account deletion; update of `search_text`, `content_type` or `is_public`): since migration 0033
 * a written file waits in {@link FILE_SEARCH_PENDING_TABLE} (its old document dropped) until a batch
 * ({@link FILE_SEARCH_FLUSH_STATEMENTS}, run by FileSearchIndexer) computes its document with the SQL
 * function FILE_SEARCH_FUNCTION, which every connection that indexes registers
 * (registerFileSearchFunction; openSqliteDatabase and the checkpoint worker do). A search reads the
 * waiting files as candidates too.
 *
 * Rowids: `files` has a text primary key, so its rowid is SQLite's own. SQLite documents that
 * VACUUM "may change" such rowids; the SQLite bundled here (3.53) keeps them through VACUUM and
 * VACUUM INTO (checked: bench/postgres-list-files.md, 2026-11-26), and the online backup copies
 * pages. Should a future SQLite renumber them, {@link rebuildFileSearch} writes the table anew.
 */
export const FILE_SEARCH_TABLE = 'files_search';

/**
 * Candidates (FTS matches) up to which a search reads and verifies them all, sorts the matches and
 * counts them exactly; beyond it the needle is common in the account, and the page is found by
 * walking the account's files in list order, which then stops early (bench/postgres-list-files.md, 2026-11-26).
 */
export const DEFAULT_CANDIDATE_LIMIT = 5_000;

/**
 * Trigrams of a long needle that the FTS query ANDs at most: of its trigrams that tile it (from
 * every third code point, and the last), evenly spread over them; the rest is left to `LIKE`.
 */
const MAX_QUERY_TRIGRAMS = 12;

/**
 * The trigrams of a needle of at least 4 code points that the FTS query ANDs: those that tile it,
 * starting at code points 0, 3, 6, … and the last three, so each code point is in one (two for
 * the last ones), at most {@link MAX_QUERY_TRIGRAMS} of them evenly spread. The overlapping
 * trigrams between them are held by nearly the same files, and each one ANDed reads its whole
 * posting list: `holiday-summer`'s twelve cost ~18 ms at 1,000,000 files, its five tiles ~5 ms,
 * for the same 2,540 candidates (bench/postgres-list-files.md, "SQLite: the page cache, and fewer trigram tokens").
 */
export function queryTrigrams<T>(points: readonly T[]): T[][] {
  const starts: number[] = [];
  for (let at = 0; at <= points.length - 3; at += 3) starts.push(at);
  if (starts[starts.length - 1] !== points.length - 3) starts.push(points.length - 3);
  const step = Math.max(1, (starts.length - 1) / (MAX_QUERY_TRIGRAMS - 1));
  const chosen = new Set<number>();
  for (let at = 0; at < starts.length && chosen.size < MAX_QUERY_TRIGRAMS; at += step) chosen.add(starts[Math.round(at)]!);
  chosen.add(starts[starts.length - 1]!);
  return [...chosen].map((start) => points.slice(start, start + 3));
}

/** A file's document in SQL, from the columns of the row `alias` (`new` in a trigger). */
const documentOf = (alias: string) =>
  `${FILE_SEARCH_FUNCTION}(${alias}.user_id, ${alias}.search_text, ${alias}.content_type, ${alias}.is_public, ${alias}.size, ${alias}.created_at)`;

/** The head of the update trigger of migrations 0032 and 0033: an update that changes a column the document is made of. */
const UPDATE_TRIGGER_HEAD = `create trigger files_search_update after update of search_text, content_type, is_public, size, created_at, user_id on files
  when old.search_text is not new.search_text or old.content_type is not new.content_type or old.is_public is not new.is_public or old.size is not new.size
    or old.created_at is not new.created_at or old.user_id is not new.user_id begin`;

/** The SQL of migration 0032 (SQLite): the FTS table and the triggers that keep it (see {@link FILE_SEARCH_TABLE}). */
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

/**
 * Files written since the last {@link FILE_SEARCH_FLUSH_STATEMENTS}: their rowid in `files`, kept by
 * the triggers of migration 0033 instead of indexing each file in its own upload's transaction.
 * FTS5 writes a new segment at every commit that changed it, which cost an upload ~250–400 µs at
 * 100,000 files (bench/README.md, "Search index writes off the upload"); indexed in batches, a file
 * costs a fraction of that. Searches read these files too (every candidate is verified on its row),
 * so a file is found by `q` from its upload's commit on, indexed or not.
 */
export const FILE_SEARCH_PENDING_TABLE = 'files_search_pending';

/**
 * The SQL of migration 0033 (SQLite): the pending table, and triggers on `files` that note a
 * written file there (insert; update of an indexed column, after dropping its old document) and
 * drop a deleted file from both.
 */
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

/** Pending files indexed by one run of {@link FILE_SEARCH_FLUSH_STATEMENTS} (one transaction). */
export const FILE_SEARCH_FLUSH_BATCH = 2_000;

/**
 * One batch of pending files indexed, as one transaction (run them in order inside one): the oldest
 * {@link FILE_SEARCH_FLUSH_BATCH} pending files get their documents (FILE_SEARCH_FUNCTION, which the
 * connection must have registered), and leave the pending table. No other writer commits in between
 * (SQLite has one writer), so both statements select the same files.
 */
export const FILE_SEARCH_FLUSH_STATEMENTS: readonly string[] = [
  `insert into ${FILE_SEARCH_TABLE} (rowid, document)
    select f.rowid, ${documentOf('f')}
    from (select file_rowid from ${FILE_SEARCH_PENDING_TABLE} order by file_rowid limit ${FILE_SEARCH_FLUSH_BATCH}) as p
    join files as f on f.rowid = p.file_rowid`,
  `delete from ${FILE_SEARCH_PENDING_TABLE} where file_rowid in (select file_rowid from ${FILE_SEARCH_PENDING_TABLE} order by file_rowid limit ${FILE_SEARCH_FLUSH_BATCH})`,
];

/** Whether any file waits to be indexed (one indexed read). */
export const FILE_SEARCH_PENDING_SQL = `select 1 as pending from ${FILE_SEARCH_PENDING_TABLE} limit 1`;

/**
 * Indexes every pending file now, a batch per transaction (tests, tools; a running server does it
 * in the background: openSqliteDatabase). The connection must have FILE_SEARCH_FUNCTION registered.
 * @returns the number of files indexed
 */
export async function flushFileSearch(db: Kysely<any>): Promise<number> {
  let indexed = 0;
  for (;;) {
    const batch = await db.transaction().execute(async (trx) => {
      const [insert, ...rest] = FILE_SEARCH_FLUSH_STATEMENTS;
      const result = await trx.executeQuery(CompiledQuery.raw(insert!, []));
      for (const statement of rest) await trx.executeQuery(CompiledQuery.raw(statement, []));
      return Number(result.numAffectedRows ?? 0n);
    });
    indexed += batch;
    if (batch < FILE_SEARCH_FLUSH_BATCH) return indexed;
  }
}

/** Rows of `files` per batch of {@link rebuildFileSearch}. */
const REBUILD_BATCH = 2_000;

/**
 * Writes {@link FILE_SEARCH_TABLE} anew from every row of `files`: emptied, then filled in batches
 * of {@link REBUILD_BATCH} rows in rowid order, documents computed here (so the connection needs no
 * registered function). Migration 0032 fills the table with it; run it again (inside one
 * transaction) if the rowids of `files` ever changed under the table.
 * @returns the number of files indexed
 */
export async function rebuildFileSearch(db: Kysely<any>): Promise<number> {
  await sql`insert into ${sql.table(FILE_SEARCH_TABLE)} (${sql.table(FILE_SEARCH_TABLE)}) values ('delete-all')`.execute(db);
  // From migration 0033 on, files may wait in the pending table: every file is indexed below.
  const { rows: pendingTable } = await sql<{ name: string }>`select name from sqlite_master where type = 'table' and name = ${FILE_SEARCH_PENDING_TABLE}`.execute(db);
  if (pendingTable.length > 0) await sql`delete from ${sql.table(FILE_SEARCH_PENDING_TABLE)}`.execute(db);
  let last = Number.MIN_SAFE_INTEGER;
  let indexed = 0;
  for (;;) {
    const { rows } = await sql<{ r: number; user_id: string; search_text: string; content_type: string; is_public: number; size: number; created_at: number }>`
      select rowid as r, user_id, search_text, content_type, is_public, size, created_at from files where rowid > ${last} order by rowid limit ${REBUILD_BATCH}
    `.execute(db);
    if (rows.length === 0) break;
    const values = rows.map(
      (row) => sql`(${row.r}, ${fileSearchDocument({
          userId: row.user_id, searchText: row.search_text, contentType: row.content_type, isPublic: Number(row.is_public), size: Number(row.size), createdAtMs: Number(row.created_at),
        })})`,
    );
    // 2 parameters per row: a few hundred rows per statement stay far under SQLite's parameter limit.
    for (let start = 0; start < values.length; start += 500) {
      await sql`insert into ${sql.table(FILE_SEARCH_TABLE)} (rowid, document) values ${sql.join(values.slice(start, start + 500))}`.execute(db);
    }
    indexed += rows.length;
    last = rows[rows.length - 1]!.r;
    if (rows.length < REBUILD_BATCH) break;
  }
  return indexed;
}

/** A listing's total (see FileRepository.list): exact, or the bound with `gte`. */
export type SearchTotal = { total: number; totalRelation?: 'gte' };

/** A block of upload days in the hierarchy of file-search-tokens.ts: its level (0: one UTC day), its number at that level, and the account's files in it (of the filtered type and visibility). */
interface DayBlock {
  level: number;
  block: number;
  files: number;
}

/** Options of {@link SqliteFileSearch}. */
export interface SqliteFileSearchOptions {
  /** See {@link DEFAULT_CANDIDATE_LIMIT}; tests set it low to take both ways with a few files. */
  candidateLimit?: number;
}

/** Each filter but `q` as a column of `files`, its comparison, and its value as SQL binds it. */
const COMPARISONS = [
  ['type', 'content_type', '=', (value: unknown) => value],
  ['sizeMin', 'size', '>=', (value: unknown) => value],
  ['sizeMax', 'size', '<=', (value: unknown) => value],
  ['isPublic', 'is_public', '=', (value: unknown) => toFlag(value as boolean)],
  ['createdAfter', 'created_at', '>=', (value: unknown) => toMillis(value as Date)],
  ['createdBefore', 'created_at', '<=', (value: unknown) => toMillis(value as Date)],
  ['expiresBefore', 'expires_at', '<=', (value: unknown) => toMillis(value as Date)],
] as const satisfies readonly (readonly [keyof FileFilter, string, string, (value: unknown) => unknown])[];

/**
 * The conditions that verify a candidate row `f` of `files` (owner, the folded `needle` as `LIKE`,
 * every other filter), with their parameters in order; `onlyIndexed` when the only other filters
 * are content type and visibility, which the index holds as tokens.
 */
function verifiedConditions(userId: string, needle: string, filter: FileFilter): { conditions: string[]; parameters: unknown[]; onlyIndexed: boolean } {
  const conditions = [`f.user_id = ?`, `f.search_text like ? escape '\\'`];
  const parameters: unknown[] = [userId, containsPattern(needle)];
  let onlyIndexed = true;
  for (const [name, column, operator, value] of COMPARISONS) {
    if (filter[name] === undefined) continue;
    conditions.push(`f.${column} ${operator} ?`);
    parameters.push(value(filter[name]));
    if (name !== 'type' && name !== 'isPublic') onlyIndexed = false;
  }
  return { conditions, parameters, onlyIndexed };
}

/** The tokens of `filter`'s content type and visibility, those it gives, in the account with key `key`. */
function attributeTokens(key: string, filter: FileFilter): string[] {
  const tokens: string[] = [];
  if (filter.type !== undefined) tokens.push(typeToken(key, filter.type));
  if (filter.isPublic !== undefined) tokens.push(visibilityToken(key, toFlag(filter.isPublic)));
  return tokens;
}

/**
 * `GET /files?q=` on SQLite through {@link FILE_SEARCH_TABLE}. Per request:
 *
 * 1. The FTS query: the needle's tokens, ANDed with the content type's and visibility's when
 *    filtered, and with the OR of a date or size range's bucket tokens (rangeTokens: the range's
 *    files plus those of the one or two buckets it cuts); its matches (candidates) counted up to
 *    `candidateLimit + 1` (posting lists only, no row read).
 * 2. At most `candidateLimit` candidates: each row is read by rowid and verified (owner, `LIKE`,
 *    every filter), the matches sorted newest first; the total is exact (bounded by `countLimit`),
 *    the page read by rowid.
 * 3. More candidates (a needle common in the account): the page is left to the caller's walk in
 *    list order (SqlFileRepository.page, which stops after the page's matches). The total: for a
 *    needle of at most 3 code points with no filter but type and visibility, the FTS matches are
 *    the matches, so more than `countLimit` of them answer `countLimit` with `gte` without reading
 *    a row; otherwise the candidates are verified row by row until `countLimit + 1` matches.
 *
 * A deep page of a common needle of at most 3 code points is placed by {@link place} (the upload
 * day's tokens) rather than skipped match by match.
 *
 * Slow cases left: deep pages of a common longer needle, or of one with a date or size range (the
 * walk skips `offset` matches one by one), and a long needle whose trigrams are each common while
 * the needle itself is rare (many candidates, few matches: the walk and the count pass over many rows).
 */
export class SqliteFileSearch {
  private readonly candidateLimit: number;

  /**
   * @param executor the SQLite database (reads go through its direct reader when it has one)
   * @param columns the columns of `files` a page row is read with
   */
  constructor(
    private readonly executor: SqlExecutor,
    private readonly columns: readonly string[],
    options: SqliteFileSearchOptions = {},
  ) {
    this.candidateLimit = options.candidateLimit ?? DEFAULT_CANDIDATE_LIMIT;
  }

  /**
   * The total of a listing with `filter.q`, and its page when the candidates were few (rows with
   * `columns`, newest first); `rows` undefined: the caller finds the page. Undefined when the index
   * cannot serve the filter (no `q`, or an empty needle): the caller lists as without it.
   */
  async list(options: { userId: string; filter: FileFilter; window: Window; countLimit?: number }): Promise<{ total: SearchTotal; rows?: Record<string, unknown>[] } | undefined> {
    const { userId, filter, window, countLimit } = options;
    if (filter.q === undefined) return undefined;
    const needle = fileSearchNeedle(filter.q);
    if (needle === undefined) return { total: { total: 0 }, rows: [] };
    const points = codePointsOf(needle);
    if (points.length === 0) return undefined;
    const key = accountKey(userId);
    const tokens = new Set<string>();
    if (points.length <= 3) tokens.add(gramToken(key, points));
    else {
      for (const trigram of queryTrigrams(points)) tokens.add(gramToken(key, trigram));
    }
    for (const token of attributeTokens(key, filter)) tokens.add(token);
    const quoted = (list: Iterable<string>) => [...list].map((token) => `"${token}"`);
    const ors: string[] = [];
    const ranges = [
      filter.createdAfter === undefined && filter.createdBefore === undefined
        ? undefined
        : rangeTokens(key, 'day', filter.createdAfter && toMillis(filter.createdAfter), filter.createdBefore && toMillis(filter.createdBefore)),
      filter.sizeMin === undefined && filter.sizeMax === undefined ? undefined : rangeTokens(key, 'size', filter.sizeMin, filter.sizeMax),
    ];
    for (const cover of ranges) {
      if (cover === undefined) continue;
      // An empty cover: the range holds no bucket (after > before, min > max), so no file.
      if (cover.length === 0) return { total: { total: 0 }, rows: [] };
      ors.push(`(${quoted(cover).join(' OR ')})`);
    }
    const match = [...quoted(tokens), ...ors].join(' AND ');

    // Candidates: the index's matches and the files not indexed yet (FILE_SEARCH_PENDING_TABLE); never both.
    const candidateRowids = `(select rowid as r from ${FILE_SEARCH_TABLE}(?) union all select file_rowid as r from ${FILE_SEARCH_PENDING_TABLE})`;
    const [{ n: candidates }] = await this.read<{ n: number }>(`select count(*) as n from (select 1 from ${candidateRowids} limit ?)`, [match, this.candidateLimit + 1]);
    const bound = (count: number): SearchTotal => (countLimit !== undefined && count > countLimit ? { total: countLimit, totalRelation: 'gte' } : { total: count });
    if (candidates === 0) return { total: { total: 0 }, rows: [] };

    const verified = verifiedConditions(userId, needle, filter);
    const { onlyIndexed } = verified;
    const parameters = [match, ...verified.parameters];
    const matching = `from ${candidateRowids} s cross join files f on f.rowid = s.r where ${verified.conditions.join(' and ')}`;

    if (toNumber(candidates) <= this.candidateLimit) {
      const keys = await this.read<{ r: number }>(`select f.rowid as r ${matching} order by f.created_at desc, f.id desc`, parameters);
      const page = keys.slice(window.offset, window.offset + window.limit).map((row) => row.r);
      const rows = page.length === 0 ? [] : await this.read<Record<string, unknown>>(
        `select ${this.columns.join(', ')} from files where rowid in (select value from json_each(?)) order by created_at desc, id desc`,
        [JSON.stringify(page)],
      );
      return { total: bound(keys.length), rows };
    }
    if (points.length <= 3 && onlyIndexed && countLimit !== undefined) {
      const [{ n }] = await this.read<{ n: number }>(`select count(*) as n from (select 1 from ${FILE_SEARCH_TABLE}(?) limit ?)`, [match, countLimit + 1]);
      if (toNumber(n) > countLimit) return { total: { total: countLimit, totalRelation: 'gte' } };
    }
    const [{ n }] =
      countLimit === undefined
        ? await this.read<{ n: number }>(`select count(*) as n ${matching}`, parameters)
        : await this.read<{ n: number }>(`select count(*) as n from (select 1 ${matching} limit ?)`, [...parameters, countLimit + 1]);
    return { total: bound(toNumber(n)) };
  }

  /**
   * Where a deep page of a search starts, so that the caller's walk in list order skips at most one
   * UTC day's matches instead of `offset` of them: the UTC day that holds the `offset`-th match
   * (0-based, newest first), and the matches to skip within it.
   *
   * Found by descending the base-4 hierarchy of upload days that every document holds
   * (file-search-tokens.ts) from its 4 top blocks to one day: at each level the child blocks are
   * counted as the FTS matches of the needle's gram token ANDed with the block's token, plus the
   * matching files not indexed yet, until the one that holds the offset. The account's files per
   * day (`dayFiles`, of the filtered type and visibility) spare most counts: a block
   * without files holds no match and one that holds all of its parent's files holds all of its
   * matches. Once a parent's matches are known, its children are counted from the end nearer the
   * offset and the last one holds what the others leave. A count costs about its block's postings
   * (bench/postgres-list-files.md, 2026-11-26: ~25 ms for page 1,000 of a 5 % needle at 1,000,000 files),
   * so a block is counted whole only when the needle's share so far (matches counted against the
   * files of the blocks counted) says the offset lies past it, whose matches are then all passed
   * anyway; a block that probably holds the offset is descended into uncounted, its children
   * counted instead. The postings counted are then about the offset's, not the offset's plus its
   * block's (bench/postgres-list-files.md, "Twentieth session": page 10,000 of `q=a`).
   *
   * Those counts are the matches exactly because a needle of at most 3 code points is one gram
   * token and content type and visibility are tokens too (up to a collision of two accounts' 64-bit
   * keys, as for {@link list}'s bounded count). The page is then the same search narrowed to files
   * uploaded up to the day's last millisecond, at the offset left: the same rows as skipping, since
   * a day holds every file uploaded in it and ties in `created_at` fall within one day. The
   * statements are not one snapshot: a concurrent upload or delete may shift the page by the files
   * it adds or removes, as it would a moment later.
   *
   * @param options.offset matches to skip (≥ 0)
   * @param options.dayFiles the account's files per UTC day (`bucket`: days since the epoch, as in
   *        `file_histogram`) of the filter's content type and visibility, days without files left
   *        out; read only when the search can be placed
   * @returns `before`, the day's last millisecond (Unix ms, inclusive bound for `createdBefore`), and
   *          `offset`, the matches to skip from it; undefined when the search cannot be placed this
   *          way (a needle longer than 3 code points or empty, a filter other than `type` and
   *          `isPublic`, a file uploaded outside the hierarchy's ±5,700 years), or when `offset`
   *          is past the last match
   */
  async place(options: {
    userId: string;
    filter: FileFilter;
    offset: number;
    dayFiles: () => Promise<ReadonlyArray<{ bucket: number; files: number }>>;
  }): Promise<{ before: number; offset: number } | undefined> {
    const { userId, filter } = options;
    const needle = filter.q === undefined ? undefined : fileSearchNeedle(filter.q);
    const points = needle === undefined ? [] : codePointsOf(needle);
    if (needle === undefined || points.length === 0 || points.length > 3) return undefined;
    const verified = verifiedConditions(userId, needle, filter);
    if (!verified.onlyIndexed) return undefined;
    const key = accountKey(userId);
    const match = [gramToken(key, points), ...attributeTokens(key, filter)].map((token) => `"${token}"`).join(' AND ');

    // The matches among files not indexed yet, by day bucket.
    const pending = await this.read<{ t: number }>(
      `select f.created_at as t from ${FILE_SEARCH_PENDING_TABLE} p cross join files f on f.rowid = p.file_rowid where ${verified.conditions.join(' and ')}`,
      verified.parameters,
    );
    const { levels } = RANGE_DIMENSIONS.day;
    const pendingBuckets = pending.map((row) => clampedBucket('day', toNumber(row.t)));
    // The account's files per day (of the type and visibility filtered): a block without files holds
    // no match, and a block that holds all of its parent's files holds all of its matches, so
    // neither is counted in the index.
    const days = (await options.dayFiles()).map((day) => ({ bucket: clampedBucket('day', day.bucket * DAY_MS), files: day.files }));
    const filesIn = (level: number, block: number) => days.reduce((sum, day) => (Math.floor(day.bucket / 4 ** level) === block ? sum + day.files : sum), 0);
    const inIndex = async (level: number, block: number) => {
      const [{ n }] = await this.read<{ n: number }>(`select count(*) as n from ${FILE_SEARCH_TABLE}(?)`, [`${match} AND "${rangeToken(key, 'day', level, block)}"`]);
      return toNumber(n) + pendingBuckets.filter((b) => Math.floor(b / 4 ** level) === block).length;
    };

    // The matches counted so far against the files of the blocks counted: the needle's share, which
    // tells a block that probably holds the offset (descended into, its children counted instead of
    // it) from one that probably does not (counted whole: its matches are all passed anyway).
    const seen = { files: 0, matches: 0 };
    const count = async (child: DayBlock) => {
      const matches = await inIndex(child.level, child.block);
      seen.files += child.files;
      seen.matches += matches;
      return matches;
    };

    // The block's `left`-th match (0-based) counted from the `newestEnd` (else the oldest), found in
    // its child blocks: the day that holds it, with `left` within that day from the newest end; or,
    // when the block holds no more than `left` matches, how many it holds. `known`: the block's
    // matches when counted, else undefined.
    const seek = async (parent: DayBlock, known: number | undefined, left: number, newestEnd: boolean): Promise<{ day: number; left: number } | { matches: number }> => {
      if (known !== undefined && left >= known) return { matches: known };
      if (parent.level === 0) {
        const matches = known ?? (await count(parent));
        return left < matches ? { day: parent.block, left: newestEnd ? left : matches - 1 - left } : { matches };
      }
      // A known count is searched from the end nearer the match.
      if (known !== undefined && left >= known / 2) {
        const found = await seek(parent, known, known - 1 - left, !newestEnd);
        return 'day' in found ? found : { matches: known };
      }
      const level = parent.level - 1;
      const children = [3, 2, 1, 0].map((i) => ({ level, block: 4 * parent.block + i, files: filesIn(level, 4 * parent.block + i) })).filter((child) => child.files > 0);
      if (!newestEnd) children.reverse();
      let passed = 0;
      for (const [i, child] of children.entries()) {
        // A block that holds all of its parent's files holds all of its matches.
        if (child.files === parent.files) return seek(child, known, left, newestEnd);
        // The last child holds what the others leave.
        if (i === children.length - 1 && known !== undefined) {
          const found = await seek(child, known - passed, left - passed, newestEnd);
          return 'day' in found ? found : { matches: passed + found.matches };
        }
        const share = seen.files === 0 ? undefined : seen.matches / seen.files;
        if (level > 0 && share !== undefined && passed + child.files * share > left) {
          const found = await seek(child, undefined, left - passed, newestEnd);
          if ('day' in found) return found;
          passed += found.matches;
          continue;
        }
        const matches = await count(child);
        if (left - passed < matches) return seek(child, matches, left - passed, newestEnd);
        passed += matches;
      }
      // Past the last match (or a count moved by a concurrent write between the statements).
      return { matches: passed };
    };

    const found = await seek({ level: levels, block: 0, files: days.reduce((sum, day) => sum + day.files, 0) }, undefined, options.offset, true);
    if (!('day' in found)) return undefined;
    // The edge buckets hold every file clamped into them, not one day.
    if (found.day === 0 || found.day === 4 ** levels - 1) return undefined;
    return { before: (found.day - DAY_BUCKET_SHIFT + 1) * DAY_MS - 1, offset: found.left };
  }

  /** The rows of one read-only statement: through the direct reader when it answers, else through Kysely. */
  private async read<Row>(text: string, parameters: readonly unknown[]): Promise<Row[]> {
    const rows = this.executor.direct?.read(text, parameters, false);
    if (rows) return rows as Row[];
    return (await this.executor.db.executeQuery(CompiledQuery.raw(text, [...parameters]))).rows as Row[];
  }
}
