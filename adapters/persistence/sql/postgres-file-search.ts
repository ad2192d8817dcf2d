import { type Expression, type ExpressionBuilder, expressionBuilder, type Kysely, type RawBuilder, type SqlBool, sql } from 'kysely';
import { containsPattern } from '../file-search.js';
import { DAY_OF, FILE_GRAM_PENDING_TABLE, gramDay } from '../postgres/file-gram-counts.js';
import { DAY_MS } from './file-histogram.js';
import { repeatedStatement } from './precompiled-query.js';
import type { HangarDatabase } from './schema.js';

/** The newest files of the account that {@link PostgresFileSearch} examines first (the probe), in list order. */
export const PROBE_FILES = 2_000;

/**
 * The columns of `files` the probe keeps of each file it examines: the list order, the needle's
 * text and every column a listing filter tests (the conditions of SqlFileRepository's listing
 * other than the owner; SqlFileRepository's `FILTER_COMPARISONS` may name no other).
 */
export const PROBE_COLUMNS = ['id', 'created_at', 'search_text', 'content_type', 'size', 'is_public', 'expires_at'] as const satisfies readonly (keyof HangarDatabase['files'])[];

/**
 * The share of the probe's files that must match for the bounded count to walk the account in list
 * order (`(user_id, created_at, id)`, testing each file) rather than read the needle's index: walking
 * passes about `countLimit / share` files, the index yields every match of the needle (in every
 * account) before the count stops (bench/postgres-list-files.md, the section on 0031).
 */
export const WALK_SHARE = 0.1;

/**
 * When the count is unbounded: more matches than this make a needle common (see
 * {@link PostgresFileSearch.list}, step 3), as the bound of `GET /files` does.
 */
const COMMON_MATCHES = 10_000;

/**
 * Waiting gram changes (file-gram-counts.ts) of an account beyond which a search does not add them
 * up itself but searches as without the gram counts (the background fold is behind).
 */
export const PENDING_LIMIT = 20_000;

/** Files a page may walk in list order, from the newest or from the day that holds it, rather than be placed or collected (~15 ms). */
export const WALK_FILES = 20_000;

/** A match collected from the needle's index costs about as much as this many files walked in list order (heap row and recheck against an index entry). */
const COLLECT_COST_IN_WALKED_FILES = 3;

/**
 * A file's row read through a bitmap costs about this many index entries added to a bitmap (the
 * rows of 60,000 scattered files against the entries of 60,000: bench/postgres-list-files.md,
 * "Combined filters: 0040, 0041 and collecting by the range's index").
 */
const ROW_COST_IN_ENTRIES = 5;

/**
 * An entry of an index read in its order, the needle tested on the entry itself (the size index
 * holds the search text: migration 0041), against a file added to a bitmap. Measured about 2 on
 * one machine and well under 1 on another (bench/postgres-list-files.md, "Postgres: fewer
 * trigrams"); with 1.5 the way taken on either cost at most ~1.3 times the other.
 */
const SCANNED_ENTRY_COST = 1.5;

/**
 * An entry of the trigram index decoded while its bitmap is built, against a file added to the
 * bitmap (the 300,000 entries of `holiday`'s five trigrams yielding 60,000 files took about 1.5
 * times as long as the 60,000 of one: bench/postgres-list-files.md, "Postgres: fewer trigrams").
 */
const DECODED_ENTRY_COST = 0.2;

/**
 * The needle's share of the probe's files is multiplied by this before it is taken for the
 * account's (narrowedTrigrams): a share of 5 % among 2,000 files is known to about ±10 %, and a
 * narrowed index read is worth most for common needles.
 */
const PROBE_SAMPLE_MARGIN = 1.25;

/**
 * How many times the count's bound the estimated matches of a search must be for its page to be
 * walked while they are counted (see `PostgresFileSearch.walkedAlongside`): the probe's share is
 * a sample of 2,000 files.
 */
const LIKELY_COMMON_MARGIN = 1.5;

/** Planner settings, local to a transaction: only bitmap scans, no parallel workers (see `fromIndex`). */
export const BITMAPS_ONLY = sql`select set_config('enable_seqscan', 'off', true), set_config('enable_indexscan', 'off', true), set_config('max_parallel_workers_per_gather', '0', true)`;

/** Planner settings, local to a transaction: walk an index in list order, no sequential scan, no bitmap (see `pageAlone`). */
const WALK_ONLY = sql`select set_config('enable_seqscan', 'off', true), set_config('enable_bitmapscan', 'off', true), set_config('max_parallel_workers_per_gather', '0', true)`;

/** ` and c1 and c2 …` to append to a WHERE clause; nothing for no conditions. */
function andAll(conditions: RawBuilder<unknown>[]): RawBuilder<unknown> {
  return conditions.length === 0 ? sql`` : sql` and ${sql.join(conditions, sql` and `)}`;
}

/** The code points of `needle` (a character beyond the BMP is one). */
function codePoints(needle: string): number {
  return [...needle].length;
}

/**
 * The condition of a `q` needle (folded, see fileSearchNeedle) that an index answers on Postgres:
 * a needle of one or two code points is one of `hangar_search_grams(search_text)` (migration 0031;
 * exact, since those are all of the text's substrings of that length), served by the GIN index
 * `files_search_grams`; a longer one is a LIKE on `search_text`, served by the trigram index
 * `files_search_text_trgm` (0003). The empty needle matches every file.
 */
export function indexedNeedleCondition(needle: string): Expression<SqlBool> {
  const points = codePoints(needle);
  if (points === 0) return sql<SqlBool>`true`;
  if (points <= 2) return sql<SqlBool>`hangar_search_grams(search_text) @> array[${needle}::text]`;
  return likeCondition(needle);
}

/** The needle as a LIKE on `search_text`: the form to test file by file with (the gram function costs tens of µs a call, LIKE far less). */
function likeCondition(needle: string): Expression<SqlBool> {
  return sql<SqlBool>`search_text like ${containsPattern(needle)} escape '\\'`;
}

/** {@link likeCondition} in a form no index answers (`search_text || ''`): tested on each file another index yields. */
function testedNeedleCondition(needle: string): Expression<SqlBool> {
  return sql<SqlBool>`(search_text || '') like ${containsPattern(needle)} escape '\\'`;
}

/** The distinct substrings of `needle` of `length` code points (all of it when shorter). */
function gramsOf(needle: string, length: number): string[] {
  const points = [...needle];
  if (points.length <= length) return [needle];
  return [...new Set(points.slice(0, points.length - length + 1).map((_, i) => points.slice(i, i + length).join('')))];
}

