import type { Clock } from '../shared/clock.js';
import { DomainError } from '../shared/errors.js';
import type { IdGenerator } from '../shared/id-generator.js';
import type { SecretDigest } from '../shared/secret-digest.js';
import { DAY_MS } from '../shared/time.js';
import { API_KEY_MARKER, API_KEY_PREFIX_LENGTH, API_KEY_RANDOM_LENGTH, type ApiKey, DEFAULT_API_KEY_NAME, MAX_API_KEY_NAME_LENGTH } from './api-key.js';
import { ADMIN_SCOPE, API_KEY_SCOPES, MAX_API_KEY_LIFETIME_DAYS, normaliseScopes } from './api-key-scopes.js';
import type { UserRepository } from '../accounts/user-repository.js';
import type { ApiKeyRepository } from './api-key-repository.js';

/** Default of `API_KEYS_PER_ACCOUNT`: live API keys one account may hold. */
export const DEFAULT_API_KEYS_PER_ACCOUNT = 50;

/** What {@link CreateApiKey} takes. */
export interface CreateApiKeyInput {
  userId: string;
  /** Label; trimmed, empty means "API key". */
  name?: string;
  /** A non-empty subset of KEY_SCOPES (duplicates ignored); absent: every scope of API_KEY_SCOPES (never `admin`). */
  scopes?: readonly string[];
  /** When the key stops working: after now, at most {@link MAX_API_KEY_LIFETIME_DAYS} days away; absent: never. */
  expiresAt?: Date;
}

/**
 * Creates an API key `hgr_` + 32 random base62 characters (spec 4.5). The full key is returned
 * once, here; only its SHA-256 is stored. The name is trimmed; empty means "API key". Scopes and
 * expiry are fixed for the key's life (docs/api-keys.md). An account holds at most `maxPerAccount`
 * keys that have not expired (checked and stored in one step, across processes): each key would
 * otherwise be one more thing to revoke after a leak, and once limits were counted per key, a
 * multiplier of them.
 * @throws DomainError VALIDATION_FAILED (400) when the name is longer than
 *   {@link MAX_API_KEY_NAME_LENGTH} characters (UTF-16 code units, as JSON Schema's `maxLength` at the edge),
 *   a scope is unknown or the list empty, or `expiresAt` is an invalid date, not after now or further than
 *   {@link MAX_API_KEY_LIFETIME_DAYS} days away; API_KEY_LIMIT_REACHED (403) when the account already
 *   holds `maxPerAccount` live keys; ADMIN_REQUIRED (403) for the `admin` scope asked by an
 *   account that is not an active administrator (docs/admin.md)
 */
export class CreateApiKey {
  /** @param deps.maxPerAccount live (unexpired) keys one account may hold (`API_KEYS_PER_ACCOUNT`); default {@link DEFAULT_API_KEYS_PER_ACCOUNT} */
  constructor(
    private readonly deps: { apiKeys: ApiKeyRepository; users: UserRepository; ids: IdGenerator; digest: SecretDigest; clock: Clock; maxPerAccount?: number },
  ) {}

  async execute(input: CreateApiKeyInput): Promise<{ apiKey: ApiKey; key: string }> {
    if (input.name !== undefined && input.name.length > MAX_API_KEY_NAME_LENGTH) {
      throw new DomainError('VALIDATION_FAILED', `name must be at most ${MAX_API_KEY_NAME_LENGTH} characters; got ${input.name.length}.`, [
        { path: '/name', message: `Expected at most ${MAX_API_KEY_NAME_LENGTH} characters` },
      ]);
    }
    const scopes = input.scopes === undefined ? [...API_KEY_SCOPES] : normaliseScopes(input.scopes);
    if (scopes.includes(ADMIN_SCOPE)) {
      const owner = await this.deps.users.findById(input.userId);
      if (owner?.role !== 'admin' || owner.suspendedAt !== null) {
        throw new DomainError('ADMIN_REQUIRED', 'Only an administrator may create a key with the admin scope.');
      }
    }
    const now = this.deps.clock.now();
    if (input.expiresAt !== undefined) checkExpiry(input.expiresAt, now);
    const key = API_KEY_MARKER + this.deps.ids.base62(API_KEY_RANDOM_LENGTH);
    const apiKey: ApiKey = {
      id: this.deps.ids.uuid(),
      userId: input.userId,
      name: input.name?.trim() || DEFAULT_API_KEY_NAME,
      keyPrefix: key.slice(0, API_KEY_PREFIX_LENGTH),
      keyHash: this.deps.digest.sha256(key),
      createdAt: now,
      lastUsedAt: null,
      scopes,
      expiresAt: input.expiresAt === undefined ? null : new Date(input.expiresAt.getTime()),
    };
    const max = this.deps.maxPerAccount ?? DEFAULT_API_KEYS_PER_ACCOUNT;
    if (!(await this.deps.apiKeys.createWithin(apiKey, { maxPerUser: max, now }))) {
      throw new DomainError('API_KEY_LIMIT_REACHED', `This account already holds ${max} API keys: revoke one before creating another.`, {
        api_keys_per_account: max,
      });
    }
    return { apiKey, key };
  }
}

function checkExpiry(expiresAt: Date, now: Date): void {
  const at = expiresAt.getTime();
  if (Number.isNaN(at)) {
    throw new DomainError('VALIDATION_FAILED', 'expires_at must be an ISO 8601 date and time, such as 2030-01-31T12:00:00Z.', [
      { path: '/expires_at', message: 'Expected an ISO 8601 date-time' },
    ]);
  }
  if (at <= now.getTime()) {
    throw new DomainError('VALIDATION_FAILED', 'expires_at must be in the future.', [{ path: '/expires_at', message: 'Expected an instant after now' }]);
  }
  if (at > now.getTime() + MAX_API_KEY_LIFETIME_DAYS * DAY_MS) {
    throw new DomainError(
      'VALIDATION_FAILED',
      `expires_at must be at most ${MAX_API_KEY_LIFETIME_DAYS} days from now; leave it out for a key that does not expire.`,
      [{ path: '/expires_at', message: `Expected at most ${MAX_API_KEY_LIFETIME_DAYS} days from now` }],
    );
  }
}
