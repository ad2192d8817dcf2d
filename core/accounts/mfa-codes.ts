import type { Clock } from '../shared/clock.js';
import { DomainError } from '../shared/errors.js';
import type { SecretDigest } from '../shared/secret-digest.js';
import type { RateLimits } from '../shared/rate-limits.js';
import type { MfaRepository, TotpFactor } from './mfa-repository.js';
import type { SecretBox } from './secret-box.js';
import type { Totp } from './totp.js';

/** A TOTP code as typed: 6 digits, spaces allowed between them. */
const TOTP_CODE = /^\d{6}$/;

/** A code with spaces and dashes removed (recovery codes are shown in groups). */
export function compactCode(code: string): string {
  return code.replace(/[\s-]/g, '');
}

/**
 * Checks second-factor codes of an account with a confirmed TOTP factor (not a use case: shared by
 * CompleteMfaSignIn and DisableTotp). A 6-digit code is a TOTP code: accepted once per time step
 * and never for a step at or before the last one accepted (RFC 6238 §5.2), through a conditional
 * write, so a code seen by someone else cannot be replayed in its 90 s of validity, from any
 * process. Anything else is a recovery code, usable once. Wrong codes count against the account's
 * limit (RateLimits.mfaCodeAttempt) before they are checked.
 */
export class MfaCodes {
  constructor(private readonly deps: { mfa: MfaRepository; totp: Totp; box: SecretBox; digest: SecretDigest; limits: RateLimits; clock: Clock }) {}

  /**
   * Accepts `code` for `factor` (which must be confirmed) and uses it up.
   * @throws DomainError RATE_LIMITED (429), INVALID_MFA_CODE (400) for a wrong, expired, replayed or used code
   */
  async accept(options: { factor: TotpFactor; code: string }): Promise<void> {
    const { factor } = options;
    const userId = factor.userId;
    await this.deps.limits.mfaCodeAttempt(userId);
    const code = compactCode(options.code);
    const accepted = TOTP_CODE.test(code) ? await this.acceptTotp(factor, code) : await this.acceptRecoveryCode(userId, code);
    if (!accepted) throw new DomainError('INVALID_MFA_CODE', 'This code is wrong, expired or already used.');
    await this.deps.limits.mfaCodeAccepted(userId);
  }

  /** The time step `code` belongs to for the factor's secret at the current time, or undefined. */
  async timeStepOf(options: { sealedSecret: string; code: string }): Promise<number | undefined> {
    const secret = this.deps.box.open(options.sealedSecret);
    if (secret === undefined) throw new Error('The TOTP secret cannot be decrypted: was the encryption key (service_secrets) replaced?');
    const code = compactCode(options.code);
    if (!TOTP_CODE.test(code)) return undefined;
    return this.deps.totp.match({ secret, code, at: this.deps.clock.now() });
  }

  private async acceptTotp(factor: TotpFactor, code: string): Promise<boolean> {
    const step = await this.timeStepOf({ sealedSecret: factor.sealedSecret, code });
    if (step === undefined) return false;
    return this.deps.mfa.claimTimeStep({ userId: factor.userId, timeStep: step });
  }

  private async acceptRecoveryCode(userId: string, code: string): Promise<boolean> {
    if (code.length === 0 || code.length > 64) return false;
    return this.deps.mfa.useRecoveryCode({ userId, codeHash: this.deps.digest.sha256(code), at: this.deps.clock.now() });
  }
}
