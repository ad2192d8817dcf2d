import type { AccountOptions } from './account-options.js';
import { passwordResetEmail } from './emails.js';
import type { OneTimeLinks } from './one-time-links.js';
import { RedirectPolicy } from './redirect-policy.js';
import type { RateLimits } from '../shared/rate-limits.js';
import { normaliseEmail } from './user.js';
import type { UserRepository } from './user-repository.js';
import { BackgroundWork } from '../shared/background-work.js';

/**
 * Mails a password reset link (valid 1 h) when the address has an account (spec 4.4). The
 * outcome is the same whether or not it has one, so it cannot be used to probe addresses: the
 * answer carries nothing, and it comes as soon as the address is looked up, before the link is
 * created and mailed (two writes and a mail queued, which made an account holder's answer ~1.5 ms
 * slower than anyone else's: an address oracle by timing). That work runs in the background;
 * its failures go to `onBackgroundError` (a client is told the same either way), and
 * {@link settled} waits for it (tests; the server before it drains its mail at shutdown).
 * Requests are limited per client and per address (RateLimits), whether or not the address has an account.
 * @throws DomainError INVALID_EMAIL, INVALID_REDIRECT_URL (400) — checks of the input alone; RATE_LIMITED (429)
 */
export class RequestPasswordReset {
  private readonly redirects: RedirectPolicy;
  /** Links being created and mailed (see `execute`). */
  private readonly sending: BackgroundWork;

  constructor(
    private readonly deps: {
      users: UserRepository;
      links: OneTimeLinks;
      options: AccountOptions;
      limits: RateLimits;
      onBackgroundError?: (error: unknown) => void;
    },
  ) {
    this.redirects = new RedirectPolicy(deps.options.allowedRedirectUrls);
    this.sending = new BackgroundWork(deps.onBackgroundError);
  }

  /**
   * @param input.client the client's address (see RateLimits), when the host knows it
   * @returns once the address is looked up; the link is mailed after (see {@link settled})
   */
  async execute(input: { email: string; redirectTo?: string; client?: string }): Promise<void> {
    const email = normaliseEmail(input.email);
    const redirectTo = input.redirectTo === undefined ? null : this.redirects.check(input.redirectTo);
    await this.deps.limits.passwordReset({ email, client: input.client });
    const user = await this.deps.users.findByEmail(email);
    if (!user) return;
    this.sending.start(this.deps.links.send({ user, purpose: 'password_reset', redirectTo, compose: passwordResetEmail }));
  }

  /** Resolves once every link `execute` started so far has been mailed (handed to the mailer) or has failed. Never rejects. */
  settled(): Promise<void> {
    return this.sending.settled();
  }
}
