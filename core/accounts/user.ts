import type { ImageMetadataMode } from '../files/image-metadata/image-metadata-mode.js';
import { DomainError } from '../shared/errors.js';

/** An account holder (spec 2.1). `email` is stored normalised (trimmed, lower-case). */
export interface User {
  /** UUID. */
  id: string;
  email: string;
  /** Encoded argon2id hash (PHC string) of the password. */
  passwordHash: string;
  /** When the address was confirmed; null while unconfirmed (spec 3). */
  emailConfirmedAt: Date | null;
  /** The account's own upload limit in bytes; null means the service default (spec 2.5). */
  maxUploadSizeBytes: number | null;
  /** What uploads of images keep of their metadata (docs/image-metadata.md); `strip_location` unless the account chose. */
  imageMetadata: ImageMetadataMode;
  /**
   * When an e-mail with a confirmation link was last sent to this address: the `email_confirmation`
   * slot of the one-per-minute limit (OneTimeLinks). Null when none was sent.
   */
  lastEmailSentAt: Date | null;
  /**
   * When an e-mail with a password reset link (a reset request, or a registration of an address
   * that already has an account) was last sent: the `password_reset` slot, kept apart so that a
   * reset asked for just after the confirmation e-mail is still sent. Null when none was sent.
   */
  lastResetEmailSentAt: Date | null;
  /** Name of the account's plan (see PlanCatalog; an unknown name means the default plan). */
  planName: string;
  /** When the trial ends (set at sign-up from the plan); null when it never ends or a plan change lifted it. */
  trialEndsAt: Date | null;
  /** Paid access runs until then (set by billing, here by the admin CLI); null for none. */
  accessUntil: Date | null;
  /** When the paid subscription was canceled; null when it was not. */
  subscriptionCanceledAt: Date | null;
  /** What the account may administer (docs/admin.md): `admin` reaches the `/admin` routes. */
  role: Role;
  /** When an administrator suspended the account; null while it is active (docs/admin.md, "Suspension"). */
  suspendedAt: Date | null;
  /** Bytes the account may store, set by an administrator over its plan's; null: the plan's limit. */
  storageLimitBytes: number | null;
  /** Files the account may hold, set by an administrator over its plan's; null: the plan's limit. */
  fileCountLimit: number | null;
  createdAt: Date;
  updatedAt: Date;
}

/** The roles of an account (docs/admin.md). */
export const ROLES = ['user', 'admin'] as const;
/** One of {@link ROLES}. */
export type Role = (typeof ROLES)[number];

/**
 * Refuses a suspended account (docs/admin.md, "Suspension"): sign-in, refresh and API keys.
 * @throws DomainError ACCOUNT_SUSPENDED (403)
 */
export function requireActive(user: Pick<User, 'suspendedAt'>): void {
  if (user.suspendedAt !== null) {
    throw new DomainError('ACCOUNT_SUSPENDED', 'This account is suspended by an administrator; contact the operator of this service.');
  }
}

/** Minimum password length (spec 8). */
export const MIN_PASSWORD_LENGTH = 6;
/** Maximum password length, so hashing cost stays bounded. */
export const MAX_PASSWORD_LENGTH = 1024;
/** Maximum e-mail length (RFC 5321 §4.5.3.1.3 path limit). */
export const MAX_EMAIL_LENGTH = 254;

// Deliberately simple: one "@", a non-empty local part, a dotted domain without spaces.
// The confirmation e-mail is the real check that the address exists.
const EMAIL_PATTERN = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;

/**
 * Normalises and checks an e-mail address (spec 4.2).
 * @returns the trimmed, lower-cased address
 * @throws DomainError INVALID_EMAIL
 */
export function normaliseEmail(input: string): string {
  const email = input.trim().toLowerCase();
  if (email.length > MAX_EMAIL_LENGTH || !EMAIL_PATTERN.test(email)) {
    throw new DomainError('INVALID_EMAIL', 'The e-mail address is not valid.');
  }
  return email;
}

/**
 * Checks a new password against the length rules (spec 4.2, 8); length counts Unicode code points.
 * @throws DomainError PASSWORD_TOO_SHORT, PASSWORD_TOO_LONG
 */
export function checkNewPassword(password: string): void {
  const length = [...password].length;
  if (length < MIN_PASSWORD_LENGTH) {
    throw new DomainError('PASSWORD_TOO_SHORT', `The password must be at least ${MIN_PASSWORD_LENGTH} characters long.`);
  }
  if (length > MAX_PASSWORD_LENGTH) {
    throw new DomainError('PASSWORD_TOO_LONG', `The password must be at most ${MAX_PASSWORD_LENGTH} characters long.`);
  }
}
