import type { Clock } from '../shared/clock.js';
import type { IdGenerator } from '../shared/id-generator.js';
import type { SecretDigest } from '../shared/secret-digest.js';
import { ACCESS_TOKEN_TTL_SECONDS, TOKEN_LENGTH } from './account-options.js';
import type { SessionRepository } from './session-repository.js';
import { requireActive } from './user.js';
import type { UserRepository } from './user-repository.js';
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

/**
 * The device a session is opened for, as the host saw the request (docs/account-security.md):
 * listed by `GET /auth/sessions`. Either may be absent (an embedding host without HTTP).
 */
export interface SessionDevice {
  /** The `User-Agent` header; cut to {@link USER_AGENT_MAX_LENGTH} characters. */
  userAgent?: string;
  /** The client's IP address. */
  ip?: string;
}

/** Longest `User-Agent` kept with a session, in characters. */
export const USER_AGENT_MAX_LENGTH = 512;

/** Dependencies shared by the use cases that open sessions. */
export interface SessionIssuerDeps {
  sessions: SessionRepository;
  /** The account is read (a cached lookup) before tokens are minted: a suspended one gets none. */
  users: UserRepository;
  signer: TokenSigner;
  ids: IdGenerator;
  digest: SecretDigest;
  clock: Clock;
}

/**
 * Opens sessions and mints tokens; shared by LogIn, ConfirmEmail and RefreshSession (and every other
 * sign-in: MFA, passkeys, single sign-on). Refuses a suspended account (docs/admin.md), so that no
 * sign-in and no refresh hands it tokens; a refresh token rotated just before the refusal is spent.
 * @throws DomainError ACCOUNT_SUSPENDED (403)
 */
export class SessionIssuer {
  constructor(private readonly deps: SessionIssuerDeps) {}

  /**
   * Opens a new session (a new refresh-token family) for `userId`, on `device` when the host knows it.
   * @param proof.secondFactor true when the sign-in passed a second factor (TOTP or recovery code, a
   *   passkey): the session is marked so (Session.secondFactorAt), which the admin routes require of
   *   an account that has a factor (docs/admin.md)
   */
  async open(userId: string, device: SessionDevice = {}, proof: { secondFactor?: boolean } = {}): Promise<SessionTokens> {
    await this.requireActive(userId);
    const now = this.deps.clock.now();
    const sessionId = this.deps.ids.uuid();
    const refreshToken = this.deps.ids.base62(TOKEN_LENGTH);
    await this.deps.sessions.create({
      session: {
        id: sessionId,
        userId,
        createdAt: now,
        revokedAt: null,
        lastUsedAt: now,
        userAgent: device.userAgent?.slice(0, USER_AGENT_MAX_LENGTH) || null,
        ip: device.ip?.slice(0, 64) || null,
        secondFactorAt: proof.secondFactor ? now : null,
      },
      refreshToken: { tokenHash: this.deps.digest.sha256(refreshToken), sessionId, createdAt: now, rotatedAt: null },
    });
    return this.tokens({ userId, sessionId, refreshToken, now });
  }

  /** Signs an access token for an existing session and pairs it with `refreshToken`. */
  async tokens(options: { userId: string; sessionId: string; refreshToken: string; now: Date }): Promise<SessionTokens> {
    await this.requireActive(options.userId);
    const { token, expiresAt } = await this.deps.signer.sign({
      claims: { userId: options.userId, sessionId: options.sessionId },
      now: options.now,
      ttlSeconds: ACCESS_TOKEN_TTL_SECONDS,
    });
    return { accessToken: token, refreshToken: options.refreshToken, expiresIn: ACCESS_TOKEN_TTL_SECONDS, expiresAt, tokenType: 'bearer' };
  }

  /** @throws DomainError ACCOUNT_SUSPENDED (403) when the account is suspended; a missing account is the caller's to refuse */
  private async requireActive(userId: string): Promise<void> {
    const user = await this.deps.users.findById(userId);
    if (user) requireActive(user);
  }
}