/**
 * The account's files that hold each trigram of a needle (see `PostgresFileSearch.trigramCounts`),
 * its files in all, and the needle's characters beyond ASCII that pg_trgm reads as letters or
 * digits in this database (its `LC_CTYPE`).
 */
interface TrigramCounts {
  grams: Map<string, number>;
  files: number;
  wordCharacters: ReadonlySet<string>;
}

/** A run of characters pg_trgm may read as a word: ASCII letters and digits, and any character beyond ASCII (which the database's locale decides). */
const MAYBE_WORD = /[a-z0-9\u0080-\u{10ffff}]+/gu;

/** The schema of pg_trgm per database handle (its `show_trgm`, which the search path may not reach), looked up once. */
const pgTrgmSchemas = new WeakMap<Kysely<HangarDatabase>, Promise<string | undefined>>();

/**
 * The schema pg_trgm is installed in (migration 0003 installs it), or undefined without it.
 * A failed lookup is not kept.
 */
function pgTrgmSchema(db: Kysely<HangarDatabase>): Promise<string | undefined> {
  let schema = pgTrgmSchemas.get(db);
  if (!schema) {
    schema = sql<{ schema: string }>`
      select n.nspname as schema from pg_extension e join pg_namespace n on n.oid = e.extnamespace where e.extname = 'pg_trgm'
    `
      .execute(db)
      .then(({ rows }) => rows[0]?.schema);
    schema.catch(() => pgTrgmSchemas.delete(db));
    pgTrgmSchemas.set(db, schema);
  }
  return schema;
}

/** The needle's characters beyond ASCII, each once. */
function beyondAscii(needle: string): string[] {
  return [...new Set([...needle].filter((point) => point.codePointAt(0)! > 0x7f))];
}

/**
 * The needle's words when its matches may be collected by a few of its trigrams rather than all of
 * them (see {@link narrowedTrigrams}): a needle of at least 4 code points whose every run of
 * characters pg_trgm does not read as letters or digits separates runs of at least 3 code points of
 * those (`holiday`, `holiday-summer`, `img_2041`, `.png`, `résumé` where the locale reads `é` as a
 * letter; not `x-ray` or `img-2`). pg_trgm reads ASCII letters and digits as word characters in any
 * locale, and those beyond ASCII as the database's locale classes them (`wordCharacters`; all of
 * them when undefined, which only {@link mayNarrow} assumes): then each of a word's trigrams is an
 * entry of the trigram index. The trigrams pg_trgm takes from the whole pattern beyond those are
 * the padded ones of the words' edges, which a shorter word would make the only selective ones.
 * @returns the runs, or undefined
 */
function narrowableWords(needle: string, wordCharacters?: ReadonlySet<string>): string[] | undefined {
  if (codePoints(needle) < 4) return undefined;
  const words: string[] = [];
  for (const run of needle.match(MAYBE_WORD) ?? []) {
    let word = '';
    for (const point of run) {
      if (point.codePointAt(0)! <= 0x7f || !wordCharacters || wordCharacters.has(point)) {
        word += point;
      } else if (word !== '') {
        words.push(word);
        word = '';
      }
    }
    if (word !== '') words.push(word);
  }
  return words.length > 0 && words.every((word) => codePoints(word) >= 3) ? words : undefined;
}

/** Whether the needle may be narrowed once the database tells which of its characters are letters ({@link narrowableWords}). */
function mayNarrow(needle: string): boolean {
  return narrowableWords(needle) !== undefined;
}

/**
 * The trigrams by which to read the needle's index instead of the whole needle, or undefined for
 * the whole needle. Reading the trigram index decodes every entry of each trigram the pattern holds
 * (pg_trgm) and adds the files that hold them all to a bitmap; a needle's trigrams within one word
 * are held by nearly the same files, so one per word yields nearly the same files for a fraction
 * of the entries (`q=holiday` at 1,000,000 files: a bitmap of 60,000 files from 60,000 entries
 * rather than 300,000; bench/postgres-list-files.md, "Postgres: fewer trigrams").
 *
 * Chosen from the gram counts (`counts`) by a rough cost, in files added to a bitmap: each entry
 * decoded costs {@link DECODED_ENTRY_COST}, each file yielded 1, and each file's row read
 * {@link ROW_COST_IN_ENTRIES}, rows being read until `bound` matches are found. The needle's matches
 * `m` are estimated from the probe (`needleShare`, its share of the account's newest files, times
 * {@link PROBE_SAMPLE_MARGIN} for a sample's error), at most the rarest gram's count: the trigrams
 * of one word are not always held together (`q=123456`: each of its four trigrams is in about
 * 4,000 files, all four in one), and only the probe tells. The files yielded:
 * - by the whole needle, `m`, its entries those of all its trigrams;
 * - by the rarest trigram of each of the words taken (the rarest words first), the files of the
 *   rarest when one word is taken; for several, their shares of the account multiplied (words are
 *   taken as independent), but never fewer than `m`.
 * The cheapest is taken. With `always` (tests), the rarest trigram of all the words alone.
 */
function narrowedTrigrams(needle: string, counts: TrigramCounts, bound: number, needleShare: number, always: boolean): string[] | undefined {
  const words = narrowableWords(needle, counts.wordCharacters);
  if (!words) return undefined;
  const count = (gram: string) => counts.grams.get(gram) ?? 0;
  const rarest = words
    .map((word) => gramsOf(word, 3).reduce((best, gram) => (count(gram) < count(best) ? gram : best)))
    .filter((gram, i, all) => all.indexOf(gram) === i)
    .sort((a, b) => count(a) - count(b));
  if (always) return rarest.slice(0, 1);
  // A gram that no file holds: the needle matches nothing, which its own index tells at once.
  const rarestGram = Math.min(...counts.grams.values());
  if (rarestGram === 0 || counts.files === 0) return undefined;
  const matches = Math.min(rarestGram, PROBE_SAMPLE_MARGIN * needleShare * counts.files);
  const rowsRead = (yielded: number) => (Number.isFinite(bound) && matches > 0 ? Math.min(yielded, (bound * yielded) / matches) : yielded);
  const cost = (entries: number, yielded: number) => DECODED_ENTRY_COST * entries + yielded + ROW_COST_IN_ENTRIES * rowsRead(yielded);
  let best: { trigrams: string[] | undefined; cost: number } = {
    trigrams: undefined,
    cost: cost([...counts.grams.values()].reduce((sum, files) => sum + files, 0), matches),
  };
  let entries = 0;
  let share = 1;
  for (const [i, gram] of rarest.entries()) {
    entries += count(gram);
    share *= count(gram) / counts.files;
    const taken = cost(entries, Math.max(matches, share * counts.files));
    if (taken < best.cost) best = { trigrams: rarest.slice(0, i + 1), cost: taken };
  }
  return best.trigrams;
}

