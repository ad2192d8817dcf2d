import type { MfaRepository } from './mfa-repository.js';

/** Whether TOTP is on (`GET /auth/mfa`). */
export interface MfaStatus {
  /** `off`; `pending`: enrolment started, not confirmed (sign-in asks nothing yet); `on`. */
  totp: 'off' | 'pending' | 'on';
  /** Unused recovery codes (0 unless `on`). */
  recoveryCodesLeft: number;
}

/** Tells the account's second-factor state (docs/account-security.md). */
export class GetMfaStatus {
  constructor(private readonly deps: { mfa: MfaRepository }) {}

  async execute(input: { userId: string }): Promise<MfaStatus> {
    const factor = await this.deps.mfa.findTotp(input.userId);
    if (!factor) return { totp: 'off', recoveryCodesLeft: 0 };
    if (factor.confirmedAt === null) return { totp: 'pending', recoveryCodesLeft: 0 };
    return { totp: 'on', recoveryCodesLeft: await this.deps.mfa.countRecoveryCodes(input.userId) };
  }
}
