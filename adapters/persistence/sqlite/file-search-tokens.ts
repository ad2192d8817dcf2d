import { createHash } from 'node:crypto';
import { DAY_MS, floorDiv, sizeBucket } from '../sql/file-histogram.js';

/**
 * Tokens of the SQLite substring index of `GET /files?q=` (the FTS5 table `files_search`,
 * sqlite-file-search.ts, migration 0032). Kept free of Kysely so that every connection Hangar opens,
 * the checkpoint worker's too, can register {@link FILE_SEARCH_FUNCTION} at little cost.
 *
 * A document is a list of alphanumeric tokens (FTS5's `ascii` tokenizer splits on everything
 * else), each prefixed with the owner's {@link accountKey}, so that a token's posting list holds one
 * account's files:
 * - one per distinct 1-, 2- and 3-code-point substring ("gram") of the file's `search_text`
 *   (file-search.ts: name and file id, already folded), each code point written as 4 base-36 digits
 *   (36^4 > U+10FFFF); grams across the name/file-id separator are left out (no needle holds it);
 * - one for the content type (a 64-bit hash of it) and one for the visibility, so that `q` with
 *   `type` and/or `isPublic` is one FTS query;
 * - for the upload day and the size class (file-histogram.ts's 1/32 octave), one per level of a
 *   base-4 hierarchy of buckets ({@link RANGE_DIMENSIONS}), so that a date or size range is an OR of
 *   at most 6 tokens per level ({@link rangeTokens}) that selects the files of the range's whole days
 *   (size classes) plus those of the one or two it cuts, which the rows then decide.
 */

/** The SQL function the triggers on `files` call: `(user_id, search_text, content_type, is_public, size, created_at)` → document. */
export const FILE_SEARCH_FUNCTION = 'hangar_file_search_document';

/** The line feed that separates name and file id in `search_text` (file-search.ts). */
const SEPARATOR_CODE_POINT = 0x0a;

/**
 * The account's key in every token: 16 hex digits (64 bits) of SHA-256 of the user id. Two accounts
 * with one key would share posting lists: only more candidates, which the owner check on rows removes.
 */
export function accountKey(userId: string): string {
  return createHash('sha256').update(userId).digest('hex').slice(0, 16);
}

/** The token of a gram (1–3 code points) in the account with key `key`. */
export function gramToken(key: string, codePoints: readonly number[]): string {
  let token = `${key}g`;
  for (const codePoint of codePoints) token += codePoint.toString(36).padStart(4, '0');
  return token;
}

/** The token of a content type in the account with key `key`. */
export function typeToken(key: string, contentType: string): string {
  return `${key}t${createHash('sha256').update(contentType).digest('hex').slice(0, 16)}`;
}

