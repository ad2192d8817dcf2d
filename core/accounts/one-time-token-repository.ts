/** What a one-time token is for. */
export type OneTimeTokenPurpose = 'email_confirmation' | 'password_reset';

/** A single-use token, stored only as its SHA-256 digest. */
export interface OneTimeToken {
  /** UUID. */
  id: string;
  userId: string;
  purpose: OneTimeTokenPurpose;
  /** SHA-256 hex of the token sent by e-mail. */
  tokenHash: string;
  /** Where to send the user once the token is used (already checked by RedirectPolicy); null for none. */
  redirectTo: string | null;
  expiresAt: Date;
  createdAt: Date;
}

/** Port: single-use tokens for e-mail confirmation and password reset. */
export interface OneTimeTokenRepository {
  create(token: OneTimeToken): Promise<void>;
  /**
   * Atomically uses a token: succeeds once, for a token of this purpose with `now < expiresAt`,
   * and removes it so it can never be used again.
   * @returns the owner's user id and the token's redirect, or undefined when unknown, already used, expired or of another purpose
   */
  consume(options: { purpose: OneTimeTokenPurpose; tokenHash: string; now: Date }): Promise<{ userId: string; redirectTo: string | null } | undefined>;
  /** Removes every token of `purpose` for the user (e.g. older reset links after a reset). */
  deleteForUser(options: { userId: string; purpose: OneTimeTokenPurpose }): Promise<void>;
  /**
   * Removes every token that `consume` would refuse as expired at `now` (`expiresAt ≤ now`), of
   * every user and purpose (see PurgeCredentials).
   * @returns how many tokens were removed
   */
  deleteExpired(options: { now: Date }): Promise<number>;
}
