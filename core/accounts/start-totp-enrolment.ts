import type { PasskeyRepository } from '../passkeys/passkey-repository.js';
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
 * A session that did not prove a second factor (`secondFactor: false`) cannot enrol TOTP on an
 * account that has a passkey, for the reason StartPasskeyRegistration gives.
 * @throws DomainError MFA_ALREADY_ENABLED (409), UNAUTHORIZED (401) when the account is gone, SECOND_FACTOR_REQUIRED (403)
 */
export class StartTotpEnrolment {
  /** @param deps.passkeys absent: passkeys are not offered (only TOTP is a second factor) */
  constructor(
    private readonly deps: {
      users: UserRepository;
      mfa: MfaRepository;
      passkeys?: PasskeyRepository;
      totp: Totp;
      box: SecretBox;
      clock: Clock;
      issuer: string;
    },
  ) {}

  /** @param input.secondFactor as for StartPasskeyRegistration: whether the session proved a second factor; absent: the caller vouches */
  async execute(input: { userId: string; secondFactor?: boolean }): Promise<TotpEnrolment> {
    const user = await this.deps.users.findById(input.userId);
    if (!user) throw new DomainError('UNAUTHORIZED', 'A valid API key or session token is required.');
    if (input.secondFactor === false && this.deps.passkeys && (await this.deps.passkeys.listForUser(user.id)).length > 0) {
      throw new DomainError(
        'SECOND_FACTOR_REQUIRED',
        "This session did not prove the account's second factor: sign in again with a passkey to turn on two-factor sign-in.",
      );
    }
    const secret = await this.deps.totp.newSecret();
    const saved = await this.deps.mfa.savePendingTotp({ userId: user.id, sealedSecret: this.deps.box.seal(secret), createdAt: this.deps.clock.now() });
    if (!saved) throw new DomainError('MFA_ALREADY_ENABLED', 'Two-factor sign-in is already on; turn it off first to enrol a new authenticator.');
    return { secret, otpauthUri: await this.deps.totp.uri({ secret, label: user.email, issuer: this.deps.issuer }) };
  }
}
