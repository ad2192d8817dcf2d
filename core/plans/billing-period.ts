import { DAY_MS } from '../shared/time.js';

/** A billing period: `start` ≤ t < `end`. */
export interface BillingPeriod {
  start: Date;
  end: Date;
}

/** Midnight UTC of `date`'s day. */
function dayStart(date: Date): Date {
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()));
}

/** The anchor day moved `months` months on, clamped to the month's last day (31 Jan → 28/29 Feb). */
function addMonths(anchor: Date, months: number): Date {
  const year = anchor.getUTCFullYear();
  const month = anchor.getUTCMonth() + months;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return new Date(Date.UTC(year, month, Math.min(anchor.getUTCDate(), lastDay)));
}

/**
 * The monthly billing period containing `at`, anchored on the account's creation day (UTC, from
 * 00:00): an account created on 2026-01-31 has periods starting Jan 31, Feb 28, Mar 31, Apr 30…
 * Instants before the creation day fall in the first period.
 */
export function billingPeriodAt(createdAt: Date, at: Date): BillingPeriod {
  const anchor = dayStart(createdAt);
  let months = Math.max(0, (at.getUTCFullYear() - anchor.getUTCFullYear()) * 12 + (at.getUTCMonth() - anchor.getUTCMonth()));
  while (months > 0 && addMonths(anchor, months).getTime() > at.getTime()) months--;
  while (addMonths(anchor, months + 1).getTime() <= at.getTime()) months++;
  return { start: addMonths(anchor, months), end: addMonths(anchor, months + 1) };
}

/** The UTC day of `at` as milliseconds since the epoch (midnight); buckets reads before their period is known. */
export function utcDay(at: Date): number {
  return Math.floor(at.getTime() / DAY_MS) * DAY_MS;
}
