import { DEFAULT_IMAGE_METADATA_MODE } from '../files/image-metadata/image-metadata-mode.js';
import type { Clock } from '../shared/clock.js';
import type { IdGenerator } from '../shared/id-generator.js';
import type { RateLimits } from '../shared/rate-limits.js';
import { PlanCatalog } from '../plans/plan.js';
import type { RegistrationGate } from '../invites/registration-gate.js';
import type { AccountOptions } from './account-options.js';
import { alreadyRegisteredEmail, confirmationEmail } from './emails.js';
import type { OneTimeLinks } from './one-time-links.js';
import type { PasswordHasher } from './password-hasher.js';
import { RedirectPolicy } from './redirect-policy.js';
import { checkNewPassword, normaliseEmail, type User } from './user.js';
import type { UserRepository } from './user-repository.js';

export interface RegisterAccountInput {
  email: string;
  password: string;
  /** Where to send the user after confirmation; must pass the RedirectPolicy. */
  redirectTo?: string;
  /** The client's address (see RateLimits), when the host knows it. */
  client?: string;
  /** The invite token from the invite link; needed when registration is by invite (`REGISTRATION=invite`). */
  invite?: string;
}

export interface RegisterAccountResult {
  message: string;
  user: { id: string; email: string };
}

export interface RegisterAccountDeps {
  users: UserRepository;
  links: OneTimeLinks;
  passwords: PasswordHasher;
  ids: IdGenerator;
  clock: Clock;
  plans: PlanCatalog;
  options: AccountOptions;
  limits: RateLimits;
  /** Who may register (`REGISTRATION`): decides before the account is created, and picks its plan. */
  gate: RegistrationGate;
}

/**
 * Registers an account on the default plan, its trial starting now, and mails a confirmation link (spec 4.2, 5.2).
 * An address that is already registered gets the same answer (with a random, unstored id), and
 * its owner an e-mail instead (a password reset link): a stranger cannot learn which addresses
 * have accounts. An unconfirmed account gets a fresh confirmation link; its password is unchanged.
 * Registrations are limited per client and per address (RateLimits), counted before anything is looked up.
 * Who may register is the RegistrationGate's rule: with `REGISTRATION=invite` the invite is used up
 * (and its plan applies) — and given back when the address already had an account; with `closed`, nobody.
 * @throws DomainError INVALID_EMAIL, PASSWORD_TOO_SHORT, PASSWORD_TOO_LONG, INVALID_REDIRECT_URL, INVITE_INVALID (400),
 *         REGISTRATION_CLOSED, INVITE_REQUIRED (403), RATE_LIMITED (429)
 */
export class RegisterAccount {
  private readonly redirects: RedirectPolicy;

  constructor(private readonly deps: RegisterAccountDeps) {
    this.redirects = new RedirectPolicy(deps.options.allowedRedirectUrls);
  }

  async execute(input: RegisterAccountInput): Promise<RegisterAccountResult> {
    const email = normaliseEmail(input.email);
    checkNewPassword(input.password);
    const redirectTo = input.redirectTo === undefined ? null : this.redirects.check(input.redirectTo);
    const message = 'Check your e-mail for a link to confirm your address.';
    await this.deps.limits.registration({ email, client: input.client });

    const userId = this.deps.ids.uuid();
    const ticket = await this.deps.gate.admit({ userId, invite: input.invite });
    // Hash before looking up, so both branches cost the same time.
    let passwordHash: string;
    try {
      passwordHash = await this.deps.passwords.hash(input.password);
    } catch (error) {
      await ticket.release();
      throw error;
    }
    const now = this.deps.clock.now();
    const plan = ticket.plan;
    const user: User = {
      id: userId,
      email,
      passwordHash,
      emailConfirmedAt: null,
      maxUploadSizeBytes: null,
      imageMetadata: DEFAULT_IMAGE_METADATA_MODE,
      lastEmailSentAt: null,
      lastResetEmailSentAt: null,
      planName: plan.name,
      trialEndsAt: PlanCatalog.trialEnd(plan, now),
      accessUntil: null,
      subscriptionCanceledAt: null,
      role: 'user',
      suspendedAt: null,
      storageLimitBytes: null,
      fileCountLimit: null,
      createdAt: now,
      updatedAt: now,
    };
    let created: boolean;
    try {
      created = await this.deps.users.create(user);
    } catch (error) {
      await ticket.release();
      throw error;
    }
    if (!created) await ticket.release();
    const owner = created ? user : await this.deps.users.findByEmail(email);
    if (owner && owner.emailConfirmedAt === null) {
      await this.deps.links.send({ user: owner, purpose: 'email_confirmation', redirectTo, compose: confirmationEmail });
    } else if (owner) {
      await this.deps.links.send({ user: owner, purpose: 'password_reset', redirectTo: null, compose: alreadyRegisteredEmail });
    }
    return { message, user: { id: user.id, email } };
  }
}
