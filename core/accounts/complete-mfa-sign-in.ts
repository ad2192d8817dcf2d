import type { Clock } from '../shared/clock.js';
import { DomainError } from '../shared/errors.js';
import type { SecretDigest } from '../shared/secret-digest.js';
import type { MfaCodes } from './mfa-codes.js';
import type { MfaRepository } from './mfa-repository.js';
import type { SessionDevice, SessionIssuer, SessionTokens } from './session-issuer.js';
import type { User } from './user.js';
import type { UserRepository } from './user-repository.js';

/**
 * The second step of a password sign-in on an account with TOTP on (docs/account-security.md):
 * the `mfa_token` LogIn answered (valid 5 minutes) and a TOTP or recovery code open the session.
 * A wrong code leaves the token usable until it expires (the account's code limit applies); the
 * token is consumed by the sign-in it completes, with a conditional delete, so it opens one
 * session at most, whichever process receives it.
 * @throws DomainError INVALID_MFA_TOKEN (401), INVALID_MFA_CODE (400), RATE_LIMITED (429)
 */
export class CompleteMfaSignIn {
  constructor(
    private readonly deps: { users: UserRepository; mfa: MfaRepository; codes: MfaCodes; issuer: SessionIssuer; digest: SecretDigest; clock: Clock },
  ) {}

  async execute(input: { mfaToken: string; code: string; device?: SessionDevice }): Promise<{ user: User; session: SessionTokens }> {
    const tokenHash = this.deps.digest.sha256(input.mfaToken);
    const challenge = await this.deps.mfa.findChallenge({ tokenHash, now: this.deps.clock.now() });
    const user = challenge && (await this.deps.users.findById(challenge.userId));
    const factor = user && (await this.deps.mfa.findTotp(user.id));
    if (!challenge || !user || !factor || factor.confirmedAt === null) throw invalidToken();
    await this.deps.codes.accept({ factor, code: input.code });
    if (!(await this.deps.mfa.consumeChallenge({ tokenHash, now: this.deps.clock.now() }))) throw invalidToken();
    return { user, session: await this.deps.issuer.open(user.id, input.device, { secondFactor: true }) };
  }
}

function invalidToken(): DomainError {
  return new DomainError('INVALID_MFA_TOKEN', 'This sign-in step is unknown, used or older than 5 minutes: log in again.');
}
