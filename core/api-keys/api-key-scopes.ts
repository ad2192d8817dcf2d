import { DomainError } from '../shared/errors.js';

/**
 * What an API key may do (docs/api-keys.md):
 * - `files:read`: list, read and download the account's files, their shares, signed URLs;
 * - `files:write`: upload, rename or change a file, create and remove share links;
 * - `files:delete`: delete files (one or in bulk);
 * - `account:read`: profile, plan, usage, settings and the activity log;
 * - `webhooks:manage`: create, change, test and delete webhook endpoints, read their delivery log (docs/webhooks.md).
 * Session tokens may do everything. A key with every scope ("full access": the default, and every
 * key created before scopes existed) may also change settings and rotate the signing key.
 * Key management and logout need a session token whatever the key's scopes (JWT_REQUIRED).
 */
export const API_KEY_SCOPES = ['files:read', 'files:write', 'files:delete', 'account:read', 'webhooks:manage'] as const;

/**
 * The scope of the `/admin` routes (docs/admin.md): only an administrator may create a key with it,
 * it is never among a key's default scopes, and it works only while the key's owner is an active
 * administrator.
 */
export const ADMIN_SCOPE = 'admin';

/** Every scope a key may hold: {@link API_KEY_SCOPES} and {@link ADMIN_SCOPE}, in this order. */
export const KEY_SCOPES = [...API_KEY_SCOPES, ADMIN_SCOPE] as const;
/** One of {@link KEY_SCOPES}. */
export type ApiKeyScope = (typeof KEY_SCOPES)[number];

/** Longest lifetime of an expiring key, in days (`expires_at` at most this far from creation). */
export const MAX_API_KEY_LIFETIME_DAYS = 366;

/** True when `value` is one of {@link KEY_SCOPES}. */
export function isApiKeyScope(value: string): value is ApiKeyScope {
  return (KEY_SCOPES as readonly string[]).includes(value);
}

/**
 * The scopes of `scopes` in the order of {@link KEY_SCOPES}, each once.
 * @throws DomainError VALIDATION_FAILED (400) for an unknown scope or an empty list
 */
export function normaliseScopes(scopes: readonly string[]): ApiKeyScope[] {
  const unknown = scopes.filter((scope) => !isApiKeyScope(scope));
  if (unknown.length > 0) {
    throw new DomainError('VALIDATION_FAILED', `Unknown scope ${JSON.stringify(unknown[0])}; scopes are ${KEY_SCOPES.join(', ')}.`, [
      { path: '/scopes', message: `Expected a subset of ${KEY_SCOPES.join(', ')}` },
    ]);
  }
  if (scopes.length === 0) {
    throw new DomainError('VALIDATION_FAILED', 'A key needs at least one scope.', [{ path: '/scopes', message: 'Expected at least one scope' }]);
  }
  return KEY_SCOPES.filter((scope) => scopes.includes(scope));
}
