import type { Principal } from '../accounts/principal.js';
import type { UserRepository } from '../accounts/user-repository.js';
import { ADMIN_SCOPE } from '../api-keys/api-key-scopes.js';
import { DomainError } from '../shared/errors.js';
import type { AdminActor } from './admin-audit.js';
import { isActiveAdmin } from './admin-target.js';

/**
 * Decides whether an authenticated caller may use the `/admin` routes (docs/admin.md): its account
 * must be an active administrator, and it must come with a session token (which, for an account
 * with a second factor, only a sign-in that passed it hands out) or with an API key holding the
 * `admin` scope. The account is read through the cached lookup, so a demotion or suspension takes
 * effect on every process as soon as the change feed tells it.
 * @returns the actor, for the audit log
 * @throws DomainError ADMIN_REQUIRED (403) for an account that is not an active administrator,
 *   INSUFFICIENT_SCOPE (403) for an administrator's key without the `admin` scope
 */
export class AuthorizeAdmin {
  constructor(private readonly deps: { users: UserRepository }) {}

  async execute(input: { principal: Principal; client?: string }): Promise<AdminActor> {
    const user = await this.deps.users.findById(input.principal.userId);
    if (!user || !isActiveAdmin(user)) throw new DomainError('ADMIN_REQUIRED', 'This route is for administrators of this service.');
    if (input.principal.kind === 'api_key' && !input.principal.scopes.includes(ADMIN_SCOPE)) {
      throw new DomainError('INSUFFICIENT_SCOPE', 'This API key lacks the scope admin that this request needs; create a key with it or use a session token.', {
        required_scopes: [ADMIN_SCOPE],
        missing_scopes: [ADMIN_SCOPE],
      });
    }
    return { id: user.id, email: user.email, client: input.client ?? null };
  }
}
