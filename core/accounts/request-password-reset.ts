import type { AccountOptions } from './account-options.js';
import { passwordResetEmail } from './emails.js';
import type { OneTimeLinks } from './one-time-links.js';
import { RedirectPolicy } from './redirect-policy.js';
import type { RateLimits } from '../shared/rate-limits.js';
import { normaliseEmail } from './user.js';
import type { UserRepository } from './user-repository.js';

/**
 * Mails a password reset link (valid 1 h) when the address has an account (spec 4.4). The
 * outcome is the same whether or not it has one, so it cannot be used to probe addresses.
 * Requests are limited per client and per address (RateLimits), whether or not the address has an account.
 * @throws DomainError INVALID_EMAIL, INVALID_REDIRECT_URL (400) — checks of the input alone; RATE_LIMITED (429)
 */
export class RequestPasswordReset {
  private readonly redirects: RedirectPolicy;

  constructor(private readonly deps: { users: UserRepository; links: OneTimeLinks; options: AccountOptions; limits: RateLimits }) {
    this.redirects = new RedirectPolicy(deps.options.allowedRedirectUrls);
  }

  /** @param input.client the client's address (see RateLimits), when the host knows it */
  async execute(input: { email: string; redirectTo?: string; client?: string }): Promise<void> {
    const email = normaliseEmail(input.email);
    const redirectTo = input.redirectTo === undefined ? null : this.redirects.check(input.redirectTo);
    await this.deps.limits.passwordReset({ email, client: input.client });
    const user = await this.deps.users.findByEmail(email);
    if (user) await this.deps.links.send({ user, purpose: 'password_reset', redirectTo, compose: passwordResetEmail });
  }
}
