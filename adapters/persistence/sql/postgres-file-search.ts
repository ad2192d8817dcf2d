import { type Expression, type ExpressionBuilder, expressionBuilder, type Kysely, type RawBuilder, type SqlBool, sql } from 'kysely';
import { containsPattern } from '../file-search.js';
import type { HangarDatabase } from './schema.js';

/** The newest files of the account that {@link PostgresFileSearch} examines first (the probe), in list order. */
export const PROBE_FILES = 2_000;

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

/** Planner settings, local to a transaction: only bitmap scans, no parallel workers (see `fromIndex`). */
const BITMAPS_ONLY = sql`select set_config('enable_seqscan', 'off', true), set_config('enable_indexscan', 'off', true), set_config('max_parallel_workers_per_gather', '0', true)`;

/** Planner settings, local to a transaction: walk an index in list order, no sequential scan, no bitmap (see `pageAlone`). */
const WALK_ONLY = sql`select set_config('enable_seqscan', 'off', true), set_config('enable_bitmapscan', 'off', true), set_config('max_parallel_workers_per_gather', '0', true)`;

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

/** Options of {@link PostgresFileSearch}; tests set them so that a few files take every path. */
export interface PostgresFileSearchOptions {
  /** The newest files the probe examines; default {@link PROBE_FILES}. */
  probeFiles?: number;
  /** The share of the probe's files that makes the count walk; default {@link WALK_SHARE}. */
  walkShare?: number;
}

