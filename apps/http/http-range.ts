import type { ByteRange } from '../../core/files/blob-store.js';

/** Outcome of reading a `Range` header against a representation of `size` bytes. */
export type RangeResult = { kind: 'none' } | { kind: 'range'; range: ByteRange } | { kind: 'unsatisfiable' };

/**
 * Parses a `Range` header (RFC 9110 §14.1.2): `bytes=a-b`, `bytes=a-`, `bytes=-n`. Several ranges,
 * other units and malformed values are ignored (the whole representation is served, which
 * §14.2 permits). A well-formed range that starts past the end is unsatisfiable (416).
 */
export function parseRange(header: string | undefined, size: number): RangeResult {
  if (!header) return { kind: 'none' };
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return { kind: 'none' };
  const [, first, last] = match;
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'range', range: { start: Math.max(0, size - suffix), end: size - 1 } };
  }
  const start = Number(first);
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  if (last !== '' && Number(last) < start) return { kind: 'none' };
  if (start >= size) return { kind: 'unsatisfiable' };
  return { kind: 'range', range: { start, end } };
}

/** True when an `If-None-Match` list matches `etag` (weak comparison, RFC 9110 §13.1.2). */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  const opaque = etag.replace(/^W\//, '');
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === opaque);
}

/**
 * `Content-Disposition` value (RFC 6266) with an ASCII fallback `filename` and the exact name as
 * `filename*` in UTF-8 percent-encoding (RFC 8187, formerly 5987). In the fallback, bidirectional
 * controls (U+202A–U+202E, U+2066–U+2069: `invoice‮fdp.exe` showing as `invoiceexe.pdf`) are
 * removed, and other non-ASCII characters, `"`, `/` and `\` (path separators) become `_`.
 */
export function contentDisposition(type: 'inline' | 'attachment', name: string): string {
  const fallback = name
    .replace(/[\u202a-\u202e\u2066-\u2069]/g, '')
    .replace(/[^\x20-\x7e]/g, '_')
    .replace(/["\\/]/g, '_');
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${type}; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}
