import type { Clock } from '../shared/clock.js';
import { DomainError } from '../shared/errors.js';
import type { IdGenerator } from '../shared/id-generator.js';
import type { SecretDigest } from '../shared/secret-digest.js';
import { MFA_TOKEN_TTL_MS, TOKEN_LENGTH } from './account-options.js';
import type { MfaRepository } from './mfa-repository.js';
import type { RateLimits } from '../shared/rate-limits.js';
import type { PasswordHasher } from './password-hasher.js';
import type { SessionDevice, SessionIssuer, SessionTokens } from './session-issuer.js';
import { normaliseEmail, type User } from './user.js';
import type { UserRepository } from './user-repository.js';

export interface LogInDeps {
  users: UserRepository;
  passwords: PasswordHasher;
  issuer: SessionIssuer;
  limits: RateLimits;
  mfa: MfaRepository;
  ids: IdGenerator;
  digest: SecretDigest;
  clock: Clock;
}

/**
 * What a password sign-in gives: a session, or, on an account with TOTP on, the `mfa_token` that
 * CompleteMfaSignIn exchanges for one together with a code (docs/account-security.md).
 */
export type LogInResult =
  { user: User; session: SessionTokens; mfaToken?: undefined } | { user: User; session?: undefined; mfaToken: string; mfaTokenExpiresAt: Date };

/**
 * Logs in with e-mail and password (spec 4.3). An unknown address and a wrong password take the
 * same time (a dummy hash is verified) and give the same error; EMAIL_NOT_VERIFIED is only
 * answered after the password matched, so it cannot be used to probe which addresses exist.
 * Failures are soft-limited per (address, client) and per client (see RateLimits): each attempt is
 * counted before its password is checked, and while a delay runs the password is not even checked,
 * for known and unknown addresses alike, however many attempts arrive at once.
 * With TOTP on, the right password opens no session: it answers an `mfa_token` (40 base62
 * characters, stored as SHA-256, valid 5 minutes) for the second step.
 * @throws DomainError INVALID_CREDENTIALS (401), EMAIL_NOT_VERIFIED (403), RATE_LIMITED (429)
 */
export class LogIn {
  private dummyHash: Promise<string> | undefined;

  constructor(private readonly deps: LogInDeps) {}

  /**
   * @param input.client the client's address (see RateLimits), when the host knows it
   * @param input.device what the session will list about the device (SessionDevice), when the host knows it
   */
  async execute(input: { email: string; password: string; client?: string; device?: SessionDevice }): Promise<LogInResult> {
    const subject = { email: input.email, client: input.client };
    // Counted before the check (and given back on success), so simultaneous attempts cannot all be checked.
    const attempt = await this.deps.limits.beginLogin(subject);
    let user: User | undefined;
    let matches: boolean;
    try {
      let email: string | undefined;
      try {
        email = normaliseEmail(input.email);
      } catch {
        email = undefined;
      }
      user = email === undefined ? undefined : await this.deps.users.findByEmail(email);
      this.dummyHash ??= this.deps.passwords.hash('hangar-dummy-password-for-timing');
      const hash = user?.passwordHash ?? (await this.dummyHash);
      matches = await this.deps.passwords.verify({ hash, password: input.password });
    } catch (error) {
      await attempt.abandoned();
      throw error;
    }
    if (!user || !matches) {
      await attempt.failed();
      throw new DomainError('INVALID_CREDENTIALS', 'The e-mail address or password is wrong.');
    }
    await attempt.succeeded();
    if (user.emailConfirmedAt === null) {
      throw new DomainError('EMAIL_NOT_VERIFIED', 'Confirm your e-mail address with the link we sent before logging in.');
    }
    const factor = await this.deps.mfa.findTotp(user.id);
    if (factor && factor.confirmedAt !== null) {
      const now = this.deps.clock.now();
      const mfaToken = this.deps.ids.base62(TOKEN_LENGTH);
      const expiresAt = new Date(now.getTime() + MFA_TOKEN_TTL_MS);
      await this.deps.mfa.createChallenge({ tokenHash: this.deps.digest.sha256(mfaToken), userId: user.id, createdAt: now, expiresAt });
      return { user, mfaToken, mfaTokenExpiresAt: expiresAt };
    }
    return { user, session: await this.deps.issuer.open(user.id, input.device) };
  }
}
