import type { StoredFile } from '../../core/files/stored-file.js';

// Name and file id are joined with a line feed: names never hold control characters (parseFileName
// removes them) and file ids are base62, so a match can never straddle the two unless the query
// itself holds a line feed, which fileSearchNeedle refuses.
const SEPARATOR = '\n';

/** Combining diacritical marks (U+0300–U+036F): the accents that NFD splits off Latin, Greek and Cyrillic letters. */
const COMBINING_MARKS = /[\u0300-\u036f]/g;

/**
 * The one text fold of `q` (spec 4.9: "case-insensitive"; accents ignored too): canonical
 * decomposition (NFD), the combining diacritical marks U+0300–U+036F dropped, JavaScript's Unicode
 * `toLowerCase`, then composition (NFC). "Résumé", "RESUME" and "re\u0301sume\u0301" (macOS) all
 * fold to "resume". Marks outside that block stay, so Japanese dakuten (U+3099) keep "が" apart
 * from "か". Stored text and needle are folded by this same function on every adapter, so the
 * memory adapter and both databases agree exactly; migration 0042 holds a frozen copy.
 */
export function foldSearchText(text: string): string {
  return text.normalize('NFD').replace(COMBINING_MARKS, '').toLowerCase().normalize('NFC');
}

/**
 * The text a file is searched by (`GET /files?q=`, spec 4.9): its name and file id, joined by a
 * line feed and folded by {@link foldSearchText}. Written at insert and at rename into
 * `files.search_text`, which the databases' indexes are built on.
 */
export function fileSearchText(file: Pick<StoredFile, 'name' | 'fileId'>): string {
  return foldSearchText(`${file.name ?? ''}${SEPARATOR}${file.fileId}`);
}

/**
 * The folded form of a search query, to look for as a plain substring of {@link fileSearchText}.
 * @returns undefined when the query can match nothing (it holds the separator)
 */
export function fileSearchNeedle(q: string): string | undefined {
  const needle = foldSearchText(q);
  return needle.includes(SEPARATOR) ? undefined : needle;
}

/** `text` as a LIKE pattern (`ESCAPE '\'`) that matches it literally anywhere: `\`, `%` and `_` escaped with `\`. */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
