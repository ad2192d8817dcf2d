import { DomainError } from './errors.js';
import type { SecretDigest } from './ids.js';
import type { RateLimiter, RateRule } from './rate-limiter.js';
import { DAY_MS, HOUR_MS, MINUTE_MS } from './time.js';

/**
 * The service's rate limits (spec 8 leaves them open; OWASP ASVS 2.2.1 anti-automation, 11.1.4).
 * A value of 0 turns that limit off.
 */
export interface RateLimitOptions {
  /** Failed logins for one account from one client address before delays start (default 5). */
  loginFreeFailuresPerAccount: number;
  /** Failed logins from one client address, all accounts together, before delays start (default 100). */
  loginFreeFailuresPerClient: number;
  /** Longest delay after repeated failed logins, in seconds (default 900); delays double from 1 s up to it. */
  loginMaxDelaySeconds: number;
  /** Registrations per client address per hour (default 20). */
  registrationsPerClientPerHour: number;
  /** Password reset requests per client address per hour (default 20). */
  passwordResetsPerClientPerHour: number;
  /** Registrations and reset requests naming one e-mail address, per hour (default 5), whether or not it has an account. */
  emailRequestsPerAddressPerHour: number;
  /** Uploads per API key (or per session, for session tokens) per minute (default 120). */
  uploadsPerKeyPerMinute: number;
}

/** The defaults of {@link RateLimitOptions}. */
export const DEFAULT_RATE_LIMITS: RateLimitOptions = {
  loginFreeFailuresPerAccount: 5,
  loginFreeFailuresPerClient: 100,
  loginMaxDelaySeconds: 900,
  registrationsPerClientPerHour: 20,
  passwordResetsPerClientPerHour: 20,
  emailRequestsPerAddressPerHour: 5,
  uploadsPerKeyPerMinute: 120,
};

/** Failed logins are remembered this long after the first one of a series (a success forgets the account's). */
const LOGIN_FAILURE_MEMORY_SECONDS = DAY_MS / 1000;
/** Password attempts at a share link (RateLimits.sharePasswordAttempt). */
const SHARE_PASSWORD_RULES = {
  pair: { name: 'share_password_client', points: 10, durationSeconds: 600 },
  share: { name: 'share_password_share', points: 100, durationSeconds: 3600 },
} as const;

/** Counters that only count: their own limit is never reached. */
const UNBOUNDED = 1_000_000_000;

/** Who is acting: the e-mail address named in the request (as typed) and the client's address. */
export interface LoginSubject {
  email: string;
  /** The client's address (IP, or an IPv6 /64 prefix), when the host knows it. */
  client?: string;
}

/**
 * The service's abuse limits as domain rules, over a {@link RateLimiter} (not a use case: shared
 * by LogIn, RegisterAccount, RequestPasswordReset and UploadFile).
 *
 * Failed logins are soft-limited (OWASP ASVS 2.2.1, Authentication Cheat Sheet "account lockout"):
 * per pair (account, client address) after `loginFreeFailuresPerAccount` failures and per client
 * address after `loginFreeFailuresPerClient`, each further failure makes that pair or client wait
 * 1 s, 2 s, 4 s… up to `loginMaxDelaySeconds` before the next attempt is even checked. There is no
 * limit per account alone, so an attacker elsewhere can never lock the owner out; a success ends
 * the pair's delays. Accounts are keyed by the e-mail address as typed (normalised, then hashed),
 * so an address without an account is limited exactly like one with an account.
 */
export class RateLimits {
  private readonly options: RateLimitOptions;
  private readonly rules: Record<
    'loginFailuresPair' | 'loginFailuresClient' | 'loginDelayPair' | 'loginDelayClient' | 'registrations' | 'resets' | 'emailRequests' | 'uploads',
    RateRule
  >;

  constructor(private readonly deps: { limiter: RateLimiter; digest: SecretDigest; options?: Partial<RateLimitOptions> }) {
    this.options = { ...DEFAULT_RATE_LIMITS, ...deps.options };
    const o = this.options;
    this.rules = {
      loginFailuresPair: { name: 'login_failures_pair', points: UNBOUNDED, durationSeconds: LOGIN_FAILURE_MEMORY_SECONDS },
      loginFailuresClient: { name: 'login_failures_client', points: UNBOUNDED, durationSeconds: LOGIN_FAILURE_MEMORY_SECONDS },
      loginDelayPair: { name: 'login_delay_pair', points: 1, durationSeconds: 1 },
      loginDelayClient: { name: 'login_delay_client', points: 1, durationSeconds: 1 },
      registrations: { name: 'registrations_client', points: o.registrationsPerClientPerHour, durationSeconds: HOUR_MS / 1000 },
      resets: { name: 'password_resets_client', points: o.passwordResetsPerClientPerHour, durationSeconds: HOUR_MS / 1000 },
      emailRequests: { name: 'email_requests_address', points: o.emailRequestsPerAddressPerHour, durationSeconds: HOUR_MS / 1000 },
      uploads: { name: 'uploads_key', points: o.uploadsPerKeyPerMinute, durationSeconds: MINUTE_MS / 1000 },
    };
  }

