import { RECOVERY_CODE_COUNT, RECOVERY_CODE_LENGTH } from './account-options.js';
import type { Clock } from '../shared/clock.js';
import { DomainError } from '../shared/errors.js';
import type { IdGenerator } from '../shared/id-generator.js';
import type { SecretDigest } from '../shared/secret-digest.js';
import type { RateLimits } from '../shared/rate-limits.js';
import type { MfaCodes } from './mfa-codes.js';
import type { MfaRepository } from './mfa-repository.js';
import type { PasskeyRepository } from '../passkeys/passkey-repository.js';
import { markEnrollingSession } from './second-factor.js';
import type { SessionRepository } from './session-repository.js';

/**
 * Turns TOTP on with a first code of the secret StartTotpEnrolment handed out (proof the
 * authenticator holds it), and returns the account's 10 recovery codes, shown this once. Recovery
 * codes are stored as SHA-256 digests: each carries ~131 random bits, so unlike a password no slow
 * hash is needed to make guessing from a stolen digest hopeless. The code's time step counts as
 * used (it cannot sign in afterwards). Wrong codes count against the account's code limit. When
 * the account has no passkey, TOTP is its first factor and the session that confirmed it
 * (`sessionId`) counts as having proved a second factor from then on (markEnrollingSession).
 * @throws DomainError MFA_NOT_ENABLED (409) without a started enrolment, MFA_ALREADY_ENABLED (409),
 *   INVALID_MFA_CODE (400), RATE_LIMITED (429)
 */
export class ConfirmTotpEnrolment {
  constructor(
    private readonly deps: {
      mfa: MfaRepository;
      passkeys: PasskeyRepository;
      sessions: SessionRepository;
      codes: MfaCodes;
      limits: RateLimits;
      ids: IdGenerator;
      digest: SecretDigest;
      clock: Clock;
    },
  ) {}

  /**
   * @param input.sessionId the session confirming it, when a session token asked
   * @returns the recovery codes, in clear, for the user to keep
   */
  async execute(input: { userId: string; code: string; sessionId?: string }): Promise<{ recoveryCodes: string[] }> {
    const factor = await this.deps.mfa.findTotp(input.userId);
    if (!factor) throw new DomainError('MFA_NOT_ENABLED', 'Start the enrolment (POST /auth/mfa/totp) before confirming it.');
    if (factor.confirmedAt !== null) throw new DomainError('MFA_ALREADY_ENABLED', 'Two-factor sign-in is already on.');
    await this.deps.limits.mfaCodeAttempt(input.userId);
    const step = await this.deps.codes.timeStepOf({ sealedSecret: factor.sealedSecret, code: input.code });
    if (step === undefined) throw new DomainError('INVALID_MFA_CODE', 'This code is wrong or expired: enter the code your authenticator app shows now.');
    const recoveryCodes = Array.from({ length: RECOVERY_CODE_COUNT }, () => this.deps.ids.base62(RECOVERY_CODE_LENGTH));
    const confirmed = await this.deps.mfa.confirmTotp({
      userId: input.userId,
      sealedSecret: factor.sealedSecret,
      at: this.deps.clock.now(),
      timeStep: step,
      recoveryCodeHashes: recoveryCodes.map((code) => this.deps.digest.sha256(code)),
    });
    if (!confirmed) throw new DomainError('MFA_NOT_ENABLED', 'The enrolment changed meanwhile (restarted or confirmed elsewhere): start again.');
    await this.deps.limits.mfaCodeAccepted(input.userId);
    const hadFactor = (await this.deps.passkeys.listForUser(input.userId)).length > 0;
    await markEnrollingSession(this.deps, { sessionId: input.sessionId, hadFactor, at: this.deps.clock.now() });
    return { recoveryCodes };
  }
}
