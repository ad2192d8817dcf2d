/**
 * How SQLite finds one page of a filtered listing (docs/search.md, "Choosing the way"):
 * - `list-order`: walk the account's files newest first on the list-order index
 *   `files (user_id, created_at, id, is_public, size, content_type, search_text)` and test each
 *   filter on the index entry (no row read), stopping after the page's matches;
 * - `index`: read the matches from the filter's own index (the `files_trigram` FTS5 index for a
 *   needle of 3 code points or more, `(user_id, content_type)` or `(user_id, size, …)` otherwise),
 *   then sort them and skip to the page.
 */
export type ListingWay = 'list-order' | 'index';

/** What {@link chooseListingWay} decides from: figures the listing has read already. */
export interface ListingWayInput {
  /** Files of the account (`account_totals.files_count`). */
  accountFiles: number;
  /** Matches counted for the listing's total, at most its count bound. */
  matches: number;
  /** Whether `matches` is the count bound (`total_relation: "gte"`): there may be many more. */
  atLeast: boolean;
  /** Matches the page needs passed or returned: offset + limit. */
  wanted: number;
}

/**
 * The cheaper way to find the page, from the matches counted for the total. With matches spread
 * evenly over the list, the walk passes about `wanted × accountFiles / matches` index entries; the
 * filter's index reads `matches` entries and sorts them. An entry passed costs about as much as one
 * read (measured: docs/search.md), so the walk is chosen when `wanted × accountFiles ≤ matches²`.
 * When only a bound of the matches is known, the walk is chosen: it passes at most
 * `wanted × accountFiles / matches` entries, while the index could read every file of the account.
 * @returns `list-order` or `index`; `list-order` for an empty account
 */
export function chooseListingWay(input: ListingWayInput): ListingWay {
  const { accountFiles, matches, atLeast, wanted } = input;
  if (atLeast || accountFiles === 0) return 'list-order';
  return wanted * accountFiles <= matches * matches ? 'list-order' : 'index';
}
