import { createHash } from 'node:crypto';

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
 *   `type` and/or `isPublic` is one FTS query.
 */

/** The SQL function the triggers on `files` call: `(user_id, search_text, content_type, is_public)` → document. */
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
 * @param file `searchText` as in `files.search_text`, `isPublic` 0/1 as in `files.is_public`
 */
export function fileSearchDocument(file: { userId: string; searchText: string; contentType: string; isPublic: number }): string {
  const key = accountKey(file.userId);
  const tokens = new Set<string>([typeToken(key, file.contentType), visibilityToken(key, file.isPublic === 1 ? 1 : 0)]);
  const points = codePointsOf(file.searchText);
  for (let start = 0; start < points.length; start++) {
    for (let length = 1; length <= 3 && start + length <= points.length; length++) {
      if (points[start + length - 1] === SEPARATOR_CODE_POINT) break;
      tokens.add(gramToken(key, points.slice(start, start + length)));
    }
  }
  return [...tokens].join(' ');
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
  const document = (userId: string, searchText: string | null, contentType: string, isPublic: number | bigint) =>
    fileSearchDocument({ userId, searchText: searchText ?? '', contentType, isPublic: Number(isPublic) });
  database.function(FILE_SEARCH_FUNCTION, { deterministic: true }, document as (...args: never[]) => unknown);
}