/**
 * The needle read from the trigram index by `trigrams` (each 3 word characters to pg_trgm, so one
 * index entry each), and tested whole on each file they yield ({@link testedNeedleCondition}).
 */
function narrowedNeedleCondition(needle: string, trigrams: string[]): Expression<SqlBool> {
  return sql<SqlBool>`(${sql.join([...trigrams.map((trigram) => likeCondition(trigram)), testedNeedleCondition(needle)], sql` and `)})`;
}

/** The filters of a search that the gram counts serve (see {@link PostgresSearch.gramFilter}). */
export interface GramFilter {
  type?: string;
  isPublic?: 0 | 1;
  createdAfter?: number;
  createdBefore?: number;
}

/** Options of {@link PostgresFileSearch}; tests set them so that a few files take every path. */
export interface PostgresFileSearchOptions {
  /** The newest files the probe examines; default {@link PROBE_FILES}. */
  probeFiles?: number;
  /** The share of the probe's files that makes the count walk; default {@link WALK_SHARE}. */
  walkShare?: number;
  /** See {@link WALK_FILES}; tests set it low to place pages among a few files. */
  walkFiles?: number;
  /** Serve needles of 1–3 code points from the gram counts of migration 0036 (default true; tests of the indexes switch it off). */
  gramCounts?: boolean;
  /** Collect the matches of a search with a range from the range's index whenever it has one (tests); by default when that costs less (see `drivenByRange`). */
  rangeFirst?: boolean;
  /** Read the trigram index by the needle's rarest trigram alone whenever the needle allows it (tests); by default when that costs less (see `narrowedTrigrams`). */
  narrowNeedle?: boolean;
  /** Walk every page the probe does not hold while the matches are collected (tests); by default when the count most likely passes its bound (see `walkedAlongside`). */
  walkAlongside?: boolean;
}

/** One search of {@link PostgresFileSearch.list}. */
export interface PostgresSearch {
  userId: string;
  /** The folded needle (fileSearchNeedle). */
  needle: string;
  /**
   * The listing's other filters, as conditions on `files` (the owner is added here). `withNeedleIndex`:
   * they go with the needle's index (a bitmap of it, perhaps ANDed with bitmaps of theirs), where a
   * filter may be written so that no index answers it (tested on each file the needle's index yields).
   */
  others: (eb: ExpressionBuilder<HangarDatabase, 'files'>, withNeedleIndex: boolean) => Expression<SqlBool>[];
  /** Rows to skip and to return, in list order (`created_at` desc, `id` desc). */
  window: { offset: number; limit: number };
  /** Count at most this many matches (then answer `countLimit + 1`); undefined: count them all. */
  countLimit?: number;
  /**
   * The filters besides `q` when they are only content type, visibility (0/1) and an upload-time
   * range (Unix ms, inclusive): then a needle of 1–3 code points is counted from the gram counts
   * (file-gram-counts.ts). Undefined when there are others (size, expiry).
   */
  gramFilter?: GramFilter;
  /**
   * The number of matches when known already (a cached count: `countLimit + 1` for "more than
   * `countLimit`"): then nothing is counted, only the page read.
   */
  knownMatches?: number;
  /**
   * With `knownMatches`: the page among the newest files when it was read already
   * ({@link PostgresFileSearch.recentPageWithTotals}, in the same statement as the count's check).
   */
  recent?: readonly unknown[];
  /**
   * When the other filters are one upload-time or size range, with or without content type and
   * visibility: `files()` counts the account's files that pass them (exactly, from
   * `file_histogram`; called only when matches are to be collected), and `dimension` is the
   * range's. See {@link PostgresFileSearch.collect}.
   */
  range?: { files: () => Promise<number>; dimension: 'time' | 'size' };
  /** The account's files (`account_totals`), with `range`. */
  accountFiles?: number;
}

/** The account's `account_totals` columns a listing reads (int8 as the driver gives it: a string from node-postgres). */
export interface ListingTotals {
  files_count: string | number | bigint;
  public_files_count: string | number | bigint;
  changes: string | number | bigint;
}

/** What {@link PostgresFileSearch.recentPageWithTotals} reads: a search's owner, needle, other filters and window. */
export type RecentSearch = Pick<PostgresSearch, 'userId' | 'needle' | 'others' | 'window'>;

/**
 * `GET /files?q=` on Postgres (spec 4.9): the page and the bounded count of a listing with a
 * needle, with any other filters, each by the statement that reads least for how common the needle
 * is, which the probe tells. Measured, with the plans: bench/postgres-list-files.md (the section
 * on migration 0031).
 *
 * 1. The probe (one statement): the account's {@link PROBE_FILES} newest files, in list order along
 *    `(user_id, created_at, id)`, tested with LIKE and the other filters: how many match, and the
 *    page when it lies among them (then it is exact: every file outside them is older). When the
 *    account holds fewer files, the probe saw them all and is the whole answer.
 * 2. The count, unless known: when at least {@link WALK_SHARE} of the probe matched, the needle is
 *    common and the count walks the account in list order until the bound (LIKE on each file);
 *    otherwise the matches are collected, up to the bound, from the needle's index
 *    ({@link indexedNeedleCondition}; a longer needle perhaps by a few of its trigrams,
 *    {@link narrowedTrigrams}) with the other filters — or, with one upload-time or size
 *    range among them, by reading that range's index when that costs less (`drivenByRange`) —
 *    and counted; when they do not pass the
 *    bound they are all there, so the page, if the probe did not hold it, is taken from them (one
 *    statement: a `materialized` CTE of `id, created_at`, the page's rows read by primary key).
 *    When the probe held the page, the statement only counts.
 * 3. Otherwise the page on its own: walking in list order when the needle is common (more matches
 *    than the bound, or 10,000 when unbounded: a page deeper than the probe), or from the needle's
 *    index, every match sorted (the needle is rare among the newest files, common among older ones).
 *    When the probe tells that the matches to be collected will most likely pass the bound, that
 *    walk runs while they are counted ({@link walkedAlongside}).
 *
 * Before all of this, a needle of 1–3 code points whose other filters are at most content type,
 * visibility or an upload-time range is served from the gram counts of migration 0036
 * (file-gram-counts.ts; {@link fromGramCounts}): counted exactly from a few rows, its page walked,
 * placed by day or collected by what each costs. The steps above serve the other searches, and
 * these when the counts cannot (see fromGramCounts).
 *
 * When the count is known already (`knownMatches`: the repository keeps counts until the account
 * changes), there is no probe: the page is looked for among the newest files by a scan that stops
 * once it has it ({@link recentPage}), else found as in step 3. So a client paging through, or
 * polling, one search of a common needle costs a scan of a few hundred index entries per request.
 */