/** One search of {@link PostgresFileSearch.list}. */
export interface PostgresSearch {
  userId: string;
  /** The folded needle (fileSearchNeedle). */
  needle: string;
  /** The listing's other filters, as conditions on `files` (the owner is added here). */
  others: (eb: ExpressionBuilder<HangarDatabase, 'files'>) => Expression<SqlBool>[];
  /** Rows to skip and to return, in list order (`created_at` desc, `id` desc). */
  window: { offset: number; limit: number };
  /** Count at most this many matches (then answer `countLimit + 1`); undefined: count them all. */
  countLimit?: number;
  /**
   * The number of matches when known already (a cached count: `countLimit + 1` for "more than
   * `countLimit`"): then nothing is counted, only the page read.
   */
  knownMatches?: number;
}

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
 *    ({@link indexedNeedleCondition}) with the other filters, and counted; when they do not pass the
 *    bound they are all there, so the page, if the probe did not hold it, is taken from them (one
 *    statement: a `materialized` CTE of `id, created_at`, the page's rows read by primary key).
 * 3. Otherwise the page on its own: walking in list order when the needle is common (more matches
 *    than the bound, or 10,000 when unbounded: a page deeper than the probe), or from the needle's
 *    index, every match sorted (the needle is rare among the newest files, common among older ones).
 *
 * When the count is known already (`knownMatches`: the repository keeps counts until the account
 * changes), there is no probe: the page is looked for among the newest files by a scan that stops
 * once it has it ({@link recentPage}), else found as in step 3. So a client paging through, or
 * polling, one search of a common needle costs a scan of a few hundred index entries per request.
 */
export class PostgresFileSearch {
  private readonly probeFiles: number;
  private readonly walkShare: number;

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
  }

  /**
   * The page's rows (each with `columns`), and `counted`: the number of matches, or `countLimit + 1`
   * when there are more than `countLimit`; undefined when `knownMatches` was given (unless the probe
   * saw every file of the account, which counts them anyway).
   */
  async list<Row>(search: PostgresSearch): Promise<{ rows: Row[]; counted?: number }> {
    const bound = search.countLimit === undefined ? Number.POSITIVE_INFINITY : search.countLimit + 1;
    if (search.knownMatches !== undefined) {
      // The count is known (a client paging through or polling one search): the page alone, first
      // among the newest files, which stops as soon as it has the page.
      const recent = await this.recentPage<Row>(search);
      const exact = search.countLimit === undefined || search.knownMatches <= search.countLimit;
      if (recent.length === search.window.limit || (exact && search.window.offset + recent.length >= search.knownMatches)) return { rows: recent };
      return { rows: await this.pageAlone<Row>(search, search.knownMatches) };
    }
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
        const collected = await this.collect<Row>(search, bound);
        counted = collected.counted;
        if (collected.counted < bound) page ??= collected.rows;
      }
    }
    const matches = counted ?? search.knownMatches!;
    page ??= await this.pageAlone<Row>(search, matches);
    return counted === undefined ? { rows: page } : { rows: page, counted };
  }

  /** Step 1 of {@link list}: the newest `probeFiles` files tested; `all` when they are every file of the account. */
  private async probe<Row>(search: PostgresSearch): Promise<{ examined: number; matched: number; all: boolean; rows: Row[] }> {
    const columns = sql.join(this.columns.map((column) => sql.ref(column)));
    const pageColumns = sql.join(this.columns.map((column) => sql.ref(`p.${column}`)));
    const match = this.conditions(search, likeCondition(search.needle));
    const { rows } = await sql<{ examined: number | string; matched: number | string; id: string | null }>`
      with recent as materialized (
        select ${columns}, search_text from files where user_id = ${search.userId} order by created_at desc, id desc limit ${this.probeFiles}
      )
      select t.examined, t.matched, ${pageColumns}
      from (select count(*) as examined, count(*) filter (where ${match}) as matched from recent as files) as t
      left join lateral (
        select ${columns} from recent as files where ${match} order by created_at desc, id desc limit ${search.window.limit} offset ${search.window.offset}
      ) as p on true
      order by p.created_at desc, p.id desc
    `.execute(this.db);
    const examined = Number(rows[0]?.examined ?? 0);
    return {
      examined,
      matched: Number(rows[0]?.matched ?? 0),
      all: examined < this.probeFiles,
      rows: rows.filter((row) => row.id !== null).map(({ examined: _e, matched: _m, ...row }) => row as Row),
    };
  }

  /**
   * The page among the account's {@link probeFiles} newest files, in list order along
   * `(user_id, created_at, id)`, LIKE and the other filters on each: the scan stops once it has
   * the page (the files before it and the page's own), or after those files. Complete when it
   * holds `limit` rows; otherwise the page may lie deeper (or be the last).
   */
  private async recentPage<Row>(search: PostgresSearch): Promise<Row[]> {
    const columns = sql.join(this.columns.map((column) => sql.ref(column)));
    const match = this.conditions(search, likeCondition(search.needle));
    const { rows } = await sql<Row>`
      select ${columns} from (
        select ${columns}, search_text from files where user_id = ${search.userId} order by created_at desc, id desc limit ${this.probeFiles}
      ) as files
      where ${match}
      order by created_at desc, id desc
      limit ${search.window.limit} offset ${search.window.offset}
    `.execute(this.db);
    return rows;
  }

  /** The matches up to `bound`, counted in list order along `(user_id, created_at, id)` (LIKE on each file). */
  private async countWalking(search: PostgresSearch, bound: number): Promise<number> {
    const walked = this.db
      .selectFrom('files')
      .select(sql<number>`1`.as('one'))
      .where(this.conditions(search, likeCondition(search.needle)))
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc');
    const capped = Number.isFinite(bound) ? walked.limit(bound) : walked;
    const { total } = await this.db.selectFrom(capped.as('walked')).select((eb) => eb.fn.countAll<number | string>().as('total')).executeTakeFirstOrThrow();
    return Number(total);
  }

  /**
   * The matches up to `bound` from the needle's index, counted, and the page in list order taken
   * from them (complete only when fewer than `bound` were collected).
   */
  private async collect<Row>(search: PostgresSearch, bound: number): Promise<{ counted: number; rows: Row[] }> {
    return this.fromIndex((db) => this.collectIn<Row>(db, search, bound));
  }

  private async collectIn<Row>(db: Kysely<HangarDatabase>, search: PostgresSearch, bound: number): Promise<{ counted: number; rows: Row[] }> {
    const found = db.selectFrom('files').select(['id', 'created_at']).where(this.conditions(search, indexedNeedleCondition(search.needle)));
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
        .where(this.conditions(search, common ? likeCondition(search.needle) : indexedNeedleCondition(search.needle)))
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
  private conditions(search: PostgresSearch, needle: Expression<SqlBool>): RawBuilder<SqlBool> {
    const eb = expressionBuilder<HangarDatabase, 'files'>();
    return sql<SqlBool>`(${sql.join([eb('user_id', '=', search.userId), needle, ...search.others(eb)], sql` and `)})`;
  }
}
