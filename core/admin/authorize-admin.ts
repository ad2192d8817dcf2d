import type { Principal } from '../accounts/principal.js';
import type { MfaRepository } from '../accounts/mfa-repository.js';
import { hasSecondFactor } from '../accounts/second-factor.js';
import type { UserRepository } from '../accounts/user-repository.js';
import type { PasskeyRepository } from '../passkeys/passkey-repository.js';
import { ADMIN_SCOPE } from '../api-keys/api-key-scopes.js';
import { DomainError } from '../shared/errors.js';
import type { AdminActor } from './admin-audit.js';
import { isActiveAdmin } from './admin-target.js';

/**
 * Decides whether an authenticated caller may use the `/admin` routes (docs/admin.md, "Who may call
 * /admin"): its account must be an active administrator, and it must come with an API key holding
 * the `admin` scope or with a session token; a session that proved no second factor
 * (Principal.secondFactor) is refused while the account has one (a confirmed TOTP factor or a
 * passkey), so a session opened before the administrator enrolled a factor, or by a sign-in that
 * skipped it (single sign-on), no longer reaches the console. The account is read through the
 * cached lookup, so a demotion or suspension takes effect on every process as soon as the change
 * feed tells it; the factors are read only for a session without the mark.
 * @returns the actor, for the audit log
 * @throws DomainError ADMIN_REQUIRED (403) for an account that is not an active administrator,
 *   INSUFFICIENT_SCOPE (403) for an administrator's key without the `admin` scope,
 *   SECOND_FACTOR_REQUIRED (403) for a session without a second factor of an account that has one
 */
export class AuthorizeAdmin {
  constructor(private readonly deps: { users: UserRepository; mfa: MfaRepository; passkeys: PasskeyRepository }) {}

  async execute(input: { principal: Principal; client?: string }): Promise<AdminActor> {
    const user = await this.deps.users.findById(input.principal.userId);
    if (!user || !isActiveAdmin(user)) throw new DomainError('ADMIN_REQUIRED', 'This route is for administrators of this service.');
    if (input.principal.kind === 'api_key' && !input.principal.scopes.includes(ADMIN_SCOPE)) {
      throw new DomainError('INSUFFICIENT_SCOPE', 'This API key lacks the scope admin that this request needs; create a key with it or use a session token.', {
        required_scopes: [ADMIN_SCOPE],
        missing_scopes: [ADMIN_SCOPE],
      });
    }
    if (input.principal.kind === 'session' && !input.principal.secondFactor && (await hasSecondFactor(this.deps, user.id))) {
      throw new DomainError(
        'SECOND_FACTOR_REQUIRED',
        'This account has two-factor sign-in and this session did not pass it: sign out and sign in again with your second factor.',
      );
    }
    return { id: user.id, email: user.email, client: input.client ?? null };
  }
}
