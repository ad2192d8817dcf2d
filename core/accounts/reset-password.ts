import type { Clock } from '../shared/clock.js';
import { DomainError } from '../shared/errors.js';
import type { SecretDigest } from '../shared/secret-digest.js';
import type { ApiKeyRepository } from '../api-keys/api-key-repository.js';
import type { OneTimeTokenRepository } from './one-time-token-repository.js';
import type { PasswordHasher } from './password-hasher.js';
import type { SessionRepository } from './session-repository.js';
import { checkNewPassword } from './user.js';
import type { UserRepository } from './user-repository.js';

export interface ResetPasswordDeps {
  users: UserRepository;
  tokens: OneTimeTokenRepository;
  sessions: SessionRepository;
  apiKeys: ApiKeyRepository;
  passwords: PasswordHasher;
  digest: SecretDigest;
  clock: Clock;
}

/**
 * Sets a new password with the token from a reset link, then revokes every session of the account
 * and every other reset link. Following the link proves control of the mailbox, so an unconfirmed
 * address becomes confirmed. API keys keep working (scripts and upload tools hold them) unless
 * `revokeApiKeys` is true: then every key of the account is deleted in the same call, before it
 * returns (for a reset after a suspected compromise).
 * @param input.revokeApiKeys default false
 * @returns the redirect given when the reset was requested, or null, and how many API keys were revoked
 * @throws DomainError PASSWORD_TOO_SHORT, PASSWORD_TOO_LONG (400; the token stays usable), INVALID_TOKEN (400)
 */
export class ResetPassword {
  constructor(private readonly deps: ResetPasswordDeps) {}

  async execute(input: { token: string; password: string; revokeApiKeys?: boolean }): Promise<{ redirectTo: string | null; revokedApiKeys: number }> {
    checkNewPassword(input.password);
    const now = this.deps.clock.now();
    const used = await this.deps.tokens.consume({ purpose: 'password_reset', tokenHash: this.deps.digest.sha256(input.token), now });
    if (!used) throw new DomainError('INVALID_TOKEN', 'This password reset link is invalid, already used or expired.');
    const passwordHash = await this.deps.passwords.hash(input.password);
    await this.deps.users.setPasswordHash({ userId: used.userId, passwordHash, at: now });
    await this.deps.users.markEmailConfirmed({ userId: used.userId, at: now });
    await this.deps.sessions.revokeAllForUser({ userId: used.userId, at: now });
    await this.deps.tokens.deleteForUser({ userId: used.userId, purpose: 'password_reset' });
    const revokedApiKeys = input.revokeApiKeys === true ? await this.deps.apiKeys.deleteAllForUser({ userId: used.userId }) : 0;
    return { redirectTo: used.redirectTo, revokedApiKeys };
  }
}
