import type { MfaRepository } from '../accounts/mfa-repository.js';
import type { UserRepository } from '../accounts/user-repository.js';
import { findAccount } from './find-account.js';

/**
 * Turns an account's two-factor sign-in off for its owner who lost both the authenticator and the
 * recovery codes (`users reset-mfa`, docs/account-security.md): removes the TOTP factor (confirmed
 * or not) and its recovery codes, so the next password login needs no code. The operator must have
 * checked who is asking, by other means; the owner can enrol again at once. Sessions and passkeys
 * are left as they are. Idempotent.
 * @returns whether a factor was there to remove
 * @throws DomainError USER_NOT_FOUND (404)
 */
export class ResetTwoFactor {
  constructor(private readonly deps: { users: UserRepository; mfa: MfaRepository }) {}

  async execute(input: { email: string }): Promise<{ email: string; removed: boolean }> {
    const user = await findAccount(this.deps.users, input.email);
    const removed = (await this.deps.mfa.findTotp(user.id)) !== undefined;
    await this.deps.mfa.deleteTotp(user.id);
    return { email: user.email, removed };
  }
}
