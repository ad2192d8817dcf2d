import type { Clock } from '../shared/clock.js';
import { DomainError } from '../shared/errors.js';
import type { IdGenerator } from '../shared/id-generator.js';
import type { SecretDigest } from '../shared/secret-digest.js';
import { REFRESH_TOKEN_REUSE_INTERVAL_MS, TOKEN_LENGTH } from './account-options.js';
import type { SessionIssuer, SessionTokens } from './session-issuer.js';
import { isIdle } from './authenticate.js';
import { SESSION_TOUCH_INTERVAL_MS, type SessionRepository } from './session-repository.js';
import type { SecretBox } from './secret-box.js';
import type { ActivityRecorder } from '../activity/activity-recorder.js';

/**
 * Prefix of a sealed successor's plaintext: the secret box also seals TOTP secrets, and a sealed
 * value of one kind must never be taken for the other.
 */
const SUCCESSOR_LABEL = 'refresh-successor\n';

export interface RefreshSessionDeps {
  sessions: SessionRepository;
  issuer: SessionIssuer;
  ids: IdGenerator;
  digest: SecretDigest;
  clock: Clock;
  /** Seals each new refresh token kept with the one it replaces (never stored in plain text). */
  box: SecretBox;
  /** Where a session ended by a reused token is recorded (the account's activity log); absent: not recorded. */
  activity?: Pick<ActivityRecorder, 'record'>;
  /** Default {@link REFRESH_TOKEN_REUSE_INTERVAL_MS}. */
  reuseIntervalMs?: number;
  /** Default SESSION_IDLE_DAYS. */
  sessionIdleDays?: number;
}

/**
 * Exchanges a refresh token for a new access token and a new refresh token (rotation). The old
 * refresh token stops working; presenting an already-rotated token after `reuseIntervalMs` revokes
 * the whole session, its newest refresh and access tokens included, and records it in the account's
 * activity log (`POST /auth/refresh`, 401, `reason: refresh_token_reuse`): refresh-token reuse
 * detection, as GoTrue and OAuth 2.0 Security BCP RFC 9700 §4.14.2 describe. The rotation is one
 * conditional update (SessionRepository.rotate), so of simultaneous refreshes with one token exactly
 * one rotates; one arriving within `reuseIntervalMs` of the rotation (another tab of the same
 * browser) gets the same new refresh token, which the rotation kept sealed with the old one, and an
 * access token of the same session, as GoTrue does. A session unused for longer than
 * `sessionIdleDays` is ended instead of refreshed; a refresh counts as use.
 * @throws DomainError INVALID_REFRESH_TOKEN (401) for an unknown, revoked, or reused (past the interval) token
 */
export class RefreshSession {
  constructor(private readonly deps: RefreshSessionDeps) {}

  async execute(input: { refreshToken: string }): Promise<SessionTokens> {
    const now = this.deps.clock.now();
    const refreshToken = this.deps.ids.base62(TOKEN_LENGTH);
    const result = await this.deps.sessions.rotate({
      tokenHash: this.deps.digest.sha256(input.refreshToken),
      next: { tokenHash: this.deps.digest.sha256(refreshToken), createdAt: now, rotatedAt: null },
      sealedSuccessor: this.deps.box.seal(SUCCESSOR_LABEL + refreshToken),
      now,
    });
    if (result.kind === 'reused') {
      const concurrent = now.getTime() - result.rotatedAt.getTime() < (this.deps.reuseIntervalMs ?? REFRESH_TOKEN_REUSE_INTERVAL_MS);
      const opened = concurrent && result.sealedSuccessor !== null ? this.deps.box.open(result.sealedSuccessor) : undefined;
      const successor = opened?.startsWith(SUCCESSOR_LABEL) ? opened.slice(SUCCESSOR_LABEL.length) : undefined;
      if (successor !== undefined)
        return this.deps.issuer.tokens({ userId: result.session.userId, sessionId: result.session.id, refreshToken: successor, now });
      if (!concurrent) {
        await this.deps.sessions.revoke({ sessionId: result.session.id, at: now });
        this.deps.activity?.record({
          userId: result.session.userId,
          method: 'POST',
          path: '/auth/refresh',
          statusCode: 401,
          requestSizeBytes: null,
          createdAt: now,
          metadata: { auth: 'system', reason: 'refresh_token_reuse', session_id: result.session.id, rotated_at: result.rotatedAt.toISOString() },
        });
      }
    }
    if (result.kind !== 'rotated') throw new DomainError('INVALID_REFRESH_TOKEN', 'The refresh token is invalid, already used or revoked.');
    if (isIdle(result.session, now, this.deps.sessionIdleDays)) {
      await this.deps.sessions.revoke({ sessionId: result.session.id, at: now });
      throw new DomainError('INVALID_REFRESH_TOKEN', 'This session ended after a long time without use: log in again.');
    }
    await this.deps.sessions.touch({ sessionId: result.session.id, at: now, minIntervalMs: SESSION_TOUCH_INTERVAL_MS });
    return this.deps.issuer.tokens({ userId: result.session.userId, sessionId: result.session.id, refreshToken, now });
  }
}
