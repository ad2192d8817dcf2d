import type { Clock } from '../shared/clock.js';
import { DomainError } from '../shared/errors.js';
import type { SecretDigest } from '../shared/secret-digest.js';
import type { OneTimeTokenRepository } from './one-time-token-repository.js';
import type { SessionDevice, SessionIssuer, SessionTokens } from './session-issuer.js';
import type { UserRepository } from './user-repository.js';

export interface ConfirmEmailDeps {
  users: UserRepository;
  tokens: OneTimeTokenRepository;
  issuer: SessionIssuer;
  digest: SecretDigest;
  clock: Clock;
  /** Normalised addresses whose accounts become administrators when they confirm (`ADMIN_EMAILS`, docs/admin.md). */
  adminEmails?: readonly string[];
}

/** Result of a confirmation: where to go next and the session that signs the user in (spec 5.2). */
export interface ConfirmEmailResult {
  userId: string;
  /** The `redirect_to` given at registration, or null. */
  redirectTo: string | null;
  session: SessionTokens;
}

/**
 * Confirms an e-mail address with the single-use token from the confirmation link (valid 24 h),
 * and opens a session so the user lands signed in (spec 5.2). An address listed in `adminEmails`
 * becomes an administrator here: only its confirmed owner can claim the role (docs/admin.md).
 * @throws DomainError INVALID_TOKEN (400) for an unknown, used or expired token
 */
export class ConfirmEmail {
  constructor(private readonly deps: ConfirmEmailDeps) {}

  /** @param input.device what the session will list about the device, when the host knows it */
  async execute(input: { token: string; device?: SessionDevice }): Promise<ConfirmEmailResult> {
    const now = this.deps.clock.now();
    const used = await this.deps.tokens.consume({ purpose: 'email_confirmation', tokenHash: this.deps.digest.sha256(input.token), now });
    if (!used) throw new DomainError('INVALID_TOKEN', 'This confirmation link is invalid, already used or expired.');
    await this.deps.users.markEmailConfirmed({ userId: used.userId, at: now });
    if (this.deps.adminEmails?.length) {
      const user = await this.deps.users.findById(used.userId);
      if (user && user.role !== 'admin' && this.deps.adminEmails.includes(user.email))
        await this.deps.users.setRole({ userId: user.id, role: 'admin', at: now });
    }
    return { userId: used.userId, redirectTo: used.redirectTo, session: await this.deps.issuer.open(used.userId, input.device) };
  }
}
