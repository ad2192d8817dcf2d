import type { SessionDevice, SessionIssuer, SessionTokens } from '../accounts/session-issuer.js';
import type { User } from '../accounts/user.js';
import type { UserRepository } from '../accounts/user-repository.js';
import type { Clock } from '../shared/clock.js';
import { DomainError } from '../shared/errors.js';
import { challengeInvalid } from './finish-passkey-registration.js';
import type { PasskeyChallengeRepository } from './passkey-challenge-repository.js';
import type { PasskeyRepository } from './passkey-repository.js';
import type { RelyingParty, WebAuthnVerifier } from './webauthn-verifier.js';

/**
 * `POST /auth/passkeys/authentication/verify`: signs in with a passkey instead of a password
 * (WebAuthn §7.2) and opens a session as LogIn does. The challenge is taken (used up) first, so
 * a response is accepted at most once, in any process; then the credential must be registered,
 * its signature verify with user verification (so no second factor is asked: the passkey is
 * something the user has, unlocked by something they know or are), and the account must be
 * allowed to log in as with a password (a confirmed e-mail address, spec 4.3).
 *
 * Signature counter (WebAuthn §6.1.1): when the authenticator keeps one (either value non-zero),
 * the new value must be above the stored one; a value that did not grow suggests a cloned
 * authenticator and is refused. The new value is stored with a compare-and-set, so two sign-ins
 * presenting the same counter cannot both pass.
 * @throws DomainError PASSKEY_INVALID (400) not a WebAuthn response; PASSKEY_CHALLENGE_INVALID (400)
 *         unknown, used or expired challenge; PASSKEY_NOT_RECOGNISED (401) a credential not
 *         registered here (or deleted); PASSKEY_REJECTED (401) a signature that does not verify, or
 *         no user verification; PASSKEY_COUNTER_REGRESSED (401); EMAIL_NOT_VERIFIED (403)
 */
export class SignInWithPasskey {
  constructor(
    private readonly deps: {
      users: UserRepository;
      passkeys: PasskeyRepository;
      challenges: PasskeyChallengeRepository;
      verifier: WebAuthnVerifier;
      issuer: SessionIssuer;
      clock: Clock;
      rp: RelyingParty;
    },
  ) {}

  async execute(input: { response: unknown; device?: SessionDevice }): Promise<{ user: User; session: SessionTokens }> {
    const read = this.deps.verifier.readResponse(input.response);
    if (!read) throw new DomainError('PASSKEY_INVALID', 'This is not a WebAuthn authentication response.');
    const now = this.deps.clock.now();
    if (!(await this.deps.challenges.take({ challenge: read.challenge, ceremony: 'authentication', now }))) throw challengeInvalid();
    const passkey = await this.deps.passkeys.findByCredentialId(read.credentialId);
    const user = passkey && (await this.deps.users.findById(passkey.userId));
    if (!passkey || !user)
      throw new DomainError('PASSKEY_NOT_RECOGNISED', 'This passkey is not registered with this service. Sign in with your password, or use another passkey.');
    const result = await this.deps.verifier.verifyAuthentication({
      rp: this.deps.rp,
      response: input.response,
      challenge: read.challenge,
      credential: passkey,
    });
    if (!result.verified) throw new DomainError('PASSKEY_REJECTED', `The passkey's answer could not be verified: ${result.reason}`);
    if (!result.userVerified) throw new DomainError('PASSKEY_REJECTED', 'The authenticator did not verify the user (PIN or biometrics); Hangar requires it.');
    const keepsCounter = passkey.counter > 0 || result.counter > 0;
    if (keepsCounter && result.counter <= passkey.counter) throw counterRegressed();
    if (user.emailConfirmedAt === null) {
      throw new DomainError('EMAIL_NOT_VERIFIED', 'Confirm your e-mail address with the link we sent before logging in.');
    }
    if (!(await this.deps.passkeys.recordUse({ id: passkey.id, previousCounter: passkey.counter, counter: result.counter, at: now }))) throw counterRegressed();
    return { user, session: await this.deps.issuer.open(user.id, input.device, { secondFactor: true }) };
  }
}

function counterRegressed(): DomainError {
  return new DomainError(
    'PASSKEY_COUNTER_REGRESSED',
    'This passkey answered with a signature counter that did not increase, as a copied authenticator would; it was refused. Sign in another way and check your passkeys.',
  );
}