export class PostgresFileSearch {
  private readonly probeFiles: number;
  private readonly walkShare: number;
  private readonly walkFiles: number;
  private readonly gramCounts: boolean;
  private readonly rangeFirst: boolean;
  private readonly narrowNeedle: boolean;
  private readonly walkAlongside: boolean;

  /**
   * @param db the database (Postgres, migrated to 0031)
   * @param columns the columns of a page's rows (the repository's row shape)
   */
  constructor(
    private readonly db: Kysely<HangarDatabase>,
    private readonly columns: readonly (keyof HangarDatabase['files'] & string)[],
    options: PostgresFileSearchOptions = {},
  ) {
    this.probeFiles = options.probeFiles ?? PROBE_FILES;
    this.walkShare = options.walkShare ?? WALK_SHARE;
    this.walkFiles = options.walkFiles ?? WALK_FILES;
    this.gramCounts = options.gramCounts ?? true;
    this.rangeFirst = options.rangeFirst ?? false;
    this.narrowNeedle = options.narrowNeedle ?? false;
    this.walkAlongside = options.walkAlongside ?? false;
  }

  /**
   * The page's rows (each with `columns`), and `counted`: the number of matches, or `countLimit + 1`
   * when there are more than `countLimit`; undefined when `knownMatches` was given (unless the probe
   * saw every file of the account, which counts them anyway).
   */
  async list<Row>(search: PostgresSearch): Promise<{ rows: Row[]; counted?: number }> {
    const bound = search.countLimit === undefined ? Number.POSITIVE_INFINITY : search.countLimit + 1;
    const points = codePoints(search.needle);
    if (this.gramCounts && search.gramFilter && points >= 1 && points <= 3) {
      const counted = await this.fromGramCounts<Row>(search, search.gramFilter, bound);
      if (counted) return counted;
    }
    if (search.knownMatches !== undefined) {
      // The count is known (a client paging through or polling one search): the page alone, first
      // among the newest files, which stops as soon as it has the page.
      const recent = (search.recent as Row[] | undefined) ?? (await this.recentPage<Row>(search));
      const exact = search.countLimit === undefined || search.knownMatches <= search.countLimit;
      if (recent.length === search.window.limit || (exact && search.window.offset + recent.length >= search.knownMatches)) return { rows: recent };
      return { rows: await this.pageAlone<Row>(search, search.knownMatches) };
    }
    // The gram counts and the range's files a collected count may need, read while the probe runs
    // (see `collect`).
    const counts = this.countsWanted(search) ? this.trigramCounts(search) : undefined;
    const rangeFiles = search.range !== undefined && search.accountFiles !== undefined && !this.rangeFirst ? search.range.files() : undefined;
    // Awaited only if the matches are collected; a failure surfaces there.
    counts?.catch(() => undefined);
    rangeFiles?.catch(() => undefined);
    const probe = await this.probe<Row>(search);
    const pageFound = probe.all || probe.matched >= search.window.offset + search.window.limit;
    let page = pageFound ? probe.rows : undefined;
    let counted: number | undefined;
    if (probe.all) {
      counted = Math.min(probe.matched, bound);
    } else if (search.knownMatches === undefined) {
      if (probe.matched >= this.walkShare * probe.examined) {
        counted = await this.countWalking(search, bound);
      } else {
        // A page that will most likely be walked (step 3) is walked while the matches are counted.
        const walking = page === undefined && (await this.walkedAlongside(search, probe, bound, counts, rangeFiles)) ? this.pageAlone<Row>(search, bound) : undefined;
        walking?.catch(() => undefined);
        const needleShare = probe.needleMatched / probe.examined;
        const collected = await this.collect<Row>(search, bound, { pageWanted: page === undefined && !walking, needleShare, counts, rangeFiles });
        counted = collected.counted;
        if (walking) page = await walking;
        else if (collected.counted < bound) page ??= collected.rows;
      }
    }
    const matches = counted ?? search.knownMatches!;
    page ??= await this.pageAlone<Row>(search, matches);
    return counted === undefined ? { rows: page } : { rows: page, counted };
  }

