/**
 * How SQLite answers a filtered listing (docs/search.md, "Choosing the way"). Two ways:
 * - `list-order`: walk the account's files newest first on the list-order index
 *   `files (user_id, created_at, id, is_public, size, content_type, search_text)`, testing every
 *   filter on the index entry (no row read), stopping once the page (or the count's bound) is reached;
 * - `index`: read the matches from the filter's own index (the `files_trigram` FTS5 index for a
 *   needle of 3 code points or more, `(user_id, content_type)` or `(user_id, size, …)` otherwise),
 *   each through its row, then sort them and skip to the page.
 * SQLite's planner cannot tell a rare needle, content type or size range from a common one, so
 * the choice is made here, from figures the listing has read already.
 */
export type ListingWay = 'list-order' | 'index';

/**
 * What a match read through an index costs, in entries walked in list order: an entry walked costs
 * 0.4–0.7 µs (the LIKE and the other tests on the index entry), a match read through the trigram
 * index 9–18 µs (its posting, its key, its row by id), measured on 100,000 files (docs/search.md).
 */
export const ENTRIES_PER_MATCH = 20;

/** What {@link choosePageWay} decides from. */
export interface PageWayInput {
  /** Files of the account (`account_totals.files_count`). */
  accountFiles: number;
  /** Matches counted for the listing's total, at most its count bound. */
  matches: number;
  /** Whether `matches` is the count bound (`total_relation: "gte"`): there may be many more. */
  atLeast: boolean;
  /** Matches the page needs passed or returned: offset + limit. */
  wanted: number;
  /**
   * Files the index way reads: `matches` for a content type or size index; for the trigram index
   * every file of the account holding the needle, whatever the other filters (estimated from the
   * sample of chooseCountWay). Default `matches`.
   */
  indexReads?: number;
}

/**
 * The cheaper way to find the page, from the matches counted for the total. With matches spread
 * evenly over the list, the walk passes about `wanted × accountFiles / matches` entries; the index
 * reads `indexReads` files at {@link ENTRIES_PER_MATCH} each: the walk when
 * `wanted × accountFiles ≤ ENTRIES_PER_MATCH × indexReads × matches`. When only a bound of the
 * matches is known, the walk: it passes at most `wanted × accountFiles / matches` entries, while
 * the index could read every file of the account.
 * @returns `list-order` or `index`; `list-order` for an empty account
 */
export function choosePageWay(input: PageWayInput): ListingWay {
  const { accountFiles, matches, atLeast, wanted, indexReads = matches } = input;
  if (atLeast || accountFiles === 0) return 'list-order';
  return wanted * accountFiles <= ENTRIES_PER_MATCH * Math.max(indexReads, matches) * matches ? 'list-order' : 'index';
}

/** What {@link chooseCountWay} decides from: the newest files of the account, tested before counting. */
export interface CountWayInput {
  /** Files of the account. */
  accountFiles: number;
  /** Newest files tested (at most the sample's size; fewer when the listing's range holds fewer). */
  sampled: number;
  /** Of those, how many hold the needle. */
  needleMatches: number;
  /** Of those, how many pass every filter (the needle and the others). */
  matches: number;
  /** The count's bound (countLimit); undefined counts every match. */
  countLimit: number | undefined;
}

/**
 * The cheaper way to count the matches of a `q` of 3 code points or more, from a sample of the
 * newest files. The walk passes every file of the account, or, with a bound, until `countLimit + 1`
 * matches are found: about `(countLimit + 1) × sampled / matches` entries. The trigram index reads
 * each file of the account that holds the needle, about `accountFiles × needleMatches / sampled`,
 * at {@link ENTRIES_PER_MATCH} each. A sample smaller than asked for means the listing's range
 * holds only those files: the walk then passes no more.
 * @returns `index` or `list-order`
 */
export function chooseCountWay(input: CountWayInput, sampleSize: number): ListingWay {
  const { accountFiles, sampled, needleMatches, matches, countLimit } = input;
  if (sampled < sampleSize) return 'list-order';
  const walk = countLimit === undefined || matches === 0 ? accountFiles : Math.min(accountFiles, ((countLimit + 1) * sampled) / matches);
  const index = (ENTRIES_PER_MATCH * accountFiles * needleMatches) / sampled;
  return index < walk ? 'index' : 'list-order';
}
