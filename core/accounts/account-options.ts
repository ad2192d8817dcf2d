import type { RegistrationMode } from '../invites/invite.js';
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../shared/time.js';

/** Service-wide account settings the use cases need (parsed from configuration by the host). */
export interface AccountOptions {
  /** {base_url}: absolute URL of the API, used to build e-mail links. No trailing slash. */
  publicApiUrl: string;
  /** URLs that `redirect_to` may point under (see RedirectPolicy). */
  allowedRedirectUrls: readonly string[];
  /** Least time between two e-mails of one purpose (confirmation, reset) to one address, in ms; default {@link EMAIL_MIN_INTERVAL_MS} (1 minute). */
  emailMinIntervalMs?: number;
  /**
   * A rotated refresh token presented again within this many ms of its rotation is refused
   * without ending the session (a concurrent refresh, e.g. two tabs); later, it is theft and ends
   * the session. Default {@link REFRESH_TOKEN_REUSE_INTERVAL_MS} (10 s).
   */
  refreshTokenReuseIntervalMs?: number;
  /**
   * A session unused (no refresh, no authenticated request) for this many days ends by itself
   * (`SESSION_IDLE_DAYS`); default {@link SESSION_IDLE_DAYS}.
   */
  sessionIdleDays?: number;
  /** The issuer name authenticator apps show next to a TOTP code; default `Hangar`. */
  totpIssuer?: string;
  /** Who may create an account (`REGISTRATION`, see RegistrationGate); default `open`. */
  registration?: RegistrationMode;
}

/** See {@link AccountOptions.sessionIdleDays}: 30 days. */
export const SESSION_IDLE_DAYS = 30;
/** Lifetime of an `mfa_token` (the pending second step of a sign-in): 5 minutes. */
export const MFA_TOKEN_TTL_MS = 5 * MINUTE_MS;
/** Recovery codes handed out when TOTP is turned on. */
export const RECOVERY_CODE_COUNT = 10;
/** Length of a recovery code in base62 characters (~131 bits). */
export const RECOVERY_CODE_LENGTH = 22;

/** See {@link AccountOptions.refreshTokenReuseIntervalMs}: 10 s, GoTrue's `REFRESH_TOKEN_REUSE_INTERVAL` default. */
export const REFRESH_TOKEN_REUSE_INTERVAL_MS = 10_000;

/** Lifetime of an access token: 1 hour (`expires_in` 3600). */
export const ACCESS_TOKEN_TTL_SECONDS = 3600;
/** Lifetime of an e-mail confirmation link. */
export const CONFIRMATION_TOKEN_TTL_MS = DAY_MS;
/** Lifetime of a password reset link. */
export const RESET_TOKEN_TTL_MS = HOUR_MS;
/** At most one e-mail per address and purpose per this interval; more are dropped silently. */
export const EMAIL_MIN_INTERVAL_MS = MINUTE_MS;
/** Length of one-time and refresh tokens in base62 characters (~238 bits). */
export const TOKEN_LENGTH = 40;