  /**
   * A needle of 1–3 code points (one gram) counted from the gram counts (file-gram-counts.ts), the
   * changes still waiting added in the same statement: exact, and a few rows read. Then the page,
   * by what it costs, with `share` = matches / files of the account:
   * - walked in list order from the newest file when that passes at most `walkFiles` files
   *   (about `(offset + limit) / share`), or from the oldest when that does (`(matches − offset) / share`:
   *   a page near the end);
   * - else, for a tracked gram with no content type or visibility filter, or with a content type
   *   tracked for it (file_gram_types_tracked, migration 0039) or held by every file that holds
   *   the gram (then placed by the gram's days) and no visibility filter, placed:
   *   the day that holds the `offset`-th match is found from the day counts (`file_gram_days`, and
   *   the waiting changes by day), and the walk starts at that day's end, skipping only that day's matches;
   * - else walked from the nearer end if that costs less than collecting every match of the needle from
   *   its index (a collected match costs about {@link COLLECT_COST_IN_WALKED_FILES} walked files), or collected and sorted.
   * With an upload-time range (only for a tracked gram, without visibility, with no content type or
   * one that is tracked or held by every file of the gram) the
   * matches are the day counts of the whole days inside the range plus an exact count of the one or
   * two days it cuts (their files walked).
   * @returns undefined when the counts cannot serve the search (a range with other filters or on an
   *          untracked gram, more than {@link PENDING_LIMIT} waiting changes in the account)
   */
  private async fromGramCounts<Row>(search: PostgresSearch, filter: GramFilter, bound: number): Promise<{ rows: Row[]; counted: number } | undefined> {
    const attributes = filter.type !== undefined || filter.isPublic !== undefined;
    const ranged = filter.createdAfter !== undefined || filter.createdBefore !== undefined;
    // The day rows count a tracked gram's files by its tracked content types, not by visibility.
    if (ranged && filter.isPublic !== undefined) return undefined;
    const pattern = containsPattern(search.needle);
    const attributeConditions = [
      ...(filter.type === undefined ? [] : [sql`content_type = ${filter.type}`]),
      ...(filter.isPublic === undefined ? [] : [sql`is_public = ${filter.isPublic}`]),
    ];
    const { rows } = await sql<{ pending_rows: string | number; tracked: boolean; type_tracked: boolean; matches: string | number; needle_matches: string | number; files: string | number | null }>`
      with pending as (
        select created_at, search_text, content_type, is_public, delta from ${sql.table(FILE_GRAM_PENDING_TABLE)} where user_id = ${search.userId} limit ${PENDING_LIMIT + 1}
      )
      select
        (select count(*) from pending) as pending_rows,
        exists (select 1 from file_grams_tracked where user_id = ${search.userId} and gram = ${search.needle}) as tracked,
        ${
          filter.type === undefined
            ? sql`false`
            : sql`exists (select 1 from file_gram_types_tracked where user_id = ${search.userId} and gram = ${search.needle} and content_type = ${filter.type})`
        } as type_tracked,
        (select coalesce(sum(files), 0) from file_grams where user_id = ${search.userId} and gram = ${search.needle}${andAll(attributeConditions)})
          + (select coalesce(sum(delta), 0) from pending where search_text like ${pattern} escape '\\'${andAll(attributeConditions)}) as matches,
        (select coalesce(sum(files), 0) from file_grams where user_id = ${search.userId} and gram = ${search.needle})
          + (select coalesce(sum(delta), 0) from pending where search_text like ${pattern} escape '\\') as needle_matches,
        (select files_count from account_totals where user_id = ${search.userId}) as files
    `.execute(this.db);
    const counts = rows[0]!;
    if (Number(counts.pending_rows) > PENDING_LIMIT) return undefined;
    // Days to place a page by: the gram's (all its rows) without `type` or `isPublic`, and with a
    // `type` that every file holding the gram has (then its matches are the gram's); with `type`
    // alone, otherwise the rows of that type when it is tracked.
    let matches = Number(counts.matches);
    const wholeGram = filter.isPublic === undefined && matches === Number(counts.needle_matches);
    const tracked = counts.tracked && (!attributes || wholeGram || (filter.isPublic === undefined && counts.type_tracked));
    const dayFilter = wholeGram ? { ...filter, type: undefined } : filter;
    const files = Number(counts.files ?? 0);
    let days: Array<{ day: number; matches: number }> | undefined;
    if (ranged) {
      if (!tracked) return undefined;
      days = await this.gramDays(search, dayFilter);
      matches = days.reduce((sum, day) => sum + day.matches, 0);
    }
    const { offset, limit } = search.window;
    const counted = Math.min(matches, bound);
    if (offset >= matches || matches === 0) return { rows: [], counted };
    const walked = ((offset + limit) * files) / matches;
    if (walked <= this.walkFiles) return { rows: await this.walk<Row>(search, offset), counted };
    // A page near the end: walked from the oldest file, the matches after it skipped.
    const walkedFromOldest = ((matches - offset) * files) / matches;
    const tail = Math.min(limit, matches - offset);
    const fromOldest = () => this.walkFromOldest<Row>(search, matches - offset - tail, tail);
    if (walkedFromOldest <= this.walkFiles) return { rows: await fromOldest(), counted };
    if (tracked) {
      days ??= await this.gramDays(search, dayFilter);
      let passed = 0;
      for (const { day, matches: inDay } of days) {
        if (offset < passed + inDay) return { rows: await this.walk<Row>(search, offset - passed, (day + 1) * DAY_MS - 1), counted };
        passed += inDay;
      }
    }
    const collecting = COLLECT_COST_IN_WALKED_FILES * Number(counts.needle_matches);
    if (Math.min(walked, walkedFromOldest) <= collecting) {
      return { rows: walked <= walkedFromOldest ? await this.walk<Row>(search, offset) : await fromOldest(), counted };
    }
    return { rows: (await this.collect<Row>(search, Number.POSITIVE_INFINITY)).rows, counted };
  }

  /**
   * The matches of a tracked gram (the needle) per UTC day, newest day first, days without one left
   * out: the day counts plus the waiting changes, in the filter's upload-time range, of the filter's
   * content type when it has one (a tracked type: its own rows; the caller checks); the one or two
   * days the range cuts are counted exactly on the files instead (their files walked).
   */
  private async gramDays(search: PostgresSearch, filter: GramFilter): Promise<Array<{ day: number; matches: number }>> {
    const { createdAfter: after, createdBefore: before } = filter;
    const first = after === undefined ? undefined : gramDay(after);
    const last = before === undefined ? undefined : gramDay(before);
    if (first !== undefined && last !== undefined && first > last) return [];
    const dayRange = [...(first === undefined ? [] : [sql`day >= ${first}`]), ...(last === undefined ? [] : [sql`day <= ${last}`])];
    const pendingRange = [
      ...(first === undefined ? [] : [sql`created_at >= ${first * DAY_MS}`]),
      ...(last === undefined ? [] : [sql`created_at <= ${(last + 1) * DAY_MS - 1}`]),
    ];
    const typed = filter.type === undefined ? [] : [sql`content_type = ${filter.type}`];
    const pattern = containsPattern(search.needle);
    const { rows } = await sql<{ day: string | number; matches: string | number }>`
      select day, sum(n) as matches from (
        select day, files as n from file_gram_days where user_id = ${search.userId} and gram = ${search.needle}${andAll([...typed, ...dayRange])}
        union all
        select ${sql.raw(DAY_OF('created_at'))} as day, delta as n from ${sql.table(FILE_GRAM_PENDING_TABLE)}
        where user_id = ${search.userId} and search_text like ${pattern} escape '\\'${andAll([...typed, ...pendingRange])}
      ) as counted
      group by day having sum(n) <> 0
      order by day desc
    `.execute(this.db);
    const days = rows.map((row) => ({ day: Number(row.day), matches: Number(row.matches) }));
    // The days the range cuts: counted on their files, within the range.
    const cut = new Set<number>();
    if (first !== undefined && after! > first * DAY_MS) cut.add(first);
    if (last !== undefined && before! < (last + 1) * DAY_MS - 1) cut.add(last);
    for (const day of cut) {
      const from = Math.max(after ?? Number.MIN_SAFE_INTEGER, day * DAY_MS);
      const to = Math.min(before ?? Number.MAX_SAFE_INTEGER, (day + 1) * DAY_MS - 1);
      // Walked: left to itself the planner may AND the day's range with the needle's index, whose
      // bitmap of a common gram costs more than the day's files (bench/postgres-list-files.md, 0037).
      const { rows: counted } = await this.withSettings(WALK_ONLY, (db) =>
        sql<{ n: string | number }>`
          select count(*) as n from files
          where user_id = ${search.userId} and created_at >= ${from} and created_at <= ${to} and search_text like ${pattern} escape '\\'${andAll(typed)}
        `.execute(db),
      );
      const at = days.findIndex((entry) => entry.day === day);
      const exact = { day, matches: Number(counted[0]?.n ?? 0) };
      if (at >= 0) days[at] = exact;
      else days.push(exact);
    }
    return days.filter((entry) => entry.matches !== 0).sort((a, b) => b.day - a.day);
  }

