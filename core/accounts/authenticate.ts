import type { ApiKeyRepository } from '../api-keys/api-key-repository.js';
import { API_KEY_TOUCH_INTERVAL_MS, isApiKeyExpired, looksLikeApiKey } from '../api-keys/api-key.js';
import type { Clock } from '../shared/clock.js';
import { DomainError } from '../shared/errors.js';
import type { SecretDigest } from '../shared/secret-digest.js';
import type { RateLimits } from '../shared/rate-limits.js';
import { SESSION_IDLE_DAYS } from './account-options.js';
import { DAY_MS } from '../shared/time.js';
import { SESSION_TOUCH_INTERVAL_MS, type Session, type SessionRepository } from './session-repository.js';
import type { TokenSigner } from './token-signer.js';
import { requireActive } from './user.js';
import type { UserRepository } from './user-repository.js';
import type { Principal } from './principal.js';

/** The credential headers of a request (spec 5.5), raw. */
export interface Credentials {
  /** `Authorization` header: `Bearer <API key or JWT>`. */
  authorization?: string;
  /** `X-Api-Key` header: an API key. */
  apiKey?: string;
  /** The client's address (see RateLimits), when the host knows it: unknown API keys are throttled per address. */
  client?: string;
}

/**
 * Establishes the principal of a request from `Authorization: Bearer …` (API key or JWT) or
 * `X-Api-Key` (spec 5.5). A JWT must verify (HS256, not expired) and its session must be live, so
 * logout and password reset end access tokens at once; a session unused for longer than
 * `sessionIdleDays` has ended too (its `last_used_at` is written at most once a minute). An API key
 * is looked up by its SHA-256 (indexed); its `last_used_at` is written at most once a minute. A key
 * past its `expiresAt` is refused. Unknown API keys are counted per client address like failed
 * logins ({@link RateLimits.apiKeyFailed}); while the address is made to wait, every API key it
 * sends is refused, known or not (the wait is read beside the key's lookup, not after it). The
 * account is then read (a lookup the repositories cache, invalidated by the change feed on every
 * process): a suspended account's keys and tokens are refused (docs/admin.md), a deleted one's too.
 * @throws DomainError ACCOUNT_SUSPENDED (403) for a suspended account, UNAUTHORIZED (401) for a missing, malformed or invalid credential,
 *   API_KEY_EXPIRED (401) for an expired key, RATE_LIMITED (429) while unknown keys from the client are throttled
 */
export class Authenticate {
  constructor(
    private readonly deps: {
      apiKeys: ApiKeyRepository;
      sessions: SessionRepository;
      users: UserRepository;
      signer: TokenSigner;
      digest: SecretDigest;
      clock: Clock;
      limits: RateLimits;
      /** Default {@link SESSION_IDLE_DAYS}. */
      sessionIdleDays?: number;
    },
  ) {}

  async execute(input: Credentials): Promise<Principal> {
    const principal = await this.identify(input);
    const user = await this.deps.users.findById(principal.userId);
    if (!user) throw unauthorized();
    requireActive(user);
    return principal;
  }

  private identify(input: Credentials): Promise<Principal> {
    if (input.apiKey !== undefined) return this.byApiKey(input.apiKey.trim(), input.client);
    const match = /^Bearer\s+(\S+)\s*$/i.exec(input.authorization ?? '');
    if (!match) throw unauthorized();
    const token = match[1];
    return looksLikeApiKey(token) ? this.byApiKey(token, input.client) : this.bySessionToken(token);
  }

  private async byApiKey(key: string, client: string | undefined): Promise<Principal> {
    const { limits } = this.deps;
    const keyHash = this.deps.digest.sha256(key);
    const [wait, apiKey] = await Promise.all([limits.apiKeyWait(client), looksLikeApiKey(key) ? this.deps.apiKeys.findByHash(keyHash) : undefined]);
    if (wait > 0)
      throw new DomainError('RATE_LIMITED', `Too many unknown API keys from this address: wait before trying again. Retry in ${wait} s.`, {
        retry_after_seconds: wait,
      });
    if (!apiKey || !this.deps.digest.equals(apiKey.keyHash, keyHash)) {
      await limits.apiKeyFailed(client);
      throw unauthorized();
    }
    const now = this.deps.clock.now();
    if (apiKey.expiresAt !== null && isApiKeyExpired(apiKey, now)) {
      throw new DomainError('API_KEY_EXPIRED', `This API key expired at ${apiKey.expiresAt.toISOString()}; create a new one.`);
    }
    if (apiKey.lastUsedAt === null || now.getTime() - apiKey.lastUsedAt.getTime() >= API_KEY_TOUCH_INTERVAL_MS) {
      await this.deps.apiKeys.touch({ id: apiKey.id, at: now, minIntervalMs: API_KEY_TOUCH_INTERVAL_MS });
    }
    return { kind: 'api_key', userId: apiKey.userId, apiKeyId: apiKey.id, scopes: apiKey.scopes };
  }

  private async bySessionToken(token: string): Promise<Principal> {
    const claims = await this.deps.signer.verify({ token, now: this.deps.clock.now() });
    if (!claims) throw unauthorized();
    const session = await this.deps.sessions.findById(claims.sessionId);
    if (!session || session.revokedAt !== null || session.userId !== claims.userId) throw unauthorized();
    const now = this.deps.clock.now();
    if (isIdle(session, now, this.deps.sessionIdleDays)) throw unauthorized();
    if (now.getTime() - session.lastUsedAt.getTime() >= SESSION_TOUCH_INTERVAL_MS) {
      await this.deps.sessions.touch({ sessionId: session.id, at: now, minIntervalMs: SESSION_TOUCH_INTERVAL_MS });
    }
    return { kind: 'session', userId: claims.userId, sessionId: claims.sessionId, secondFactor: session.secondFactorAt !== null };
  }
}

/** True when `session` was last used more than `idleDays` (default {@link SESSION_IDLE_DAYS}) before `now`: it has ended. */
export function isIdle(session: Pick<Session, 'lastUsedAt'>, now: Date, idleDays = SESSION_IDLE_DAYS): boolean {
  return now.getTime() - session.lastUsedAt.getTime() > idleDays * DAY_MS;
}

function unauthorized(): DomainError {
  return new DomainError('UNAUTHORIZED', 'A valid API key or session token is required.');
}

/**
 * Refuses API keys where a session token is required (spec 5.6: key management).
 * @throws DomainError JWT_REQUIRED (403)
 */
export function requireSession(principal: Principal): Extract<Principal, { kind: 'session' }> {
  if (principal.kind !== 'session') {
    throw new DomainError('JWT_REQUIRED', 'This endpoint needs a session token from login; API keys are not accepted.');
  }
  return principal;
}
