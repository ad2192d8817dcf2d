import type { RateLimits } from '../shared/rate-limits.js';
import type { AccountOptions } from './account-options.js';
import { confirmationEmail } from './emails.js';
import type { OneTimeLinks } from './one-time-links.js';
import { RedirectPolicy } from './redirect-policy.js';
import { normaliseEmail } from './user.js';
import type { UserRepository } from './user-repository.js';
import { BackgroundWork } from '../shared/background-work.js';

/**
 * Mails a new e-mail confirmation link (valid 24 h, spec 4.2) when the address has an account that
 * is not confirmed yet. Like {@link RequestPasswordReset}, the outcome is the same whether or not
 * there is such an account (none, unconfirmed or already confirmed), so it cannot be used to probe
 * addresses: the answer carries nothing and comes as soon as the address is looked up; the link is
 * created and mailed in the background (failures go to `onBackgroundError`, {@link settled} waits).
 * Earlier confirmation links stay valid until they expire or the address is confirmed.
 * At most one confirmation e-mail per address per minute (OneTimeLinks, its own slot: a reset
 * e-mail does not hold it back); a request within the minute is answered the same and mails nothing.
 * Requests count with password reset requests, per client and per address (RateLimits).
 * @throws DomainError INVALID_EMAIL, INVALID_REDIRECT_URL (400) — checks of the input alone; RATE_LIMITED (429)
 */
export class ResendConfirmation {
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
   * @param input.email the address as typed (normalised here)
   * @param input.redirectTo where to send the user once confirmed (checked by RedirectPolicy)
   * @param input.client the client's address (see RateLimits), when the host knows it
   * @returns once the address is looked up; the link is mailed after (see {@link settled})
   */
  async execute(input: { email: string; redirectTo?: string; client?: string }): Promise<void> {
    const email = normaliseEmail(input.email);
    const redirectTo = input.redirectTo === undefined ? null : this.redirects.check(input.redirectTo);
    await this.deps.limits.confirmationResend({ email, client: input.client });
    const user = await this.deps.users.findByEmail(email);
    if (!user || user.emailConfirmedAt !== null) return;
    this.sending.start(this.deps.links.send({ user, purpose: 'email_confirmation', redirectTo, compose: confirmationEmail }));
  }

  /** Resolves once every link `execute` started so far has been mailed (handed to the mailer) or has failed. Never rejects. */
  settled(): Promise<void> {
    return this.sending.settled();
  }
}
