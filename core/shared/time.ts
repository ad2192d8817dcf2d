/** Units used across the core, so that durations are never bare numbers of unknown unit. */
export const SECOND_MS = 1000;
export const MINUTE_MS = 60 * SECOND_MS;
export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;

/**
 * ISO 8601 in UTC with milliseconds and `Z` (`2026-11-27T16:05:09.042Z`), the one timestamp format
 * of every body: exactly what `Date.prototype.toISOString` returns, built from the UTC fields, which
 * is cheaper than that builtin where it counts, a page of files with one or two per file
 * (decision 0013, docs/decisions/). Years outside 1000–9999 (padded, or written
 * with a sign and six digits) and invalid dates (a RangeError) are left to the builtin.
 */
export function toIso(date: Date): string {
  const year = date.getUTCFullYear();
  if (!(year >= 1000 && year <= 9999)) return date.toISOString();
  return `${year}-${two(date.getUTCMonth() + 1)}-${two(date.getUTCDate())}T${two(date.getUTCHours())}:${two(date.getUTCMinutes())}:${two(date.getUTCSeconds())}.${three(date.getUTCMilliseconds())}Z`;
}

function two(value: number): string {
  return value < 10 ? `0${value}` : `${value}`;
}

function three(value: number): string {
  return value < 10 ? `00${value}` : value < 100 ? `0${value}` : `${value}`;
}