  /**
   * Before checking a password: refuses while the pair or the client is made to wait.
   * @throws DomainError RATE_LIMITED (429) with `details.retry_after_seconds`
   */
  async beforeLogin(subject: LoginSubject): Promise<void> {
    const waits = await Promise.all([
      this.options.loginFreeFailuresPerAccount > 0 ? this.deps.limiter.retryAfter({ rule: this.rules.loginDelayPair, key: this.pairKey(subject) }) : 0,
      subject.client !== undefined && this.options.loginFreeFailuresPerClient > 0
        ? this.deps.limiter.retryAfter({ rule: this.rules.loginDelayClient, key: subject.client })
        : 0,
    ]);
    const wait = Math.max(...waits);
    if (wait > 0) throw rateLimited(wait, 'Too many failed logins: wait before trying again.');
  }

  /** After a wrong password (or an unknown address): counts the failure and sets the next delay, doubling each time. */
  async loginFailed(subject: LoginSubject): Promise<void> {
    const work: Promise<void>[] = [];
    if (this.options.loginFreeFailuresPerAccount > 0) {
      work.push(this.countFailure(this.rules.loginFailuresPair, this.rules.loginDelayPair, this.pairKey(subject), this.options.loginFreeFailuresPerAccount));
    }
    if (subject.client !== undefined && this.options.loginFreeFailuresPerClient > 0) {
      work.push(this.countFailure(this.rules.loginFailuresClient, this.rules.loginDelayClient, subject.client, this.options.loginFreeFailuresPerClient));
    }
    await Promise.all(work);
  }

  /** After a correct password: the pair's failures are forgotten (the client's are not: one valid account must not hide an attack on others). */
  async loginSucceeded(subject: LoginSubject): Promise<void> {
    if (this.options.loginFreeFailuresPerAccount === 0) return;
    const key = this.pairKey(subject);
    await Promise.all([this.deps.limiter.reset({ rule: this.rules.loginFailuresPair, key }), this.deps.limiter.reset({ rule: this.rules.loginDelayPair, key })]);
  }

  /**
   * Counts one registration for the client and the address.
   * @throws DomainError RATE_LIMITED (429)
   */
  async registration(subject: LoginSubject): Promise<void> {
    await this.count([
      { rule: this.rules.registrations, key: subject.client, limit: this.options.registrationsPerClientPerHour },
      { rule: this.rules.emailRequests, key: this.addressKey(subject.email), limit: this.options.emailRequestsPerAddressPerHour },
    ]);
  }

  /**
   * Counts one password reset request for the client and the address (whether or not it has an account).
   * @throws DomainError RATE_LIMITED (429)
   */
  async passwordReset(subject: LoginSubject): Promise<void> {
    await this.count([
      { rule: this.rules.resets, key: subject.client, limit: this.options.passwordResetsPerClientPerHour },
      { rule: this.rules.emailRequests, key: this.addressKey(subject.email), limit: this.options.emailRequestsPerAddressPerHour },
    ]);
  }

  /**
   * Counts one upload for `key` (an API key id, or a session id).
   * @throws DomainError RATE_LIMITED (429)
   */
  async upload(key: string): Promise<void> {
    await this.count([{ rule: this.rules.uploads, key, limit: this.options.uploadsPerKeyPerMinute }]);
  }

  /**
   * Counts one password attempt at a share link (issue #26): at most 10 per link and client address
   * in 10 minutes, and 100 per link in all in an hour (so a guesser spread over many addresses
   * is slowed too, while the owner can still revoke the link and make a new one).
   * @throws DomainError RATE_LIMITED (429)
   */
  async sharePasswordAttempt(subject: { shareId: string; client?: string }): Promise<void> {
    await this.count([
      { rule: SHARE_PASSWORD_RULES.pair, key: subject.client === undefined ? undefined : `${subject.shareId}\n${subject.client}`, limit: SHARE_PASSWORD_RULES.pair.points },
      { rule: SHARE_PASSWORD_RULES.share, key: subject.shareId, limit: SHARE_PASSWORD_RULES.share.points },
    ]);
  }

  private async count(checks: { rule: RateRule; key: string | undefined; limit: number }[]): Promise<void> {
    const results = await Promise.all(
      checks.filter((c) => c.key !== undefined && c.limit > 0).map((c) => this.deps.limiter.consume({ rule: c.rule, key: c.key! })),
    );
    const wait = Math.max(0, ...results.map((r) => r.retryAfterSeconds));
    if (wait > 0) throw rateLimited(wait, 'Too many requests: wait before trying again.');
  }

  private async countFailure(counter: RateRule, delay: RateRule, key: string, free: number): Promise<void> {
    const { consumed } = await this.deps.limiter.consume({ rule: counter, key });
    if (consumed <= free) return;
    const seconds = Math.min(this.options.loginMaxDelaySeconds, 2 ** Math.min(30, consumed - free - 1));
    await this.deps.limiter.block({ rule: delay, key, seconds: Math.max(1, seconds) });
  }

  private addressKey(email: string): string {
    return this.deps.digest.sha256(`email\n${email.trim().toLowerCase()}`);
  }

  private pairKey(subject: LoginSubject): string {
    return this.deps.digest.sha256(`login\n${subject.email.trim().toLowerCase()}\n${subject.client ?? ''}`);
  }
}

function rateLimited(seconds: number, message: string): DomainError {
  const wait = Math.max(1, Math.ceil(seconds));
  return new DomainError('RATE_LIMITED', `${message} Retry in ${wait} s.`, { retry_after_seconds: wait });
}
