import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../../core/shared/pagination.js';

/** Wrong command line: unknown command or option, missing or extra argument, a value that does not parse. Exit 64 (EX_USAGE). */
export class UsageError extends Error {
  /** `usageLine`: the synopsis of the command concerned, shown under the message. */
  constructor(
    message: string,
    readonly usageLine?: string,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}

/**
 * A whole number ≥ `min` (and ≤ `max`) from an option value; `fallback` when the option is absent.
 * @throws UsageError naming `--<name>`
 */
export function wholeNumber(name: string, value: string | undefined, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new UsageError(`--${name} must be a whole number from ${min} to ${max}, not "${value}".`);
  }
  return Number(value);
}

/** `--page` (from 1) and `--limit` (1–100, default 30), as in every list of the API. @throws UsageError */
export function pageOf(values: { page?: string; limit?: string }): { page: number; limit: number } {
  return { page: wholeNumber('page', values.page, 1, 1), limit: wholeNumber('limit', values.limit, DEFAULT_PAGE_SIZE, 1, MAX_PAGE_SIZE) };
}

// A calendar date (midnight UTC), or a date and time with an explicit zone: a time without zone
// would be read in the machine's local time, which is rarely what an operator means on a server.
const ISO_8601 = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,3})?)?(?:Z|[+-](\d{2}):(\d{2})))?$/;

/**
 * Parses an ISO 8601 instant, or `none` (null): `2030-01-31` (midnight UTC), `2030-01-31T12:00Z`,
 * `2030-01-31T12:00:00.000+02:00`.
 * @throws UsageError naming `what` when the value is neither (including impossible dates like 2030-02-30)
 */
export function isoDateOrNone(what: string, value: string): Date | null {
  if (value.toLowerCase() === 'none') return null;
  const text = value.toUpperCase();
  const match = ISO_8601.exec(text);
  const [, year, month, day, hour = '0', minute = '0', second = '0', offsetHours = '0', offsetMinutes = '0'] = match ?? [];
  const date = new Date(text);
  const valid =
    match !== null &&
    !Number.isNaN(date.getTime()) &&
    Number(month) >= 1 &&
    Number(month) <= 12 &&
    Number(day) >= 1 &&
    Number(day) <= new Date(Date.UTC(Number(year), Number(month), 0)).getUTCDate() &&
    Number(hour) <= 23 &&
    Number(minute) <= 59 &&
    Number(second) <= 59 &&
    Number(offsetHours) <= 23 &&
    Number(offsetMinutes) <= 59;
  if (!valid) {
    throw new UsageError(
      `${what} must be an ISO 8601 date such as 2030-01-31 or 2030-01-31T12:00:00Z (a time needs Z or an offset), or "none"; got "${value}".`,
    );
  }
  return date;
}