  /**
   * The page walked in list order along `(user_id, created_at, id)`, LIKE and the other filters on
   * each file, from the newest file or from `before` (Unix ms, inclusive), skipping `offset` matches.
   */
  private async walk<Row>(search: PostgresSearch, offset: number, before?: number): Promise<Row[]> {
    const rows = await this.withSettings(WALK_ONLY, (db) => {
      let query = db
        .selectFrom('files')
        .select(this.columns)
        .where(this.conditions(search, likeCondition(search.needle)));
      if (before !== undefined) query = query.where('created_at', '<=', before);
      return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(search.window.limit).offset(offset).execute();
    });
    return rows as Row[];
  }

  /**
   * `limit` matches walked in list order backwards, from the oldest file, after skipping `skip`
   * matches: the page whose last match is the `skip`-th from the end, in list order.
   */
  private async walkFromOldest<Row>(search: PostgresSearch, skip: number, limit: number): Promise<Row[]> {
    const rows = await this.withSettings(WALK_ONLY, (db) =>
      db
        .selectFrom('files')
        .select(this.columns)
        .where(this.conditions(search, likeCondition(search.needle)))
        .orderBy('created_at', 'asc')
        .orderBy('id', 'asc')
        .limit(limit)
        .offset(skip)
        .execute(),
    );
    return (rows as Row[]).reverse();
  }

  /**
   * Step 1 of {@link list}: the newest `probeFiles` files tested; `all` when they are every file of
   * the account. Only the columns the tests read ({@link PROBE_COLUMNS}) are kept of those files, and
   * the page's rows are read by primary key: keeping every column of 2,000 rows cost about 4 ms more
   * (bench/postgres-list-files.md, "Combined filters: 0040, 0041 and collecting by the range's index").
   */
  private async probe<Row>(search: PostgresSearch): Promise<{ examined: number; matched: number; needleMatched: number; all: boolean; rows: Row[] }> {
    const kept = sql.join(PROBE_COLUMNS.map((column) => sql.ref(column)));
    const pageColumns = sql.join(this.columns.map((column) => sql.ref(`f.${column}`)));
    // The probe's files are the owner's already, so the owner is not among the tests.
    const eb = expressionBuilder<HangarDatabase, 'files'>();
    const others = search.others(eb, false);
    const match = sql<SqlBool>`(${sql.join([likeCondition(search.needle), ...others], sql` and `)})`;
    // The needle alone too, for narrowedTrigrams' estimate (the same count when there is no other filter).
    const needleMatched = others.length === 0 ? sql`` : sql`, count(*) filter (where ${likeCondition(search.needle)}) as needle_matched`;
    const { rows } = await sql<{ examined: number | string; matched: number | string; needle_matched: number | string; id: string | null }>`
      with recent as materialized (
        select ${kept} from files where user_id = ${search.userId} order by created_at desc, id desc limit ${this.probeFiles}
      )
      select t.examined, t.matched, ${others.length === 0 ? sql`t.matched` : sql`t.needle_matched`} as needle_matched, ${pageColumns}
      from (select count(*) as examined, count(*) filter (where ${match}) as matched${needleMatched} from recent as files) as t
      left join lateral (
        select id from recent as files where ${match} order by created_at desc, id desc limit ${search.window.limit} offset ${search.window.offset}
      ) as p on true
      left join files as f on f.id = p.id
      order by f.created_at desc, f.id desc
    `.execute(this.db);
    const examined = Number(rows[0]?.examined ?? 0);
    return {
      examined,
      matched: Number(rows[0]?.matched ?? 0),
      needleMatched: Number(rows[0]?.needle_matched ?? 0),
      all: examined < this.probeFiles,
      rows: rows.filter((row) => row.id !== null).map(({ examined: _e, matched: _m, needle_matched: _n, ...row }) => row as Row),
    };
  }

  /**
   * The page among the account's {@link probeFiles} newest files, in list order along
   * `(user_id, created_at, id)`, LIKE and the other filters on each: the scan stops once it has
   * the page (the files before it and the page's own), or after those files. Complete when it
   * holds `limit` rows; otherwise the page may lie deeper (or be the last).
   *
   * This is the statement of a client paging through one search (the count known), and its plan is
   * the same whatever the values: the account's newest files along its index, filtered. So it is
   * declared a {@link repeatedStatement} (one text per combination of filters), prepared once per
   * connection instead of parsed on every request (bench/README.md, "Measurements behind the code").
   */
  private async recentPage<Row>(search: RecentSearch): Promise<Row[]> {
    const compiled = sql<Row>`${this.recentPageQuery(search)}`.compile(this.db);
    repeatedStatement(compiled.sql);
    const { rows } = await this.db.executeQuery(compiled);
    return rows;
  }

  /**
   * The account's `account_totals` row (`files_count`, `public_files_count`, `changes`) and
   * {@link recentPage}, in one statement (one round trip, one snapshot): for a search whose count the
   * repository keeps while `changes` stays the same, so that a client paging through or polling one
   * search costs one statement when the page lies among the newest files. Undefined when the
   * account has no totals row. Declared a {@link repeatedStatement}, as recentPage is.
   */
  async recentPageWithTotals<Row>(search: RecentSearch): Promise<{ totals: ListingTotals; rows: Row[] } | undefined> {
    const columns = sql.join(this.columns.map((column) => sql.ref(`p.${column}`)));
    const compiled = sql<ListingTotals & { id: string | null }>`
      select t.files_count, t.public_files_count, t.changes, ${columns}
      from account_totals as t
      left join lateral (${this.recentPageQuery(search)}) as p on true
      where t.user_id = ${search.userId}
      order by p.created_at desc, p.id desc
    `.compile(this.db);
    repeatedStatement(compiled.sql);
    const { rows } = await this.db.executeQuery(compiled);
    const first = rows[0];
    if (!first) return undefined;
    return {
      totals: { files_count: first.files_count, public_files_count: first.public_files_count, changes: first.changes },
      rows: rows.filter((row) => row.id !== null).map(({ files_count: _f, public_files_count: _p, changes: _c, ...row }) => row as Row),
    };
  }

  /** The statement of {@link recentPage}: the page among the account's {@link probeFiles} newest files. */
  private recentPageQuery(search: RecentSearch): RawBuilder<unknown> {
    const columns = sql.join(this.columns.map((column) => sql.ref(column)));
    const match = this.conditions(search, likeCondition(search.needle));
    return sql`
      select ${columns} from (
        select ${columns}, search_text from files where user_id = ${search.userId} order by created_at desc, id desc limit ${this.probeFiles}
      ) as files
      where ${match}
      order by created_at desc, id desc
      limit ${search.window.limit} offset ${search.window.offset}
    `;
  }

