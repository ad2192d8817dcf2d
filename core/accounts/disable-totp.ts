import { DomainError } from '../shared/errors.js';
import type { MfaCodes } from './mfa-codes.js';
import type { MfaRepository } from './mfa-repository.js';

/**
 * Turns TOTP off with a current code (a TOTP code or an unused recovery code), so a stolen
 * session token alone cannot remove the second factor. Removes the factor and its recovery codes;
 * an unconfirmed enrolment is removed without a code.
 * @throws DomainError MFA_NOT_ENABLED (409), INVALID_MFA_CODE (400), RATE_LIMITED (429)
 */
export class DisableTotp {
  constructor(private readonly deps: { mfa: MfaRepository; codes: MfaCodes }) {}

  async execute(input: { userId: string; code: string }): Promise<void> {
    const factor = await this.deps.mfa.findTotp(input.userId);
    if (!factor) throw new DomainError('MFA_NOT_ENABLED', 'Two-factor sign-in is not on for this account.');
    if (factor.confirmedAt !== null) await this.deps.codes.accept({ factor, code: input.code });
    await this.deps.mfa.deleteTotp(input.userId);
  }
}
