import type { Clock } from '../shared/clock.js';
import { DomainError } from '../shared/errors.js';
import type { MfaRepository } from './mfa-repository.js';
import type { SecretBox } from './secret-box.js';
import type { Totp } from './totp.js';
import type { UserRepository } from './user-repository.js';

/** What an enrolment shows once: the secret, and the URI a QR code carries. */
export interface TotpEnrolment {
  /** Base32 shared secret, for typing into an authenticator app. */
  secret: string;
  /** `otpauth://totp/<issuer>:<e-mail>?secret=…&issuer=…`. */
  otpauthUri: string;
}

/**
 * Starts turning TOTP on (docs/account-security.md): draws a new secret, keeps it sealed
 * (SecretBox) as an unconfirmed factor, replacing an earlier unconfirmed one, and returns it once.
 * Sign-in does not ask for codes until ConfirmTotpEnrolment saw a code of this secret.
 * @throws DomainError MFA_ALREADY_ENABLED (409), UNAUTHORIZED (401) when the account is gone
 */
export class StartTotpEnrolment {
  constructor(private readonly deps: { users: UserRepository; mfa: MfaRepository; totp: Totp; box: SecretBox; clock: Clock; issuer: string }) {}

  async execute(input: { userId: string }): Promise<TotpEnrolment> {
    const user = await this.deps.users.findById(input.userId);
    if (!user) throw new DomainError('UNAUTHORIZED', 'A valid API key or session token is required.');
    const secret = await this.deps.totp.newSecret();
    const saved = await this.deps.mfa.savePendingTotp({ userId: user.id, sealedSecret: this.deps.box.seal(secret), createdAt: this.deps.clock.now() });
    if (!saved) throw new DomainError('MFA_ALREADY_ENABLED', 'Two-factor sign-in is already on; turn it off first to enrol a new authenticator.');
    return { secret, otpauthUri: await this.deps.totp.uri({ secret, label: user.email, issuer: this.deps.issuer }) };
  }
}
