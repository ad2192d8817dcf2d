import type { Clock } from '../shared/clock.js';
import type { IdGenerator, SecretDigest } from '../shared/ids.js';
import { ACCESS_TOKEN_TTL_SECONDS, TOKEN_LENGTH } from './account-options.js';
import type { SessionRepository } from './session-repository.js';
import type { TokenSigner } from './token-signer.js';

/** Session tokens as the spec returns them (spec 2.2). */
export interface SessionTokens {
  /** JWT, sent as a bearer token. */
  accessToken: string;
  /** Opaque, single-use (rotated at each refresh). */
  refreshToken: string;
  /** Access token lifetime in seconds. */
  expiresIn: number;
  /** Access token expiry, Unix time in seconds. */
  expiresAt: number;
  tokenType: 'bearer';
}

/** Dependencies shared by the use cases that open sessions. */
export interface SessionIssuerDeps {
  sessions: SessionRepository;
  signer: TokenSigner;
  ids: IdGenerator;
  digest: SecretDigest;
  clock: Clock;
}

/** Opens sessions and mints tokens; shared by LogIn, ConfirmEmail and RefreshSession. Not a use case. */
export class SessionIssuer {
  constructor(private readonly deps: SessionIssuerDeps) {}

  /** Opens a new session (a new refresh-token family) for `userId`. */
  async open(userId: string): Promise<SessionTokens> {
    const now = this.deps.clock.now();
    const sessionId = this.deps.ids.uuid();
    const refreshToken = this.deps.ids.base62(TOKEN_LENGTH);
    await this.deps.sessions.create({
      session: { id: sessionId, userId, createdAt: now, revokedAt: null },
      refreshToken: { tokenHash: this.deps.digest.sha256(refreshToken), sessionId, createdAt: now, rotatedAt: null },
    });
    return this.tokens({ userId, sessionId, refreshToken, now });
  }

  /** Signs an access token for an existing session and pairs it with `refreshToken`. */
  async tokens(options: { userId: string; sessionId: string; refreshToken: string; now: Date }): Promise<SessionTokens> {
    const { token, expiresAt } = await this.deps.signer.sign({
      claims: { userId: options.userId, sessionId: options.sessionId },
      now: options.now,
      ttlSeconds: ACCESS_TOKEN_TTL_SECONDS,
    });
    return { accessToken: token, refreshToken: options.refreshToken, expiresIn: ACCESS_TOKEN_TTL_SECONDS, expiresAt, tokenType: 'bearer' };
  }
}
