import type { StoredFile } from '../../core/files/stored-file.js';

// Name and file id are joined with a line feed: names never hold control characters (parseFileName
// removes them) and file ids are base62, so a match can never straddle the two unless the query
// itself holds a line feed, which fileSearchNeedle refuses.
const SEPARATOR = '\n';

function fold(text: string): string {
  // NFC as well as lower case, so "é" typed as one code point finds "é" stored as e + U+0301 (macOS names).
  return text.toLowerCase().normalize('NFC');
}

/**
 * The text a file is searched by (`GET /files?q=`, spec 4.9): its name and file id, lower-cased
 * with JavaScript's Unicode `toLowerCase` and NFC-normalised. Written once at insert, so every
 * adapter (and every database) compares the same folded text.
 */
export function fileSearchText(file: Pick<StoredFile, 'name' | 'fileId'>): string {
  return fold(`${file.name ?? ''}${SEPARATOR}${file.fileId}`);
}

/**
 * The folded form of a search query, to look for as a plain substring of {@link fileSearchText}.
 * @returns undefined when the query can match nothing (it holds the separator)
 */
export function fileSearchNeedle(q: string): string | undefined {
  const needle = fold(q);
  return needle.includes(SEPARATOR) ? undefined : needle;
}

/** `text` as a LIKE pattern (`ESCAPE '\'`) that matches it literally anywhere: `\`, `%` and `_` escaped with `\`. */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * The distinct substrings of one and of two code points (not UTF-16 units: a character beyond the
 * BMP is one) of `searchText` (a {@link fileSearchText}, already folded), in order of first
 * appearance. A needle of one or two code points is a substring of `searchText` exactly when it is
 * one of these, so a Postgres GIN index over them answers the needles a trigram index cannot: the
 * SQL function `hangar_search_grams` (migrations 0031 and 0034), which must give the same set (tested), is
 * what that index is built from.
 */
export function fileSearchGrams(searchText: string): string[] {
  const points = Array.from(searchText);
  const grams = new Set<string>();
  for (let i = 0; i < points.length; i++) {
    grams.add(points[i]!);
    if (i + 1 < points.length) grams.add(points[i]! + points[i + 1]!);
  }
  return [...grams];
}

/**
 * The distinct substrings of one, two and three code points of `searchText` (a {@link fileSearchText},
 * already folded) that do not hold the name/file-id separator, in order of first appearance. A
 * needle of at most 3 code points is a substring of `searchText` exactly when it is one of these
 * (fileSearchNeedle refuses the separator), so counting files per gram counts the files that such a
 * needle finds: the Postgres gram counts of migration 0036 (file-gram-counts.ts) are kept from them.
 */
export function fileSearchGramsUpTo3(searchText: string): string[] {
  const points = Array.from(searchText);
  const grams = new Set<string>();
  for (let i = 0; i < points.length; i++) {
    const first = points[i]!;
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
