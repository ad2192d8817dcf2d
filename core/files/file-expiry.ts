import { DomainError } from '../shared/errors.js';
import { SECOND_MS } from '../shared/time.js';

/** Longest lifetime an expiry may give a file: 100 years, in seconds (beyond it, no expiry is meant). */
export const MAX_EXPIRES_IN_SECONDS = 100 * 365 * 24 * 3600;

/**
 * Checks an expiry time for a file (docs/private-files.md, "Expiry"): strictly after `now`, and at most
 * {@link MAX_EXPIRES_IN_SECONDS} ahead. Null (no expiry) passes.
 * @throws DomainError INVALID_EXPIRY (400) for a time in the past (or now), or too far ahead
 */
export function checkExpiry(expiresAt: Date | null, now: Date): Date | null {
  if (expiresAt === null) return null;
  const time = expiresAt.getTime();
  if (Number.isNaN(time)) throw new DomainError('INVALID_EXPIRY', 'The expiry is not a valid time.');
  if (time <= now.getTime()) {
    throw new DomainError('INVALID_EXPIRY', `The expiry must be in the future; ${expiresAt.toISOString()} is not after ${now.toISOString()}.`);
  }
  if (time > now.getTime() + MAX_EXPIRES_IN_SECONDS * SECOND_MS) {
    throw new DomainError('INVALID_EXPIRY', `The expiry must be at most ${MAX_EXPIRES_IN_SECONDS} seconds (100 years) ahead.`);
  }
  return expiresAt;
}

/**
 * The expiry time `seconds` after `now` (the `expiresIn` of an upload).
 * @throws DomainError INVALID_EXPIRY (400) when `seconds` is not a whole number from 1 to {@link MAX_EXPIRES_IN_SECONDS}
 */
export function expiryIn(seconds: number, now: Date): Date {
  if (!Number.isSafeInteger(seconds) || seconds < 1 || seconds > MAX_EXPIRES_IN_SECONDS) {
    throw new DomainError('INVALID_EXPIRY', `expiresIn must be a whole number of seconds from 1 to ${MAX_EXPIRES_IN_SECONDS}.`);
  }
  return new Date(now.getTime() + seconds * SECOND_MS);
}
