import { type Expression, type ExpressionBuilder, type Kysely, type SelectQueryBuilder, type SqlBool, sql } from 'kysely';
import type { FileFilter } from '../../../core/files/file-repository.js';
import type { StoredFile } from '../../../core/files/stored-file.js';
import type { Paged, Window } from '../../../core/shared/pagination.js';
import { containsPattern, fileSearchNeedle } from '../file-search.js';
import { isPostgres } from './dialect.js';
import { FILE_COLUMNS, type FileRow, fileRow } from './file-rows.js';
import { cheaperIndex, chooseCountWay, choosePageWay, type CountWayInput, type IndexCost, type ListingWay, walkShareOf } from './listing-plan.js';
import { type IntegerColumn, toFlag, toMillis, toNumber } from './rows.js';
import type { HangarDatabase } from './schema.js';

/**
 * Each filter of `GET /files` but `q` (spec 4.9) as the column of `files` it compares and how: the
 * one place filters are mapped to columns. Values are converted by {@link columnValue}.
 */
const FILTER_COLUMNS = {
  type: ['content_type', '='],
  sizeMin: ['size', '>='],
  sizeMax: ['size', '<='],
  isPublic: ['is_public', '='],
  createdAfter: ['created_at', '>='],
  createdBefore: ['created_at', '<='],
  expiresBefore: ['expires_at', '<='],
} as const satisfies Record<Exclude<keyof FileFilter, 'q'>, readonly [string, '=' | '>=' | '<=']>;

type FilterField = keyof typeof FILTER_COLUMNS;

/** A filter's value as its column holds it: visibility as 0/1, times as Unix ms. */
function columnValue(value: string | number | boolean | Date): string | number {
  if (typeof value === 'boolean') return toFlag(value);
  if (value instanceof Date) return toMillis(value);
  return value;
}

/**
 * Columns each SQLite way tests on the index entry (or row) rather than lets SQLite answer by their
 * own index: the walk in list order tests size on the entries of a list-order index (the
 * account's, or its content type's or visibility's, which SQLite picks when the listing has one);
 * `size-range` tests content type, visibility, upload time and the needle on the size index's
 * entries, so SQLite walks the size range.
 */
const TESTED_NOT_INDEXED: Partial<Record<ListingWay, ReadonlySet<string>>> = {
  'list-order': new Set(['size']),
  'size-range': new Set(['is_public', 'created_at', 'expires_at', 'content_type']),
};

/** A listing, as its statements need it: the owner, the filter, and `q` folded (undefined without `q`). */
interface Listing {
  userId: string;
  filter: FileFilter;
  needle: string | undefined;
}

/**
 * The conditions of a listing on `files`: the owner, each given filter, and `q` as a LIKE on
 * `search_text` (the truth for every way of answering: an index only narrows the files tested).
 * On SQLite a column of {@link TESTED_NOT_INDEXED} for `way` is written `+column`, which keeps
 * SQLite from answering it by its own index: `list-order` walks a list-order index and tests
 * size there; `size-range` leaves SQLite the size index alone.
 */
function conditions(eb: ExpressionBuilder<HangarDatabase, 'files'>, listing: Listing, way: ListingWay | 'database'): Expression<SqlBool>[] {
  const all: Expression<SqlBool>[] = [eb('files.user_id', '=', listing.userId)];
  for (const field of Object.keys(FILTER_COLUMNS) as FilterField[]) {
    const value = listing.filter[field];
    if (value === undefined) continue;
    const [column, operator] = FILTER_COLUMNS[field];
    const ref = sql.ref(`files.${column}`);
    all.push(
      way !== 'database' && TESTED_NOT_INDEXED[way]?.has(column)
        ? sql<SqlBool>`+${ref} ${sql.raw(operator)} ${columnValue(value)}`
        : sql<SqlBool>`${ref} ${sql.raw(operator)} ${columnValue(value)}`,
    );
  }
  if (listing.needle !== undefined) all.push(sql<SqlBool>`files.search_text like ${containsPattern(listing.needle)} escape '\\'`);
  return all;
}

