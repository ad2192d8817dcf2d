/**
 * How SQLite answers a filtered listing (docs/search.md, "Choosing the way"). Three ways:
 * - `list-order`: walk the account's files newest first on the list-order index
 *   `files (user_id, created_at, id, is_public, size, content_type, search_text)`, or only the files
 *   of the listing's content type or visibility on their own list-order index
 *   (`files (user_id, content_type, created_at, id, …)`, `files (user_id, is_public, created_at, id, …)`),
 *   testing every filter on the index entry (no row read), stopping once the page (or the count's
 *   bound) is reached;
 * - `index`: read the matches from the filter's own index (the `files_trigram` FTS5 index for a
 *   needle of 3 code points or more, `(user_id, content_type)` or the size index otherwise),
 *   each through its row, then sort them and skip to the page;
 * - `size-range`: with a needle and a size range, walk that range on the size index
 *   `files (user_id, size, is_public, content_type, created_at, search_text)`, testing the needle
 *   and every other filter on the index entry (a common needle narrowed by a rare size range), then
 *   read and sort the matches and skip to the page.
 * SQLite's planner cannot tell a rare needle, content type or size range from a common one, so
 * the choice is made here, from figures the listing has read already.
 */
export type ListingWay = 'list-order' | 'index' | 'size-range';

/** The two ways that read an index other than the list-order one. */
export type IndexWay = Exclude<ListingWay, 'list-order'>;

/**
 * What a match read through an index costs, in entries walked in list order: an entry walked costs
 * 0.4–0.7 µs (the LIKE and the other tests on the index entry), a match read through the trigram
 * index 9–18 µs (its posting, its key, its row by id), measured on 100,000 files (docs/search.md).
 * A file's row read by its id costs about as much.
 */
export const ENTRIES_PER_MATCH = 20;

/**
 * What answering a listing through an index other than the list-order one costs: index entries
 * walked and tested (each as one entry walked in list order), and files read through their row
 * (each {@link ENTRIES_PER_MATCH} entries).
 */
export interface IndexCost {
  way: IndexWay;
  entries: number;
  reads: number;
}

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
   * The share of the account's files the walk passes through (0–1): its content type's or
   * visibility's when the listing has one, whose list-order index it walks. Default 1.
   */
  walkShare?: number;
  /**
   * The index the page would be read from, with what it walks and reads besides the matches:
   * {@link cheaperIndex} for a needle; default (a listing without a needle, on its content type or
   * size index) no entries and `matches` reads.
   */
  index?: Pick<IndexCost, 'entries' | 'reads'>;
}

/**
 * The cheaper way to find the page, from the matches counted for the total. With matches spread
 * evenly over the list, the walk passes about `walkShare × wanted × accountFiles / matches`
 * entries; the index walks its `entries` and reads at least every match's row,
 * `max(reads, matches)` at {@link ENTRIES_PER_MATCH} each (its matches are sorted before the page
 * is cut). When only a bound of the matches is known, the walk: it passes at most
 * `walkShare × wanted × accountFiles / matches` entries, while the index could read every file of
 * the account.
 * @returns `list-order`, or `index` for the index `index` is about; `list-order` for an empty account
 */
export function choosePageWay(input: PageWayInput): 'list-order' | 'index' {
  const { accountFiles, matches, atLeast, wanted, walkShare = 1 } = input;
  const { entries, reads } = input.index ?? { entries: 0, reads: matches };
  if (atLeast || accountFiles === 0) return 'list-order';
  return walkShare * wanted * accountFiles <= (entries + ENTRIES_PER_MATCH * Math.max(reads, matches)) * matches ? 'list-order' : 'index';
}

/** What {@link chooseCountWay} decides from: the newest files of the account, tested before counting. */
export interface CountWayInput {
  /** Files of the account. */
  accountFiles: number;
  /** Newest files tested (at most the sample's size; fewer when the listing's range holds fewer). */
  sampled: number;
  /** Of those, how many hold the needle. */
  needleMatches: number;
  /** Of those, how many are in the listing's size range; undefined without a size range. */
  sizeRangeMatches?: number;
  /**
   * Of those, how many are among the files the walk passes: of the listing's content type or
   * visibility (the larger of the two when it has both: SQLite picks either list-order index).
   * Default `sampled` (the walk passes the whole account).
   */
  walkedMatches?: number;
  /** Of those, how many pass every filter (the needle and the others). */
  matches: number;
  /** The count's bound (countLimit); undefined counts every match. */
  countLimit: number | undefined;
  /** Whether the needle has 3 code points or more, so the trigram index holds it. Default true. */
  trigram?: boolean;
}

/**
 * The index other than the list-order one that answers a listing with a needle most cheaply, and
 * what it costs (estimated from the sample as shares of the account): the trigram index (a needle
 * of 3 code points or more) reads every file of the account holding the needle,
 * `accountFiles × needleMatches / sampled` rows; the size index (a listing with a size range) walks
 * every entry of the range, `accountFiles × sizeRangeMatches / sampled`, and reads no row to
 * count. The one whose count costs less ({@link countCost}); the trigram index on a tie.
 * @returns undefined when neither can answer (a needle of 1–2 code points and no size range)
 */
export function cheaperIndex(input: CountWayInput): IndexCost | undefined {
  const { accountFiles, sampled, needleMatches, sizeRangeMatches, trigram = true } = input;
  const share = (count: number) => (sampled === 0 ? 0 : (accountFiles * count) / sampled);
  const byTrigram: IndexCost | undefined = trigram ? { way: 'index', entries: 0, reads: share(needleMatches) } : undefined;
  const bySize: IndexCost | undefined = sizeRangeMatches === undefined ? undefined : { way: 'size-range', entries: share(sizeRangeMatches), reads: 0 };
  if (!byTrigram || !bySize) return byTrigram ?? bySize;
  return countCost(bySize) < countCost(byTrigram) ? bySize : byTrigram;
}

/** What counting through `index` costs, in entries walked in list order: its entries and {@link ENTRIES_PER_MATCH} per row read. */
export function countCost(index: Pick<IndexCost, 'entries' | 'reads'>): number {
  return index.entries + ENTRIES_PER_MATCH * index.reads;
}

/**
 * The cheaper way to count the matches of a `q`, from a sample of the newest files. The walk
 * passes every file it walks ({@link walkShareOf}: the account's, or its content type's or
 * visibility's), or, with a bound, until `countLimit + 1` matches are found: about
 * `walkShare × (countLimit + 1) × sampled / matches` entries. An index costs what {@link cheaperIndex}
 * says. A sample smaller than asked for means the listing's range holds only those files: the walk
 * then passes no more.
 * @returns `list-order`, or the way of {@link cheaperIndex} (`list-order` when it has none)
 */
export function chooseCountWay(input: CountWayInput, sampleSize: number): ListingWay {
  const { accountFiles, sampled, matches, countLimit } = input;
  if (sampled < sampleSize) return 'list-order';
  const whole = countLimit === undefined || matches === 0 ? accountFiles : Math.min(accountFiles, ((countLimit + 1) * sampled) / matches);
  const walk = walkShareOf(input) * whole;
  const index = cheaperIndex(input);
  return index && countCost(index) < walk ? index.way : 'list-order';
}

/** The share (0–1) of the account's files a walk passes through, from the sample (`walkedMatches / sampled`; 1 without a sample). */
export function walkShareOf(input: Pick<CountWayInput, 'sampled' | 'walkedMatches'>): number {
  const { sampled, walkedMatches = sampled } = input;
  return sampled === 0 ? 1 : walkedMatches / sampled;
}
