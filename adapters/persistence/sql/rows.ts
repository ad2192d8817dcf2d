/**
 * Conversions between domain values and column values. Dates are stored as Unix milliseconds;
 * 64-bit integers may come back as number (SQLite), string (Postgres bigint) or bigint (drivers
 * in safe-integer mode), so every read goes through {@link toNumber}.
 */

/** An integer column as drivers answer it: number (SQLite), string (Postgres `bigint`) or bigint. */
export type IntegerColumn = number | string | bigint;

/** A 64-bit integer column value as a number. @throws Error when it is not a safe integer */
export function toNumber(value: number | string | bigint): number {
  const number = Number(value);
  if (!Number.isSafeInteger(number)) throw new Error(`Expected an integer column value, got ${String(value)}.`);
  return number;
}

/** A nullable integer column value as a number or null. */
export function toNullableNumber(value: number | string | bigint | null): number | null {
  return value === null ? null : toNumber(value);
}

/** Unix milliseconds for a date column. */
export function toMillis(date: Date): number {
  return date.getTime();
}

/** Unix milliseconds or null for a nullable date column. */
export function toNullableMillis(date: Date | null): number | null {
  return date === null ? null : date.getTime();
}

/** A date column value (Unix milliseconds) as a Date. */
export function toDate(value: number | string | bigint): Date {
  return new Date(toNumber(value));
}

/** A nullable date column value as a Date or null. */
export function toNullableDate(value: number | string | bigint | null): Date | null {
  return value === null ? null : toDate(value);
}

/** A boolean as the 0/1 of a flag column. */
export function toFlag(value: boolean): 0 | 1 {
  return value ? 1 : 0;
}
