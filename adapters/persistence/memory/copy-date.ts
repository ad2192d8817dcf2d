/** A new Date at the same instant, so stored and returned values never share a mutable object. */
export function copyDate(date: Date): Date {
  return new Date(date.getTime());
}

/** {@link copyDate} for nullable dates. */
export function copyNullableDate(date: Date | null): Date | null {
  return date === null ? null : copyDate(date);
}