  /** The matches up to `bound`, counted in list order along `(user_id, created_at, id)` (LIKE on each file). */
  private async countWalking(search: PostgresSearch, bound: number): Promise<number> {
    return this.countUpTo(this.db, this.conditions(search, likeCondition(search.needle)), bound, true);
  }

  /**
   * The files of `files` that pass `conditions`, counted up to `bound` (all when unbounded), in
   * list order when `inListOrder` (so that the planner walks `(user_id, created_at, id)`).
   */
  private async countUpTo(db: Kysely<HangarDatabase>, conditions: RawBuilder<SqlBool>, bound: number, inListOrder = false): Promise<number> {
    const found = db.selectFrom('files').select(sql<number>`1`.as('one')).where(conditions);
    const ordered = inListOrder ? found.orderBy('created_at', 'desc').orderBy('id', 'desc') : found;
    const capped = Number.isFinite(bound) ? ordered.limit(bound) : ordered;
    const { total } = await db.selectFrom(capped.as('found')).select((eb) => eb.fn.countAll<number | string>().as('total')).executeTakeFirstOrThrow();
    return Number(total);
  }

  /**
   * The matches up to `bound` from the needle's index (or the range's, `drivenByRange`), counted,
   * and, when `pageWanted`, the page in list order taken from them (complete only when fewer than
   * `bound` were collected; no rows otherwise).
   */
  private async collect<Row>(
    search: PostgresSearch,
    bound: number,
    options: { pageWanted?: boolean; needleShare?: number; counts?: Promise<TrigramCounts>; rangeFiles?: Promise<number> } = {},
  ): Promise<{ counted: number; rows: Row[] }> {
    const { pageWanted = true, needleShare } = options;
    const ranged = search.range !== undefined && search.accountFiles !== undefined;
    const narrowable = mayNarrow(search.needle) && (needleShare !== undefined || this.narrowNeedle);
    const [counts, rangeEntries] = await Promise.all([
      ranged || narrowable ? (options.counts ?? this.trigramCounts(search)) : undefined,
      ranged && !this.rangeFirst ? (options.rangeFiles ?? search.range!.files()) : undefined,
    ]);
    if (ranged && (this.rangeFirst || this.drivenByRange(search, bound, counts!, rangeEntries!))) {
      // The range's index read in order (the size index alone, migration 0041; an upload-time
      // range's files lie together), the needle tested on each file: with no bitmap scan, no index
      // answers the LIKE (the trigram index is read only through bitmaps).
      return this.withSettings(WALK_ONLY, (db) => this.collectIn<Row>(db, search, likeCondition(search.needle), false, bound, pageWanted));
    }
    const trigrams = counts && narrowable ? narrowedTrigrams(search.needle, counts, bound, needleShare ?? 0, this.narrowNeedle) : undefined;
    const needle = trigrams ? narrowedNeedleCondition(search.needle, trigrams) : indexedNeedleCondition(search.needle);
    return this.fromIndex((db) => this.collectIn<Row>(db, search, needle, true, bound, pageWanted));
  }

  /**
   * Whether the page of a search whose matches are to be collected, and which the probe did not
   * hold, will most likely be walked in list order (step 3 of {@link list}: more matches than the
   * count's bound) within {@link walkFiles} files: then it is walked while the matches are counted,
   * one statement's wait saved, and the count need not keep its matches for a page.
   *
   * The matches are estimated as the probe's share of them times the account's files (`counts`, or
   * `search.accountFiles`); for a needle with an upload-time range and no content type or visibility,
   * whose files the probe (the newest) may not hold, as the needle's share of the probe times the
   * range's files (`rangeFiles`). Taken when that is at least {@link LIKELY_COMMON_MARGIN} times the
   * bound ({@link COMMON_MATCHES} when unbounded). A wrong guess costs time, not the answer: a walk
   * in list order finds the exact page whatever the count.
   */
  private async walkedAlongside(
    search: PostgresSearch,
    probe: { examined: number; matched: number; needleMatched: number },
    bound: number,
    counts: Promise<TrigramCounts> | undefined,
    rangeFiles: Promise<number> | undefined,
  ): Promise<boolean> {
    if (this.walkAlongside) return true;
    const files = search.accountFiles ?? (await counts?.then((counted) => counted.files, () => undefined));
    if (!files || probe.examined === 0) return false;
    const filter = search.gramFilter;
    const timeAlone = search.range?.dimension === 'time' && filter !== undefined && filter.type === undefined && filter.isPublic === undefined;
    // The files the walk passes (a time range's own, read along the list order's index), and the matches' share of them.
    const walked = timeAlone ? await rangeFiles?.catch(() => undefined) : files;
    const share = (timeAlone ? probe.needleMatched : probe.matched) / probe.examined;
    if (!walked || share === 0) return false;
    const common = Number.isFinite(bound) ? bound : COMMON_MATCHES + 1;
    return share * walked >= LIKELY_COMMON_MARGIN * common && (search.window.offset + search.window.limit) / share <= this.walkFiles;
  }

  /** Whether {@link collect} may read the gram counts of this search: with a range, or for a needle that {@link mayNarrow}. */
  private countsWanted(search: PostgresSearch): boolean {
    return (search.range !== undefined && search.accountFiles !== undefined) || mayNarrow(search.needle);
  }

  /**
   * The account's files that hold each trigram of the needle (each substring of 3 code points; the
   * needle itself when shorter), from the gram counts (file-gram-counts.ts; changes not yet folded
   * left out, so an estimate), and the account's files (`account_totals`): one statement.
   */
  private async trigramCounts(search: PostgresSearch): Promise<TrigramCounts> {
    const grams = gramsOf(search.needle, 3);
    const beyond = beyondAscii(search.needle);
    const schema = beyond.length > 0 ? await pgTrgmSchema(this.db) : undefined;
    // pg_trgm reads `a?a` as one word of four trigrams when `?` is a letter or digit to it, else as
    // two words `a` of two trigrams.
    const letters =
      schema === undefined
        ? sql`null`
        : sql`array[${sql.join(beyond.map((point) => sql`coalesce(array_length(${sql.id(schema, 'show_trgm')}(${`a${point}a`}), 1), 0) = 4`))}]`;
    const { rows } = await sql<{ grams: Record<string, string | number> | null; files: string | number | null; letters: boolean[] | null }>`
      select
        (select json_object_agg(gram, files) from (
          select gram, sum(files) as files from file_grams where user_id = ${search.userId} and gram in (${sql.join(grams)}) group by gram
        ) as counted) as grams,
        (select files_count from account_totals where user_id = ${search.userId}) as files,
        ${letters} as letters
    `.execute(this.db);
    const counted = rows[0]?.grams ?? {};
    const letterFlags = rows[0]?.letters ?? [];
    return {
      grams: new Map(grams.map((gram) => [gram, Number(counted[gram] ?? 0)])),
      files: Number(rows[0]?.files ?? 0),
      wordCharacters: new Set(beyond.filter((_, i) => letterFlags[i] === true)),
    };
  }

