/**
 * A login session: one family of refresh tokens (rotation, as GoTrue does it). Access tokens
 * carry the session id, so revoking the session ends them too.
 */
export interface Session {
  /** UUID. */
  id: string;
  userId: string;
  createdAt: Date;
  /** Null while the session is live. */
  revokedAt: Date | null;
  /**
   * Last sign of use: creation, a refresh, or an authenticated request (written at most once per
   * {@link SESSION_TOUCH_INTERVAL_MS}). A session unused for longer than the idle limit has ended.
   */
  lastUsedAt: Date;
  /** The `User-Agent` of the request that opened the session (at most 512 characters), when known. */
  userAgent: string | null;
  /** The client IP address of the request that opened the session, when known. */
  ip: string | null;
  /**
   * When the session proved a second factor (docs/admin.md, "Who may call /admin"): its sign-in
   * passed a TOTP or recovery code or was a passkey's, or it enrolled a factor itself. Null otherwise.
   */
  secondFactorAt: Date | null;
}

/** Least time between two writes of a session's `lastUsedAt`, in ms: 1 minute (no write per request). */
export const SESSION_TOUCH_INTERVAL_MS = 60_000;

/** One refresh token of a session, stored as its SHA-256 digest. */
export interface RefreshToken {
  tokenHash: string;
  sessionId: string;
  createdAt: Date;
  /** Set when the token was exchanged for a new one; presenting it again means theft. */
  rotatedAt: Date | null;
}

/** Outcome of {@link SessionRepository.rotate}. */
export type RotationResult =
  { kind: 'rotated'; session: Session } | { kind: 'reused'; session: Session; rotatedAt: Date; sealedSuccessor: string | null } | { kind: 'invalid' };

/** Port: sessions and their refresh tokens. */
export interface SessionRepository {
  /** Stores a new session with its first refresh token. */
  create(options: { session: Session; refreshToken: RefreshToken }): Promise<void>;
  findById(id: string): Promise<Session | undefined>;
  /**
   * Atomically exchanges the refresh token `tokenHash` for `next` (same session):
   * - `rotated`: the token was current and its session live; it is now marked rotated, `next` stored,
   *   and `sealedSuccessor` (the next token's plaintext, sealed by the caller's SecretBox) kept with the rotated token;
   * - `reused`: the token had already been rotated (at `rotatedAt`): nothing is stored; `sealedSuccessor` is what
   *   the rotation kept (null for a token rotated without one), so the caller may hand the same next
   *   token to a concurrent refresh within the reuse interval, or revoke the family after it;
   * - `invalid`: unknown token, or its session is revoked (whether or not the token was rotated).
   */
  rotate(options: { tokenHash: string; next: Omit<RefreshToken, 'sessionId'>; sealedSuccessor?: string; now: Date }): Promise<RotationResult>;
  /**
   * Sets `lastUsedAt` to `at` unless it is already later than `at − minIntervalMs` (a conditional
   * update, so processes touching one session at once write it once per interval).
   */
  touch(options: { sessionId: string; at: Date; minIntervalMs: number }): Promise<void>;
  /**
   * The user's live sessions: not revoked and used at or after `usedSince`, most recently used
   * first. Sessions per user are few (one per device); found through the `user_id` index.
   */
  listLive(options: { userId: string; usedSince: Date }): Promise<Session[]>;
  /**
   * Revokes (at `at`) every live session last used before `usedBefore`: sessions idle past the
   * limit, which {@link purge} later removes. Found through the `last_used_at` index.
   * @returns how many sessions were revoked
   */
  revokeIdle(options: { usedBefore: Date; at: Date }): Promise<number>;
  /** Records that the live session `sessionId` proved a second factor at `at` (idempotent: a later call keeps the first time). */
  markSecondFactor(options: { sessionId: string; at: Date }): Promise<void>;
  /** Revokes one session (idempotent). */
  revoke(options: { sessionId: string; at: Date }): Promise<void>;
  /** Revokes every live session of the user (password reset). */
  revokeAllForUser(options: { userId: string; at: Date }): Promise<void>;
  /**
   * Forgets what can no longer be used (see PurgeCredentials): every session revoked before
   * `before`, with all its refresh tokens, and every refresh token rotated before `before`. A live
   * session and its current token are never removed, however old. Afterwards
   * `findById` of a removed session answers undefined and `rotate` with a removed token `invalid`
   * (as for a token never issued), so the only thing lost is the `reused` report for a token
   * rotated that long ago.
   * @returns how many sessions and refresh tokens were removed
   */
  purge(options: { before: Date }): Promise<{ sessions: number; refreshTokens: number }>;
}
