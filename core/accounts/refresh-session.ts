import type { Clock } from '../shared/clock.js';
import { DomainError } from '../shared/errors.js';
import type { IdGenerator, SecretDigest } from '../shared/ids.js';
import { TOKEN_LENGTH } from './account-options.js';
import type { SessionIssuer, SessionTokens } from './session-issuer.js';
import type { SessionRepository } from './session-repository.js';

export interface RefreshSessionDeps {
  sessions: SessionRepository;
  issuer: SessionIssuer;
  ids: IdGenerator;
  digest: SecretDigest;
  clock: Clock;
}

/**
 * Exchanges a refresh token for a new access token and a new refresh token (rotation). The old
 * refresh token stops working; presenting an already-rotated token revokes the whole session
 * (refresh-token reuse detection, as GoTrue and OAuth 2.0 Security BCP RFC 9700 §4.14.2 describe).
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
    if (result.kind === 'reused') await this.deps.sessions.revoke({ sessionId: result.session.id, at: now });
    if (result.kind !== 'rotated') throw new DomainError('INVALID_REFRESH_TOKEN', 'The refresh token is invalid, already used or revoked.');
    return this.deps.issuer.tokens({ userId: result.session.userId, sessionId: result.session.id, refreshToken, now });
  }
}