/** Code points a needle needs for the trigram indexes to find it: FTS5's `trigram` tokenizer and `pg_trgm` make trigrams of 3. */
const TRIGRAM_CODE_POINTS = 3;

/** Whether the trigram indexes can find the needle ({@link TRIGRAM_CODE_POINTS} or more code points). */
function trigramNeedle(needle: string | undefined): needle is string {
  return needle !== undefined && Array.from(needle).length >= TRIGRAM_CODE_POINTS;
}

/** Whether the needle is too short for the trigram indexes (1–2 code points): on Postgres, {@link anyShortNeedleMatch} asks about it first. */
function shortNeedle(needle: string | undefined): needle is string {
  return needle !== undefined && Array.from(needle).length < TRIGRAM_CODE_POINTS;
}

/**
 * Postgres, a needle of 1–2 code points (which holds no trigram): whether any file passes the
 * listing, asked with one more condition, that the file's search text holds each of the needle's
 * characters, in the expression of the index of migration 0051 (`string_to_array(search_text,
 * null) @> …`). For a character few files hold, the planner answers from that index at once; for
 * a common one, by walking in list order to the first match. A needle that no file holds is then
 * answered without walking the account. The count and the page leave that condition out: where
 * the walk in list order wins (a common character), testing it on every file walked would only
 * add to the walk (docs/search.md, "Short needles on Postgres"; decision 0027).
 * @returns whether at least one file of the account passes every filter and holds the needle
 */
