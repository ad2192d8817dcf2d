import type { Principal } from '../accounts/principal.js';
import { DomainError } from '../shared/errors.js';
import type { ApiKeyScope } from './api-key-scopes.js';

/**
 * Checks that `principal` may act with `required` (every listed scope). Session tokens may do
 * everything; an API key must hold each required scope.
 * @throws DomainError INSUFFICIENT_SCOPE (403) naming the scopes the key lacks (`details.required_scopes`, `details.missing_scopes`)
 */
export function authorize(principal: Principal, required: readonly ApiKeyScope[]): void {
  if (principal.kind !== 'api_key') return;
  const missing = required.filter((scope) => !principal.scopes.includes(scope));
  if (missing.length === 0) return;
  throw new DomainError(
    'INSUFFICIENT_SCOPE',
    `This API key lacks the scope${missing.length > 1 ? 's' : ''} ${missing.join(', ')} that this request needs; create a key with ${missing.length > 1 ? 'them' : 'it'} or use a session token.`,
    { required_scopes: [...required], missing_scopes: missing },
  );
}