/** The token of a visibility (1 public, 0 private) in the account with key `key`. */
export function visibilityToken(key: string, flag: 0 | 1): string {
  return `${key}v${flag}`;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * The code points of `text` as SQLite stores it: a lone surrogate (which UTF-8 cannot hold) becomes
 * U+FFFD, as it does on its way into the database, so a needle's tokens are those of the stored text.
 */
export function codePointsOf(text: string): number[] {
  return Array.from(text.replace(LONE_SURROGATE, '\uFFFD'), (character) => character.codePointAt(0)!);
}

/**
 * The document of one file: its tokens, each once, separated by spaces.
 * @param file `searchText` as in `files.search_text`, `isPublic` 0/1 as in `files.is_public`, `size` in bytes, `createdAtMs` Unix ms
 */
export function fileSearchDocument(file: { userId: string; searchText: string; contentType: string; isPublic: number; size: number; createdAtMs: number }): string {
  const key = accountKey(file.userId);
  const tokens = new Set<string>([typeToken(key, file.contentType), visibilityToken(key, file.isPublic === 1 ? 1 : 0)]);
  for (const [dimension, value] of [['day', file.createdAtMs], ['size', file.size]] as const) {
    let bucket = clampedBucket(dimension, Number.isFinite(value) ? value : 0);
    for (let level = 0; level < RANGE_DIMENSIONS[dimension].levels; level++, bucket = Math.floor(bucket / 4)) tokens.add(rangeToken(key, dimension, level, bucket));
  }
  // Each code point's digits once; a gram's token is the key, `g` and its code points' digits (as gramToken).
  const points = codePointsOf(file.searchText);
  const digits = points.map((codePoint) => codePoint.toString(36).padStart(4, '0'));
  for (let start = 0; start < points.length; start++) {
    let token = `${key}g`;
    for (let end = start; end < start + 3 && end < points.length; end++) {
      if (points[end] === SEPARATOR_CODE_POINT) break;
      token += digits[end];
      tokens.add(token);
    }
  }
  return [...tokens].join(' ');
}

/** Added to a UTC day's number (days since the epoch, Unix ms / DAY_MS rounded down) to give its `day` bucket. */
export const DAY_BUCKET_SHIFT = 2 ** 21;

/**
 * The two range dimensions: the token letter, the number of base-4 levels, and the bucket of a
 * value clamped to [0, 4^levels): UTC days from the epoch shifted by 2^21 (±5,700 years), and size
 * classes (at most ~1,700 for 2^53 bytes). Clamping keeps order, so a range's clamped cover still
 * holds every file in it.
 */
export const RANGE_DIMENSIONS = {
  day: { letter: 'd', levels: 11, bucket: (ms: number) => floorDiv(Math.trunc(ms), DAY_MS) + DAY_BUCKET_SHIFT },
  size: { letter: 's', levels: 6, bucket: (bytes: number) => (bytes <= 0 ? 0 : Number.isSafeInteger(bytes) ? sizeBucket(bytes) : Number.MAX_SAFE_INTEGER) },
} as const;
type RangeDimension = keyof typeof RANGE_DIMENSIONS;

/** `value`'s bucket in `dimension` (ms for `day`, bytes for `size`), clamped to the hierarchy, as a document holds it. */
export function clampedBucket(dimension: RangeDimension, value: number): number {
  const { levels, bucket } = RANGE_DIMENSIONS[dimension];
  const b = bucket(value);
  return Math.min(Math.max(b, 0), 4 ** levels - 1);
}

/** The token of bucket `index` at `level` (0: single buckets; each level up groups 4) of `dimension`. */
export function rangeToken(key: string, dimension: RangeDimension, level: number, index: number): string {
  return `${key}${RANGE_DIMENSIONS[dimension].letter}${level.toString(36)}${index.toString(36)}`;
}

/**
 * Tokens whose OR selects the account's files with a value in [from, to] in `dimension` (ms for
 * `day`, bytes for `size`; an absent end is open), plus those in the one or two buckets the ends
 * cut: the canonical cover of the bucket range by base-4 blocks, at most 6 per level. Undefined
 * when an end is not a finite number (the rows decide alone then).
 */
export function rangeTokens(key: string, dimension: RangeDimension, from: number | undefined, to: number | undefined): string[] | undefined {
  if ((from !== undefined && !Number.isFinite(from)) || (to !== undefined && !Number.isFinite(to))) return undefined;
  const { levels } = RANGE_DIMENSIONS[dimension];
  let lo = from === undefined ? 0 : clampedBucket(dimension, from);
  let hi = to === undefined ? 4 ** levels - 1 : clampedBucket(dimension, to);
  const tokens: string[] = [];
  for (let level = 0; lo <= hi; level++) {
    if (level === levels - 1) {
      for (let index = lo; index <= hi; index++) tokens.push(rangeToken(key, dimension, level, index));
      break;
    }
    while (lo % 4 !== 0 && lo <= hi) tokens.push(rangeToken(key, dimension, level, lo++));
    while (hi % 4 !== 3 && lo <= hi) tokens.push(rangeToken(key, dimension, level, hi--));
    lo /= 4;
    hi = (hi + 1) / 4 - 1;
  }
  return tokens;
}

/** What {@link registerFileSearchFunction} needs of a better-sqlite3 connection. */
export interface FunctionHost {
  function(name: string, options: { deterministic: boolean }, implementation: (...args: never[]) => unknown): unknown;
}

/**
 * Makes {@link FILE_SEARCH_FUNCTION} callable on `database`, as every connection that may write
 * `files` must (the triggers of migration 0032 call it; without it such a write fails with "no such
 * function", it never leaves the index behind). Deterministic: the same row gives the same document.
 */
export function registerFileSearchFunction(database: FunctionHost): void {
  const document = (userId: string, searchText: string | null, contentType: string, isPublic: number | bigint, size: number | bigint, createdAt: number | bigint) =>
    fileSearchDocument({ userId, searchText: searchText ?? '', contentType, isPublic: Number(isPublic), size: Number(size), createdAtMs: Number(createdAt) });
  database.function(FILE_SEARCH_FUNCTION, { deterministic: true }, document as (...args: never[]) => unknown);
}
