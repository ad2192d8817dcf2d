/** An account's TOTP factor (docs/account-security.md). */
export interface TotpFactor {
  userId: string;
  /** The shared secret, sealed by a SecretBox (never stored in clear). */
  sealedSecret: string;
  /** Null while the enrolment waits for its first code; from then on, sign-in asks for a code. */
  confirmedAt: Date | null;
  /** The last RFC 6238 time step a code was accepted for; a code of that step or an earlier one is refused (replay). */
  lastTimeStep: number | null;
  createdAt: Date;
}

/** A sign-in that passed its password and waits for its second factor (`mfa_token`, stored as SHA-256 hex). */
export interface MfaChallenge {
  tokenHash: string;
  userId: string;
  createdAt: Date;
  /** The token is refused from this instant on. */
  expiresAt: Date;
}

/**
 * Port: second factors (TOTP and its recovery codes) and pending two-step sign-ins. Every
 * "use once" operation is one conditional write, so that of simultaneous attempts in one process
 * or many exactly one succeeds. Rows go with their account.
 */
export interface MfaRepository {
  findTotp(userId: string): Promise<TotpFactor | undefined>;
  /**
   * Starts (or restarts) an enrolment: stores an unconfirmed factor with `sealedSecret`, replacing
   * an unconfirmed one.
   * @returns false, changing nothing, when the account already has a confirmed factor
   */
  savePendingTotp(options: { userId: string; sealedSecret: string; createdAt: Date }): Promise<boolean>;
  /**
   * Confirms the unconfirmed factor whose secret is still `sealedSecret` (an enrolment restarted
   * meanwhile is not confirmed), records `timeStep` as used and replaces the account's recovery
   * codes by `recoveryCodeHashes`, in one transaction.
   * @returns false, changing nothing, when there is no such unconfirmed factor
   */
  confirmTotp(options: { userId: string; sealedSecret: string; at: Date; timeStep: number; recoveryCodeHashes: readonly string[] }): Promise<boolean>;
  /**
   * Records `timeStep` as used by the confirmed factor if it is later than the last one used
   * (compare-and-set).
   * @returns false when a code of this step or a later one was already accepted (a replay), or there is no confirmed factor
   */
  claimTimeStep(options: { userId: string; timeStep: number }): Promise<boolean>;
  /**
   * Marks the unused recovery code `codeHash` (SHA-256 hex) of the account used at `at`.
   * @returns false when the account has no such unused code
   */
  useRecoveryCode(options: { userId: string; codeHash: string; at: Date }): Promise<boolean>;
  /** How many unused recovery codes the account has. */
  countRecoveryCodes(userId: string): Promise<number>;
  /** Removes the account's factor and its recovery codes (idempotent). */
  deleteTotp(userId: string): Promise<void>;
  /** Stores a pending two-step sign-in. @throws the store's error on a duplicate token hash */
  createChallenge(challenge: MfaChallenge): Promise<void>;
  /** The pending sign-in with this token hash, unless it expired at `now` (or was consumed). */
  findChallenge(options: { tokenHash: string; now: Date }): Promise<MfaChallenge | undefined>;
  /**
   * Removes the pending sign-in (single use).
   * @returns false when it was already consumed or expired at `now`
   */
  consumeChallenge(options: { tokenHash: string; now: Date }): Promise<boolean>;
  /** Removes pending sign-ins expired at `now`. @returns how many */
  deleteExpiredChallenges(options: { now: Date }): Promise<number>;
}