async function anyShortNeedleMatch(db: Kysely<HangarDatabase>, listing: Listing & { needle: string }): Promise<boolean> {
  const characters = Array.from(listing.needle);
  const found = await db
    .selectFrom('files')
    .where((eb) => eb.and([...conditions(eb, listing, 'database'), sql<SqlBool>`string_to_array(files.search_text, null) @> ${characters}::text[]`]))
    .select(sql<number>`1`.as('one'))
    // In list order: without it the planner may take a sequential scan of the whole table for a
    // common character, expecting a match at once, and pass every other account's files first.
    .orderBy('files.created_at', 'desc')
    .orderBy('files.id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return found !== undefined;
}

/**
 * The files of a listing, in no order yet. On SQLite, `way` `index` with a needle of 3 code points
 * or more starts from the FTS5 trigram index (`files_trigram`, migration 0042) and reaches each
 * matching file through `files_trigram_keys`, in that join order (SQLite keeps the order of a CROSS
 * JOIN), so a count with a bound stops after that many matches; every other way is a statement on
 * `files` alone, its index chosen by the conditions ({@link conditions}). Postgres (`database`)
 * leaves the choice of index to its planner.
 */
function matching(db: Kysely<HangarDatabase>, listing: Listing, way: ListingWay | 'database'): SelectQueryBuilder<HangarDatabase, 'files', object> {
  if (way === 'index' && trigramNeedle(listing.needle)) {
    const phrase = `"${listing.needle.replaceAll('"', '""')}"`;
    return db
      .selectFrom('files_trigram')
      .crossJoin('files_trigram_keys')
      .crossJoin('files')
      .where(sql<SqlBool>`files_trigram match ${phrase}`)
      .whereRef('files_trigram_keys.key', '=', 'files_trigram.rowid')
      .whereRef('files.id', '=', 'files_trigram_keys.file_record_id')
      .where((eb) => eb.and(conditions(eb as unknown as ExpressionBuilder<HangarDatabase, 'files'>, listing, way)));
  }
  return db.selectFrom('files').where((eb) => eb.and(conditions(eb, listing, way)));
}

/**
 * The matches of a listing, counted up to `countLimit + 1` when `countLimit` is given (the
 * database reads no further), every one otherwise. Counted `list-order` with a bound, the matches
 * are taken newest first, so SQLite walks a list-order index as {@link chooseCountWay} assumed:
 * left free, it may walk the account on the narrower covering size index instead, where a size
 * range's files all come after (or before) every other file.
 */
async function countMatches(db: Kysely<HangarDatabase>, listing: Listing, way: ListingWay | 'database', countLimit: number | undefined): Promise<number> {
  const found = matching(db, listing, way);
  const counted =
    countLimit === undefined
      ? found.select((eb) => eb.fn.countAll<number | string>().as('total'))
      : db
          .selectFrom(
            found
              .select(sql<number>`1`.as('one'))
              .$if(way === 'list-order', (newestFirst) => newestFirst.orderBy('files.created_at', 'desc').orderBy('files.id', 'desc'))
              .limit(countLimit + 1)
              .as('bounded'),
          )
          .select((eb) => eb.fn.countAll<number | string>().as('total'));
  return toNumber((await counted.executeTakeFirstOrThrow()).total);
}

/** Newest files of the account that SQLite tests before it chooses how to count a `q` (see chooseCountWay). */
const SAMPLE_SIZE = 1_000;

/** Whether a listing has a size range (`sizeMin`, `sizeMax`), which the `size-range` way walks. */
function hasSizeRange(filter: FileFilter): boolean {
  return filter.sizeMin !== undefined || filter.sizeMax !== undefined;
}

/**
 * SQLite: the newest {@link SAMPLE_SIZE} files of the listing's upload-time range, walked on the
 * list-order index, and of those how many hold the needle, how many are in its size range (when it
 * has one), how many are of its content type and of its visibility (when it has them), and how
 * many pass every filter.
 */
async function sampleNewest(
  db: Kysely<HangarDatabase>,
  listing: Listing,
): Promise<Pick<CountWayInput, 'sampled' | 'needleMatches' | 'sizeRangeMatches' | 'walkedMatches' | 'matches'>> {
  const { createdAfter, createdBefore, sizeMin, sizeMax, type, isPublic } = listing.filter;
  const range: Listing = { userId: listing.userId, filter: { createdAfter, createdBefore }, needle: undefined };
  const sizes: Listing = { userId: listing.userId, filter: { sizeMin, sizeMax }, needle: undefined };
  const ofType: Listing = { userId: listing.userId, filter: { type }, needle: undefined };
  const ofVisibility: Listing = { userId: listing.userId, filter: { isPublic }, needle: undefined };
  const newest = db
    .selectFrom('files')
    .where((eb) => eb.and(conditions(eb, range, 'list-order')))
    .select((eb) => [
      sql<number>`files.search_text like ${containsPattern(listing.needle ?? '')} escape '\\'`.as('needle_match'),
      eb.and(conditions(eb, sizes, 'list-order')).as('size_match'),
      eb.and(conditions(eb, ofType, 'list-order')).as('type_match'),
      eb.and(conditions(eb, ofVisibility, 'list-order')).as('visibility_match'),
      eb.and(conditions(eb, listing, 'list-order')).as('full_match'),
    ])
    .orderBy('files.created_at', 'desc')
    .orderBy('files.id', 'desc')
    .limit(SAMPLE_SIZE)
    .as('newest');
  const row = await db
    .selectFrom(newest)
    .select((eb) => [
      eb.fn.countAll<number>().as('sampled'),
      sql<number>`coalesce(sum(needle_match), 0)`.as('needle'),
      sql<number>`coalesce(sum(size_match), 0)`.as('size'),
      sql<number>`coalesce(sum(type_match), 0)`.as('type'),
      sql<number>`coalesce(sum(visibility_match), 0)`.as('visibility'),
      sql<number>`coalesce(sum(full_match), 0)`.as('matches'),
    ])
    .executeTakeFirstOrThrow();
  // SQLite walks the list order of the listing's content type or of its visibility: assume the larger.
  const walked = [type === undefined ? undefined : row.type, isPublic === undefined ? undefined : row.visibility].filter((n) => n !== undefined).map(toNumber);
  return {
    sampled: toNumber(row.sampled),
    needleMatches: toNumber(row.needle),
    sizeRangeMatches: hasSizeRange(listing.filter) ? toNumber(row.size) : undefined,
    walkedMatches: walked.length === 0 ? undefined : Math.max(...walked),
    matches: toNumber(row.matches),
  };
}

/**
 * One page of a listing's files, newest first (created_at, then id, descending). On Postgres the
 * page's ids are found first and then their rows: skipping `offset` matches then reads only the
 * list-order index `files (user_id, created_at, id) include (is_public, size, content_type)` where
 * the filters allow (an index-only scan), not each skipped file's row. SQLite reads a row only for
 * the files it returns either way.
 *
 * With the exact number of matches (`matches`), a page in the older half of the list is read from
 * the oldest end (ascending, then reversed), so it skips `matches − offset − limit` matches rather
 * than `offset`: the last page of a million files is as quick as the first.
 */
async function pageOf(db: Kysely<HangarDatabase>, listing: Listing, way: ListingWay | 'database', window: Window, matches?: number): Promise<StoredFile[]> {
  const fromEnd = matches !== undefined && window.offset > matches - window.offset - window.limit;
  const direction = fromEnd ? 'asc' : 'desc';
  const limit = fromEnd ? Math.min(window.limit, matches - window.offset) : window.limit;
  const offset = fromEnd ? Math.max(0, matches - window.offset - window.limit) : window.offset;
  const inOrder = <Q extends { orderBy(column: 'files.created_at' | 'files.id', direction: 'asc' | 'desc'): Q }>(query: Q): Q =>
    query.orderBy('files.created_at', direction).orderBy('files.id', direction);
  const columns = FILE_COLUMNS.map((column) => `files.${column}` as const);
  const query =
    way === 'database'
      ? inOrder(
          db
            .selectFrom('files')
            .select(columns)
            .where(
              'files.id',
              'in',
              inOrder(matching(db, listing, way).select('files.id'))
                .limit(limit)
                .offset(offset),
            ),
        )
      : inOrder(matching(db, listing, way).select(columns))
          .limit(limit)
          .offset(offset);
  const rows = ((await query.execute()) as FileRow[]).map(fileRow.read);
  return fromEnd ? rows.reverse() : rows;
}

/**
 * SQLite: how to count a listing's matches, and what the page's index and walk would cost. With a
 * needle: by the cheaper index ({@link cheaperIndex}: the trigram index for a needle of 3 code
 * points or more, the size range walked on the size index for a listing with one) or walking, as
 * {@link chooseCountWay} judges from a sample of the newest files; a needle of 1–2 code points
 * without a size range (no index holds it): walking, stopped at the count's bound. No needle: by
 * the filter's own index (SQLite's planner chooses among content type, size and upload time).
 */
async function sqliteCountWay(
  db: Kysely<HangarDatabase>,
  listing: Listing,
  accountFiles: number,
  countLimit: number | undefined,
): Promise<{ way: ListingWay; index?: IndexCost; walkShare?: number }> {
  if (listing.needle === undefined) return { way: 'index' };
  const trigram = trigramNeedle(listing.needle);
  if (!trigram && !hasSizeRange(listing.filter)) return { way: 'list-order' };
  const input: CountWayInput = { accountFiles, countLimit, trigram, ...(await sampleNewest(db, listing)) };
  return { way: chooseCountWay(input, SAMPLE_SIZE), index: cheaperIndex(input), walkShare: walkShareOf(input) };
}

/**
 * {@link FileRepository.list} on SQLite and Postgres (docs/search.md). Every filter is a condition
 * on `files` ({@link FILTER_COLUMNS}, and `q` as a LIKE on the folded `search_text`); the page is
 * newest first, `offset` matches skipped.
 *
 * The total: read from `account_totals` when the filter is empty or visibility alone (exact, kept by
 * every insert, delete and change of visibility); otherwise counted, up to `countLimit` matches
 * (then `{ total: countLimit, totalRelation: 'gte' }`), every match without it. A page that starts
 * past the last match (or, when only the bound is known, past the account's file count) is empty
 * without a statement for it.
 *
 * Every Postgres statement is left to its planner, which answers `q` of 3 code points or more from
 * the `pg_trgm` GIN index of 0042 when it judges that cheaper than walking the account; a `q` of
 * 1–2 code points is first asked about once ({@link anyShortNeedleMatch}, the index of characters
 * of 0051), and a listing no file matches is empty without a count or a page. On SQLite,
 * whose planner cannot tell a rare needle, content type or size range from a common one, the count
 * is made the way {@link sqliteCountWay} picks, and the page the way {@link choosePageWay} picks
 * from the count (listing-plan.ts). The page and the total are separate statements, not one
 * snapshot: a write between them shows in one and not the other, as it would a moment later.
 *
 * @param options.userId the owner; `window` offset and limit (≥ 0, limit ≥ 1); `countLimit` the count bound
 * @param sqliteWay SQLite: count and page this way instead of the chosen one (the contract runs both; ignored on Postgres)
 * @returns the page, and the account's `account_totals.changes` counter as read before it was found
 *          (undefined when the account has no totals row or `q` can match nothing; KeptListings)
 */
export async function listFiles(
  db: Kysely<HangarDatabase>,
  options: { userId: string; filter: FileFilter; window: Window; countLimit?: number },
  sqliteWay?: ListingWay,
): Promise<{ page: Paged<StoredFile>; changes: number | undefined }> {
  const { userId, filter } = options;
  const needle = filter.q === undefined ? undefined : fileSearchNeedle(filter.q);
  if (filter.q !== undefined && needle === undefined) return { page: { items: [], total: 0 }, changes: undefined };
  const totals = await db
    .selectFrom('account_totals')
    .select(['files_count', 'public_files_count', 'changes'])
    .where('user_id', '=', userId)
    .executeTakeFirst();
  const changes = totals && toNumber(totals.changes);
  return { page: await findPage(db, { ...options, needle, totals }, sqliteWay), changes };
}

/** {@link listFiles} once the account's totals row is read (`totals`, undefined without one). */
async function findPage(
  db: Kysely<HangarDatabase>,
  options: {
    userId: string;
    filter: FileFilter;
    window: Window;
    countLimit?: number;
    needle: string | undefined;
    totals: { files_count: IntegerColumn; public_files_count: IntegerColumn } | undefined;
  },
  sqliteWay: ListingWay | undefined,
): Promise<Paged<StoredFile>> {
  const { userId, filter, window, countLimit, needle, totals } = options;
  const none: Paged<StoredFile> = { items: [], total: 0 };
  const accountFiles = totals ? toNumber(totals.files_count) : 0;
  if (accountFiles === 0) return none;
  const listing: Listing = { userId, filter, needle };
  const postgres = isPostgres(db);
  const used = Object.keys(filter).filter((name) => filter[name as keyof FileFilter] !== undefined);
  if (used.length === 0 || (used.length === 1 && used[0] === 'isPublic')) {
    const publicFiles = toNumber(totals!.public_files_count);
    const total = filter.isPublic === undefined ? accountFiles : filter.isPublic ? publicFiles : accountFiles - publicFiles;
    return { items: total > window.offset ? await pageOf(db, listing, postgres ? 'database' : 'list-order', window, total) : [], total };
  }
  if (postgres && shortNeedle(needle) && !(await anyShortNeedleMatch(db, { ...listing, needle }))) return none;
  const counting = postgres || sqliteWay ? undefined : await sqliteCountWay(db, listing, accountFiles, countLimit);
  const matches = await countMatches(db, listing, postgres ? 'database' : (sqliteWay ?? counting!.way), countLimit);
  const atLeast = countLimit !== undefined && matches > countLimit;
  const total = atLeast ? { total: countLimit, totalRelation: 'gte' as const } : { total: matches };
  // Past the last match, the page is empty. With only the count's bound known, the account's own
  // file count (exact, read above) bounds the matches instead: a deep page past it is answered
  // without walking and sorting every match to skip them.
  if (matches === 0 || window.offset >= (atLeast ? accountFiles : matches)) return { items: [], ...total };
  const pageWay = (): ListingWay =>
    choosePageWay({ accountFiles, matches, atLeast, wanted: window.offset + window.limit, index: counting?.index, walkShare: counting?.walkShare }) === 'index'
      ? (counting?.index?.way ?? 'index')
      : 'list-order';
  const way = postgres ? 'database' : (sqliteWay ?? pageWay());
  return { items: await pageOf(db, listing, way, window, atLeast ? undefined : matches), ...total };
}
