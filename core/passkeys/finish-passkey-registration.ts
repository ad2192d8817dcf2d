import type { MfaRepository } from '../accounts/mfa-repository.js';
import { hasSecondFactor, markEnrollingSession } from '../accounts/second-factor.js';
import type { SessionRepository } from '../accounts/session-repository.js';
import type { Clock } from '../shared/clock.js';
import { DomainError } from '../shared/errors.js';
import type { IdGenerator } from '../shared/id-generator.js';
import type { PasskeyChallengeRepository } from './passkey-challenge-repository.js';
import { passkeyName } from './passkey-name.js';
import type { Passkey } from './passkey.js';
import type { PasskeyRepository } from './passkey-repository.js';
import type { RelyingParty, WebAuthnVerifier } from './webauthn-verifier.js';

/**
 * `POST /auth/passkeys/registration/verify`: stores the passkey the browser created from
 * {@link StartPasskeyRegistration}'s options (WebAuthn §7.1). The challenge is taken (used up)
 * first, whatever the outcome, so a response can be tried once; it must have been issued to this
 * account for a registration and not have expired. The authenticator must have verified the user
 * (PIN or biometrics), which makes a passkey sign-in two factors on its own. When it is the
 * account's first factor, the session that registered it (`sessionId`) counts as having proved a
 * second factor from then on (markEnrollingSession).
 * @throws DomainError PASSKEY_CHALLENGE_INVALID (400) unknown, used, expired or another account's challenge;
 *         PASSKEY_INVALID (400) a response that does not verify or lacks user verification;
 *         PASSKEY_ALREADY_REGISTERED (409) a credential registered already (to any account);
 *         VALIDATION_FAILED (400) a bad name
 */
export class FinishPasskeyRegistration {
  constructor(
    private readonly deps: {
      passkeys: PasskeyRepository;
      mfa: MfaRepository;
      sessions: SessionRepository;
      challenges: PasskeyChallengeRepository;
      verifier: WebAuthnVerifier;
      ids: IdGenerator;
      clock: Clock;
      rp: RelyingParty;
    },
  ) {}

  /**
   * @param input.name the owner's label; default "Passkey N" (N = how many the account has, plus one)
   * @param input.sessionId the session registering it, when a session token asked
   */
  async execute(input: { userId: string; response: unknown; name?: string; sessionId?: string }): Promise<Passkey> {
    const name = input.name === undefined ? undefined : passkeyName(input.name);
    const read = this.deps.verifier.readResponse(input.response);
    if (!read) throw new DomainError('PASSKEY_INVALID', 'This is not a WebAuthn registration response.');
    const now = this.deps.clock.now();
    const taken = await this.deps.challenges.take({ challenge: read.challenge, ceremony: 'registration', now });
    if (!taken || taken.userId !== input.userId) throw challengeInvalid();
    const result = await this.deps.verifier.verifyRegistration({ rp: this.deps.rp, response: input.response, challenge: read.challenge });
    if (!result.verified) throw new DomainError('PASSKEY_INVALID', `The passkey could not be verified: ${result.reason}`);
    if (!result.userVerified) throw new DomainError('PASSKEY_INVALID', 'The authenticator did not verify the user (PIN or biometrics); Hangar requires it.');
    const hadFactor = await hasSecondFactor(this.deps, input.userId);
    const count = name === undefined ? (await this.deps.passkeys.listForUser(input.userId)).length : 0;
    const passkey: Passkey = {
      id: this.deps.ids.uuid(),
      userId: input.userId,
      name: name ?? `Passkey ${count + 1}`,
      credentialId: result.credentialId,
      publicKey: result.publicKey,
      counter: result.counter,
      transports: result.transports,
      createdAt: now,
      lastUsedAt: null,
    };
    if (!(await this.deps.passkeys.insert(passkey))) {
      throw new DomainError('PASSKEY_ALREADY_REGISTERED', 'This passkey is registered already.');
    }
    await markEnrollingSession(this.deps, { sessionId: input.sessionId, hadFactor, at: now });
    return passkey;
  }
}

/** The one PASSKEY_CHALLENGE_INVALID error. */
export function challengeInvalid(): DomainError {
  return new DomainError('PASSKEY_CHALLENGE_INVALID', 'This passkey request is unknown, was used already or has expired: start again.');
}
