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
