import type { Clock } from '../shared/clock.js';
import type { IdGenerator } from '../shared/id-generator.js';
import type { SecretDigest } from '../shared/secret-digest.js';
import { type AccountOptions, CONFIRMATION_TOKEN_TTL_MS, EMAIL_MIN_INTERVAL_MS, RESET_TOKEN_TTL_MS, TOKEN_LENGTH } from './account-options.js';
import type { MailMessage, Mailer } from './mailer.js';
import type { OneTimeTokenPurpose, OneTimeTokenRepository } from './one-time-token-repository.js';
import type { User } from './user.js';
import type { UserRepository } from './user-repository.js';

export interface OneTimeLinksDeps {
  users: UserRepository;
  tokens: OneTimeTokenRepository;
  mailer: Mailer;
  ids: IdGenerator;
  digest: SecretDigest;
  clock: Clock;
  options: AccountOptions;
}

const PATHS: Record<OneTimeTokenPurpose, { path: string; ttlMs: number }> = {
  email_confirmation: { path: '/auth/confirm', ttlMs: CONFIRMATION_TOKEN_TTL_MS },
  // The dashboard's reset screen: the token stays in the fragment, which browsers do not send.
  password_reset: { path: '/#/reset', ttlMs: RESET_TOKEN_TTL_MS },
};

/**
 * Mails single-use links (`PUBLIC_API_URL/auth/confirm?token=…`, `…/#/reset?token=…` for the dashboard's reset screen).
 * The token is random (TOKEN_LENGTH base62), stored only as its SHA-256, and expires after 24 h
 * (confirmation) or 1 h (reset). At most one e-mail per address and purpose per minute (so a
 * reset asked for just after the confirmation e-mail still goes out); extra ones are dropped
 * silently, so the caller's answer never changes (the interval is `options.emailMinIntervalMs`).
 * Not a use case: shared by several.
 */
export class OneTimeLinks {
  constructor(private readonly deps: OneTimeLinksDeps) {}

  /**
   * Creates a token for `user` and mails `compose(link)`, unless the address got an e-mail of this purpose in the last minute.
   * @returns whether the e-mail was handed to the mailer (false: one went out too recently)
   */
  async send(options: {
    user: User;
    purpose: OneTimeTokenPurpose;
    redirectTo: string | null;
    compose: (to: string, link: string) => MailMessage;
  }): Promise<boolean> {
    const { user, purpose } = options;
    const now = this.deps.clock.now();
    if (
      !(await this.deps.users.claimEmailSlot({ userId: user.id, purpose, now, minIntervalMs: this.deps.options.emailMinIntervalMs ?? EMAIL_MIN_INTERVAL_MS }))
    )
      return false;
    const token = this.deps.ids.base62(TOKEN_LENGTH);
    const { path, ttlMs } = PATHS[purpose];
    await this.deps.tokens.create({
      id: this.deps.ids.uuid(),
      userId: user.id,
      purpose,
      tokenHash: this.deps.digest.sha256(token),
      redirectTo: options.redirectTo,
      expiresAt: new Date(now.getTime() + ttlMs),
      createdAt: now,
    });
    await this.deps.mailer.send(options.compose(user.email, `${this.deps.options.publicApiUrl}${path}?token=${token}`));
    return true;
  }
}
