/** Units used across the core, so that durations are never bare numbers of unknown unit. */
export const SECOND_MS = 1000;
export const MINUTE_MS = 60 * SECOND_MS;
export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;

/** ISO 8601 in UTC with milliseconds and `Z`, the one timestamp format of every body. */
export function toIso(date: Date): string {
  return date.toISOString();
}
