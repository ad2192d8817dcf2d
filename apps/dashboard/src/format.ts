// Numbers for people: binary sizes, dates in the browser's locale, relative times.

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

/** Bytes as `512 B`, `1.5 KiB`, `20 MiB`, `1 GiB` (powers of 1024, at most one decimal under 100). */
export function formatBytes(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined || !Number.isFinite(bytes)) return '—';
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  const digits = unit === 0 || value >= 100 ? 0 : 1;
  return `${new Intl.NumberFormat(undefined, { maximumFractionDigits: digits }).format(value)} ${UNITS[unit]}`;
}

/** A count with the locale's grouping, e.g. `10,000`. */
export function formatCount(count: number): string {
  return new Intl.NumberFormat().format(count);
}

/** An ISO timestamp as a date and time in the browser's locale and time zone; `seconds` adds them. */
export function formatDateTime(iso: string | null | undefined, seconds = false): string {
  if (!iso) return '—';
  return new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: seconds ? 'medium' : 'short' }).format(new Date(iso));
}

/** An ISO timestamp as a date in the browser's locale. */
export function formatDate(iso: string | null | undefined): string {
  if (!iso) return '—';
  return new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' }).format(new Date(iso));
}

const STEPS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 86_400_000],
  ['month', 30 * 86_400_000],
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
];

/** An ISO timestamp relative to now: `5 minutes ago`, `in 9 days`, `now`. */
export function formatRelative(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return '—';
  const diff = new Date(iso).getTime() - now;
  const format = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
  for (const [unit, ms] of STEPS) {
    if (Math.abs(diff) >= ms) return format.format(Math.round(diff / ms), unit);
  }
  return format.format(0, 'second');
}

/** Whole days from now until `iso` (rounded up), for "trial ends in 9 days". */
export function daysUntil(iso: string, now = Date.now()): number {
  return Math.ceil((new Date(iso).getTime() - now) / 86_400_000);
}
