import type { Clock } from '../shared/clock.js';
import { DomainError } from '../shared/errors.js';
import type { IdGenerator, SecretDigest } from '../shared/ids.js';
import { REFRESH_TOKEN_REUSE_INTERVAL_MS, TOKEN_LENGTH } from './account-options.js';
import type { SessionIssuer, SessionTokens } from './session-issuer.js';
import { isIdle } from './authenticate.js';
import { SESSION_TOUCH_INTERVAL_MS, type SessionRepository } from './session-repository.js';

export interface RefreshSessionDeps {
  sessions: SessionRepository;
  issuer: SessionIssuer;
  ids: IdGenerator;
  digest: SecretDigest;
  clock: Clock;
  /** Default {@link REFRESH_TOKEN_REUSE_INTERVAL_MS}. */
  reuseIntervalMs?: number;
  /** Default SESSION_IDLE_DAYS. */
  sessionIdleDays?: number;
}

/**
 * Exchanges a refresh token for a new access token and a new refresh token (rotation). The old
 * refresh token stops working; presenting an already-rotated token revokes the whole session
 * (refresh-token reuse detection, as GoTrue and OAuth 2.0 Security BCP RFC 9700 §4.14.2 describe).
 * The rotation is one conditional update (SessionRepository.rotate), so of simultaneous refreshes
 * with one token exactly one succeeds; a loser arriving within `reuseIntervalMs` of the rotation
 * is refused (401) but leaves the session alone, so the winner's tokens keep working. A session
 * unused for longer than `sessionIdleDays` is ended instead of refreshed; a refresh counts as use.
 * @throws DomainError INVALID_REFRESH_TOKEN (401) for an unknown, rotated or revoked token
 */
export class RefreshSession {
  constructor(private readonly deps: RefreshSessionDeps) {}

  async execute(input: { refreshToken: string }): Promise<SessionTokens> {
    const now = this.deps.clock.now();
    const refreshToken = this.deps.ids.base62(TOKEN_LENGTH);
    const result = await this.deps.sessions.rotate({
      tokenHash: this.deps.digest.sha256(input.refreshToken),
      next: { tokenHash: this.deps.digest.sha256(refreshToken), createdAt: now, rotatedAt: null },
      now,
    });
    const concurrent = result.kind === 'reused' && now.getTime() - result.rotatedAt.getTime() < (this.deps.reuseIntervalMs ?? REFRESH_TOKEN_REUSE_INTERVAL_MS);
    if (result.kind === 'reused' && !concurrent) await this.deps.sessions.revoke({ sessionId: result.session.id, at: now });
    if (result.kind !== 'rotated') throw new DomainError('INVALID_REFRESH_TOKEN', 'The refresh token is invalid, already used or revoked.');
    if (isIdle(result.session, now, this.deps.sessionIdleDays)) {
      await this.deps.sessions.revoke({ sessionId: result.session.id, at: now });
      throw new DomainError('INVALID_REFRESH_TOKEN', 'This session ended after a long time without use: log in again.');
    }
    await this.deps.sessions.touch({ sessionId: result.session.id, at: now, minIntervalMs: SESSION_TOUCH_INTERVAL_MS });
    return this.deps.issuer.tokens({ userId: result.session.userId, sessionId: result.session.id, refreshToken, now });
  }
}