  /**
   * Whether the matches of a search with a range (`search.range`) are cheaper to collect by reading
   * the range's index in order, the needle tested on each file, than from the needle's index (which
   * the planner may AND with the range's): a needle with a selective size range
   * (`q=cat&sizeMin=50000000`: 6 % of a million files, whose entries in the size index hold the
   * search text), a common needle in one (`q=a&sizeMin=50000000`), or a longer needle in the last
   * week's files. Costs are counted in index entries added to a bitmap:
   * - by the range: the range's entries read until `bound` matches are found at the needle's share
   *   of the account (all of them when there are fewer), each {@link SCANNED_ENTRY_COST}, and for an
   *   upload-time range each file's row too (they lie together: 1 each);
   * - by the needle: its entries, plus the cheaper of reading its rows (each
   *   {@link ROW_COST_IN_ENTRIES}) until `bound` pass the range, or ANDing the range's entries and
   *   reading the matches' rows.
   * The needle's entries are its gram count (`counts`; a longer needle's is that of its rarest
   * trigram), the range's its exact count (`rangeEntries`); the cheaper way is taken. The needle's
   * share is taken to be the same inside the range as in the account: where it is lower, reading by
   * the range reads more entries than estimated, at most all of the range's.
   */
  private drivenByRange(search: PostgresSearch, bound: number, counts: TrigramCounts, rangeEntries: number): boolean {
    const files = search.accountFiles!;
    // A gram that no file holds: the needle matches nothing, which its own index tells at once.
    const needleEntries = Math.min(...counts.grams.values());
    if (needleEntries === 0 || rangeEntries === 0) return false;
    const wanted = Number.isFinite(bound) ? bound : files;
    const read = Math.min(rangeEntries, (wanted * files) / needleEntries);
    const byRange = read * (SCANNED_ENTRY_COST + (search.range!.dimension === 'time' ? 1 : 0));
    const byNeedle =
      needleEntries +
      Math.min(
        ROW_COST_IN_ENTRIES * Math.min(needleEntries, (wanted * files) / rangeEntries),
        rangeEntries + ROW_COST_IN_ENTRIES * Math.min((needleEntries * rangeEntries) / files, wanted),
      );
    return byRange < byNeedle;
  }

  /**
   * The matches up to `bound` under `needle` and the other filters, counted, and the page taken
   * from them when `pageWanted` (one statement: a `materialized` CTE of `id, created_at`, the page's
   * rows read by primary key); only the count otherwise.
   */
  private async collectIn<Row>(
    db: Kysely<HangarDatabase>,
    search: PostgresSearch,
    needle: Expression<SqlBool>,
    withNeedleIndex: boolean,
    bound: number,
    pageWanted: boolean,
  ): Promise<{ counted: number; rows: Row[] }> {
    const conditions = this.conditions(search, needle, withNeedleIndex);
    if (!pageWanted) return { counted: await this.countUpTo(db, conditions, bound), rows: [] };
    const found = db.selectFrom('files').select(['id', 'created_at']).where(conditions);
    const matching = Number.isFinite(bound) ? found.limit(bound) : found;
    const columns = sql.join(this.columns.map((column) => sql.ref(`f.${column}`)));
    const { rows } = await sql<{ total: number | string; id: string | null }>`
      with matching as materialized (${matching})
      select t.total, ${columns}
      from (select count(*) as total from matching) as t
      left join lateral (
        select id from matching order by created_at desc, id desc limit ${search.window.limit} offset ${search.window.offset}
      ) as p on true
      left join files as f on f.id = p.id
      order by f.created_at desc, f.id desc
    `.execute(db);
    return {
      counted: Number(rows[0]?.total ?? 0),
      rows: rows.filter((row) => row.id !== null).map(({ total: _total, ...row }) => row as Row),
    };
  }

  /**
   * The page on its own (step 3 of {@link list}), for a needle with `matches` matches: when it is
   * common (more than the count's bound, or {@link COMMON_MATCHES} when unbounded), walking in list
   * order, LIKE on each file, rather than sorting every match; otherwise from the needle's index,
   * every match sorted in list order.
   */
  private async pageAlone<Row>(search: PostgresSearch, matches: number): Promise<Row[]> {
    const common = matches > (search.countLimit ?? COMMON_MATCHES);
    const rows = await this.withSettings(common ? WALK_ONLY : BITMAPS_ONLY, (db) =>
      db
        .selectFrom('files')
        .select(this.columns)
        .where(common ? this.conditions(search, likeCondition(search.needle)) : this.conditions(search, indexedNeedleCondition(search.needle), true))
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(search.window.limit)
        .offset(search.window.offset)
        .execute(),
    );
    return rows as Row[];
  }

  /**
   * Runs `statement` in a transaction whose planner may only read `files` through bitmaps of its
   * indexes: no sequential or plain index scan (either would test each file against the needle's
   * index expression, ~50 µs a call for the gram function, where the planner, seeing a common gram
   * under a LIMIT, expects a scan to stop early), and no parallel workers (starting them costs more
   * than these statements take). Those settings end with the transaction.
   */
  private async fromIndex<T>(statement: (db: Kysely<HangarDatabase>) => Promise<T>): Promise<T> {
    return this.withSettings(BITMAPS_ONLY, statement);
  }

  /** Runs `statement` in a transaction with the planner `settings` (ended with it). */
  private async withSettings<T>(settings: RawBuilder<unknown>, statement: (db: Kysely<HangarDatabase>) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(async (trx) => {
      await settings.execute(trx);
      return statement(trx);
    });
  }

  /** The owner, the needle in the form given, and the other filters, combined with AND (on `files`, or on a CTE aliased `files`). */
  private conditions(search: Pick<PostgresSearch, 'userId' | 'others'>, needle: Expression<SqlBool>, withNeedleIndex = false): RawBuilder<SqlBool> {
    const eb = expressionBuilder<HangarDatabase, 'files'>();
    return sql<SqlBool>`(${sql.join([eb('user_id', '=', search.userId), needle, ...search.others(eb, withNeedleIndex)], sql` and `)})`;
  }
}
