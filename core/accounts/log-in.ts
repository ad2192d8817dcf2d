import { DomainError } from '../shared/errors.js';
import type { RateLimits } from '../shared/rate-limits.js';
import type { PasswordHasher } from './password-hasher.js';
import type { SessionIssuer, SessionTokens } from './session-issuer.js';
import { normaliseEmail, type User } from './user.js';
import type { UserRepository } from './user-repository.js';

export interface LogInDeps {
  users: UserRepository;
  passwords: PasswordHasher;
  issuer: SessionIssuer;
  limits: RateLimits;
}

/**
 * Logs in with e-mail and password (spec 4.3). An unknown address and a wrong password take the
 * same time (a dummy hash is verified) and give the same error; EMAIL_NOT_VERIFIED is only
 * answered after the password matched, so it cannot be used to probe which addresses exist.
 * Failures are soft-limited per (address, client) and per client (see RateLimits): each attempt is
 * counted before its password is checked, and while a delay runs the password is not even checked,
 * for known and unknown addresses alike, however many attempts arrive at once.
 * @throws DomainError INVALID_CREDENTIALS (401), EMAIL_NOT_VERIFIED (403), RATE_LIMITED (429)
 */
export class LogIn {
  private dummyHash: Promise<string> | undefined;

  constructor(private readonly deps: LogInDeps) {}

  /** @param input.client the client's address (see RateLimits), when the host knows it */
  async execute(input: { email: string; password: string; client?: string }): Promise<{ user: User; session: SessionTokens }> {
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
    return { user, session: await this.deps.issuer.open(user.id) };
  }
}
