import { clearTimer, setTimer } from './web-globals.js';
import type { Clock } from './clock.js';
import { DomainError } from './errors.js';
import type { SecretDigest } from './secret-digest.js';
import type { RateLimiter, RateRule } from './rate-limiter.js';
import { DAY_MS, HOUR_MS, MINUTE_MS } from './time.js';

/**
 * The service's rate limits (spec 8 leaves them open; OWASP ASVS 2.2.1 anti-automation, 11.1.4).
 * A value of 0 turns that limit off.
 */
export interface RateLimitOptions {
  /** Failed logins for one account from one client address before delays start (default 5). */
  loginFreeFailuresPerAccount: number;
  /** Failed logins from one client address, all accounts together, before delays start (default 100); unknown API keys from one address too, counted apart. */
  loginFreeFailuresPerClient: number;
  /** Longest delay after repeated failed logins, in seconds (default 900); delays double from 1 s up to it. */
  loginMaxDelaySeconds: number;
  /** Registrations per client address per hour (default 20). */
  registrationsPerClientPerHour: number;
  /** Password reset requests per client address per hour (default 20). */
  passwordResetsPerClientPerHour: number;
  /** Registrations and reset requests naming one e-mail address, per hour (default 5), whether or not it has an account. */
  emailRequestsPerAddressPerHour: number;
  /**
   * Uploads (`POST /files` and resumable-upload creations together) per account per minute
   * (default 120), whatever credentials they come with: counted per key, the limit would grow with
   * every key an account makes.
   */
  uploadsPerAccountPerMinute: number;
  /** Image transformations not served from the cache, per client address per minute (default 300; docs/images.md). */
  imageTransformsPerClientPerMinute: number;
  /**
   * Request bodies of one client address that may be arriving slowly at once (`SLOW_BODIES_PER_CLIENT`,
   * default 32): a body counts from the moment it has waited SLOW_BODY_AFTER_SECONDS for its client
   * until it ends (apps/http/upload-pacing.ts).
   */
  slowBodiesPerClient?: number;
}

/** The defaults of {@link RateLimitOptions}. */
export const DEFAULT_RATE_LIMITS: RateLimitOptions = {
  loginFreeFailuresPerAccount: 5,
  loginFreeFailuresPerClient: 100,
  loginMaxDelaySeconds: 900,
  registrationsPerClientPerHour: 20,
  passwordResetsPerClientPerHour: 20,
  emailRequestsPerAddressPerHour: 5,
  uploadsPerAccountPerMinute: 120,
  imageTransformsPerClientPerMinute: 300,
  slowBodiesPerClient: 32,
};

/** The window of the slow-body count (RateLimits.slowBodyStarted), in seconds: 6 hours, longer than nearly every body takes. */
const SLOW_BODY_RULE_SECONDS = 6 * 3600;
/** Failed logins are remembered this long after the first one of a series (a success forgets the account's). */
const LOGIN_FAILURE_MEMORY_SECONDS = DAY_MS / 1000;
/** Password attempts at a share link (RateLimits.sharePasswordAttempt). */
const SHARE_PASSWORD_RULES = {
  pair: { name: 'share_password_client', points: 10, durationSeconds: 600 },
  share: { name: 'share_password_share', points: 100, durationSeconds: 3600 },
} as const;
/** Passkey sign-in challenges (RateLimits.passkeyChallenge): each stores a row, so an anonymous client gets 30 a minute. */
const PASSKEY_CHALLENGE_RULE = { name: 'passkey_challenge_client', points: 30, durationSeconds: 60 } as const;
/**
 * How long a process answers "no wait" for API keys from a client address after reading it from the
 * store (ms), while that address has sent this process no unknown key: a throttle started through
 * another process reaches it within this time, as every change does (docs/scale-out.md: 1 s).
 */
export const API_KEY_WAIT_REUSE_MS = 1_000;
/** Client addresses each process remembers for {@link API_KEY_WAIT_REUSE_MS} and as senders of unknown keys (oldest forgotten first). */
const API_KEY_ADDRESSES_KEPT = 10_000;
/** OIDC sign-in starts (RateLimits.oidcStart): each stores a flow row, so an anonymous client gets 30 a minute. */
const OIDC_START_RULE = { name: 'oidc_start_client', points: 30, durationSeconds: 60 } as const;
/**
 * Second-factor codes (TOTP or recovery) per account: 5 wrong ones in 15 minutes, then the account
 * waits for the window's end. With three acceptable 6-digit codes per try that leaves a guesser
 * about 480 tries a day, a 0.15 % chance a day (RFC 6238 §5.1 asks for such a limit; NIST SP
 * 800-63B §5.2.2 for at most 100 consecutive failures).
 */
const MFA_CODE_RULE = { name: 'mfa_codes_account', points: 5, durationSeconds: 900 } as const;
/** Most times one login attempt waits for other attempts' checks before it is refused. */
const MAX_LOGIN_WAIT_ROUNDS = 100;
/** Longest wait for another attempt's check to end before asking the counters again, in ms. */
const LOGIN_WAIT_ROUND_MS = 1000;

/** Names one scope's counters, for the attempts being checked in this process. */
function checkingKey(scope: { failures: RateRule; key: string }): string {
  return `${scope.failures.name}\n${scope.key}`;
}

/** Counters that only count: their own limit is never reached. */
const UNBOUNDED = 1_000_000_000;

/** Who is acting: the e-mail address named in the request (as typed) and the client's address. */
export interface LoginSubject {
  email: string;
  /** The client's address (IP, or an IPv6 /64 prefix), when the host knows it. */
  client?: string;
}

/**
 * A login attempt admitted by {@link RateLimits.beginLogin}, whose password check may now run.
 * Say how it ended, once: {@link failed}, {@link succeeded} or {@link abandoned}.
 */
export interface LoginAttempt {
  /** The password was wrong (or the address unknown): the counted failure stays; past the free ones the next delay runs from now. */
  failed(): Promise<void>;
  /** The password was right: the pair's failures and delays are forgotten, the client's counted point is given back. */
  succeeded(): Promise<void>;
  /** No answer could be given (an outage while checking): every point counted for this attempt is given back. */
  abandoned(): Promise<void>;
}

/**
 * What one scope (the pair, or the client) of an attempt holds: a free failure counted, or the one
 * check let through the gate of the series of delays (`counted`: it also holds the last free failure).
 */
type ScopeClaim = { scope: LoginScope; kind: 'free' } | { scope: LoginScope; kind: 'gated'; delaySeconds: number; counted: boolean };

/** The counters of one scope of the login limits. */
interface LoginScope {
  key: string;
  free: number;
  /** Failures counted while within `free` (an attempt's point is counted before its check: consume, refund on success). */
  failures: RateRule;
  /** The gate past `free`: one point per second, blocked for the current delay; one attempt at a time gets through it. */
  delay: RateRule;
  /** Checks let through the gate since the last success: the n-th one sets a delay of 2^(n−1) s. */
  strikes: RateRule;
  /** A success forgets everything (the pair) or only gives this attempt's point back (the client). */
  forgetOnSuccess: boolean;
}

/**
 * The service's abuse limits as domain rules, over a {@link RateLimiter} (not a use case: shared
 * by LogIn, Authenticate (unknown API keys), RegisterAccount, RequestPasswordReset, ResendConfirmation and UploadFile).
 *
 * Failed logins are soft-limited (OWASP ASVS 2.2.1, Authentication Cheat Sheet "account lockout"):
 * per pair (account, client address) from the `loginFreeFailuresPerAccount`-th failure on and per
 * client address from the `loginFreeFailuresPerClient`-th, each failure makes that pair or client
 * wait 1 s, 2 s, 4 s… up to `loginMaxDelaySeconds` before the next attempt is even checked. There is no
 * limit per account alone, so an attacker elsewhere can never lock the owner out; a success ends
 * the pair's delays. Accounts are keyed by the e-mail address as typed (normalised, then hashed),
 * so an address without an account is limited exactly like one with an account.
 *
 * Attempts are counted before the password is checked ({@link beginLogin}: consume first, give the
 * point back on success), so simultaneous attempts cannot all pass before the first failure is
 * recorded: however requests arrive, at most `free` checks run before the first delay, then one
 * per delay. The others are refused with RATE_LIMITED without a check, their points given back
 * (attempts that meet a full count while this process still checks others of the same scope wait
 * for those to end first, so simultaneous right passwords all succeed, a few at a time).
 */
export class RateLimits {
  private readonly options: RateLimitOptions;
  /** Attempts of this process whose password is being checked, per scope (see {@link beginLogin}). */
  private readonly checking = new Map<string, number>();
  /** Wakes the attempts waiting for one of those checks to end. */
  private readonly checkEnded: (() => void)[] = [];
  /** Per client address: when (Unix ms) this process last read "no wait" for its API keys from the store. */
  private readonly apiKeyClearReads = new Map<string, number>();
  /** Per client address: when (Unix ms) it last sent this process an unknown API key; its wait is then always read. */
  private readonly apiKeySuspects = new Map<string, number>();
  private readonly rules: Record<
    | 'loginFailuresPair'
    | 'loginFailuresClient'
    | 'loginDelayPair'
    | 'loginDelayClient'
    | 'loginStrikesPair'
    | 'loginStrikesClient'
    | 'apiKeyFailures'
    | 'apiKeyDelay'
    | 'apiKeyStrikes'
    | 'registrations'
    | 'resets'
    | 'emailRequests'
    | 'uploads'
    | 'imageTransforms',
    RateRule
  >;

  /**
   * @param deps.clock what {@link API_KEY_WAIT_REUSE_MS} is measured with; without one, no "no wait"
   *   answer is reused (every API key reads the store)
   */
  constructor(private readonly deps: { limiter: RateLimiter; digest: SecretDigest; options?: Partial<RateLimitOptions>; clock?: Clock }) {
    this.options = { ...DEFAULT_RATE_LIMITS, ...deps.options };
    const o = this.options;
    this.rules = {
      loginFailuresPair: { name: 'login_failures_pair', points: UNBOUNDED, durationSeconds: LOGIN_FAILURE_MEMORY_SECONDS },
      loginFailuresClient: { name: 'login_failures_client', points: UNBOUNDED, durationSeconds: LOGIN_FAILURE_MEMORY_SECONDS },
      loginDelayPair: { name: 'login_delay_pair', points: 1, durationSeconds: 1 },
      loginDelayClient: { name: 'login_delay_client', points: 1, durationSeconds: 1 },
      loginStrikesPair: { name: 'login_strikes_pair', points: UNBOUNDED, durationSeconds: LOGIN_FAILURE_MEMORY_SECONDS },
      loginStrikesClient: { name: 'login_strikes_client', points: UNBOUNDED, durationSeconds: LOGIN_FAILURE_MEMORY_SECONDS },
      apiKeyFailures: { name: 'api_key_failures_client', points: UNBOUNDED, durationSeconds: LOGIN_FAILURE_MEMORY_SECONDS },
      apiKeyDelay: { name: 'api_key_delay_client', points: 1, durationSeconds: 1 },
      apiKeyStrikes: { name: 'api_key_strikes_client', points: UNBOUNDED, durationSeconds: LOGIN_FAILURE_MEMORY_SECONDS },
      registrations: { name: 'registrations_client', points: o.registrationsPerClientPerHour, durationSeconds: HOUR_MS / 1000 },
      resets: { name: 'password_resets_client', points: o.passwordResetsPerClientPerHour, durationSeconds: HOUR_MS / 1000 },
      emailRequests: { name: 'email_requests_address', points: o.emailRequestsPerAddressPerHour, durationSeconds: HOUR_MS / 1000 },
      uploads: { name: 'uploads_account', points: o.uploadsPerAccountPerMinute, durationSeconds: MINUTE_MS / 1000 },
      imageTransforms: { name: 'image_transforms_client', points: o.imageTransformsPerClientPerMinute, durationSeconds: MINUTE_MS / 1000 },
    };
  }

  /**
   * Refuses while the pair or the client is made to wait, without counting anything.
   * @throws DomainError RATE_LIMITED (429) with `details.retry_after_seconds`
   */
  async beforeLogin(subject: LoginSubject): Promise<void> {
    const waits = await Promise.all(this.loginScopes(subject).map((scope) => this.deps.limiter.retryAfter({ rule: scope.delay, key: scope.key })));
    const wait = Math.max(0, ...waits);
    if (wait > 0) throw rateLimited(wait, 'Too many failed logins: wait before trying again.');
  }

  /**
   * Before checking a password: refuses while a delay runs, then counts the attempt in each scope
   * (a free failure, or past the free ones the single check the series of delays lets through,
   * whose delay starts now). Say how the check ended on the returned attempt. An attempt refused
   * only because other attempts of this process on the same scope are being checked waits for one
   * of them to end and asks again (a burst of right passwords is checked a few at a time and
   * succeeds; a burst of wrong ones meets the delay its failures started and is refused).
   * @throws DomainError RATE_LIMITED (429) with `details.retry_after_seconds`; nothing stays counted then
   */
  async beginLogin(subject: LoginSubject): Promise<LoginAttempt> {
    const scopes = this.loginScopes(subject);
    for (let round = 1; ; round++) {
      const mayWait = () => round < MAX_LOGIN_WAIT_ROUNDS && scopes.some((scope) => this.checking.has(checkingKey(scope)));
      try {
        await this.beforeLogin(subject);
      } catch (error) {
        // The wait may be the gate another attempt of this process closed for its check: see how that ends.
        if (!mayWait()) throw error;
        await this.oneCheckEnds();
        continue;
      }
      const outcomes = await Promise.all(scopes.map((scope) => this.claim(scope)));
      const claims = outcomes.filter((outcome): outcome is ScopeClaim => typeof outcome !== 'number');
      if (claims.length === outcomes.length) return this.admitted(claims);
      await Promise.all(claims.map((claim) => this.release(claim)));
      // Refused only because attempts of this process are being checked (right passwords, maybe):
      // wait for one of them to end, then ask again, rather than refusing a burst of valid logins.
      const refused = scopes.filter((_, i) => typeof outcomes[i] === 'number');
      if (mayWait() && refused.every((scope) => this.checking.has(checkingKey(scope)))) {
        await this.oneCheckEnds();
        continue;
      }
      const wait = Math.max(...outcomes.filter((outcome): outcome is number => typeof outcome === 'number'));
      throw rateLimited(wait, 'Too many failed logins: wait before trying again.');
    }
  }

  /** The attempt of `claims`, counted as being checked in this process until it says how it ended. */
  private admitted(claims: ScopeClaim[]): LoginAttempt {
    const keys = claims.map((claim) => checkingKey(claim.scope));
    for (const key of keys) this.checking.set(key, (this.checking.get(key) ?? 0) + 1);
    let settled = false;
    const once = (work: () => Promise<unknown>) => async () => {
      if (settled) return;
      settled = true;
      try {
        await work();
      } finally {
        for (const key of keys) {
          const left = (this.checking.get(key) ?? 1) - 1;
          if (left > 0) this.checking.set(key, left);
          else this.checking.delete(key);
        }
        const waiting = this.checkEnded.splice(0);
        for (const wake of waiting) wake();
      }
    };
    const { limiter } = this.deps;
    return {
      failed: once(() =>
        Promise.all(
          claims.flatMap((claim) =>
            claim.kind === 'gated' ? [limiter.block({ rule: claim.scope.delay, key: claim.scope.key, seconds: claim.delaySeconds })] : [],
          ),
        ),
      ),
      succeeded: once(() =>
        Promise.all(
          claims.map((claim) =>
            claim.scope.forgetOnSuccess
              ? Promise.all([claim.scope.failures, claim.scope.delay, claim.scope.strikes].map((rule) => limiter.reset({ rule, key: claim.scope.key })))
              : this.release(claim),
          ),
        ),
      ),
      abandoned: once(() => Promise.all(claims.map((claim) => this.release(claim)))),
    };
  }

  /** Resolves when an attempt being checked in this process ends (or after LOGIN_WAIT_ROUND_MS, for attempts of other processes). */
  private oneCheckEnds(): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimer(resolve, LOGIN_WAIT_ROUND_MS);
      this.checkEnded.push(() => {
        clearTimer(timer);
        resolve();
      });
    });
  }

  /**
   * Counts one attempt in `scope`: its claim, or the seconds to wait when a delay runs or another
   * attempt holds the gate (nothing stays counted then). The attempts before the `free`-th are
   * free; the `free`-th and every later one pass the gate, one at a time, each closing it for the
   * next delay (1 s, 2 s, 4 s…) before its check runs, so that its failure has already started it.
   */
  private async claim(scope: LoginScope): Promise<ScopeClaim | number> {
    const { limiter } = this.deps;
    const { consumed } = await limiter.consume({ rule: scope.failures, key: scope.key });
    if (consumed < scope.free) return { scope, kind: 'free' };
    // Past the free failures the counter stays at `free`: the strikes count the checks from there.
    const counted = consumed === scope.free;
    if (!counted) await limiter.reward({ rule: scope.failures, key: scope.key });
    const gate = await limiter.consume({ rule: scope.delay, key: scope.key });
    if (gate.retryAfterSeconds > 0) {
      if (counted) await limiter.reward({ rule: scope.failures, key: scope.key });
      return gate.retryAfterSeconds;
    }
    const strikes = (await limiter.consume({ rule: scope.strikes, key: scope.key })).consumed;
    const delaySeconds = Math.max(1, Math.min(this.options.loginMaxDelaySeconds, 2 ** Math.min(30, strikes - 1)));
    // Closed for the whole delay before the check runs, so no other attempt is checked meanwhile.
    await limiter.block({ rule: scope.delay, key: scope.key, seconds: delaySeconds });
    return { scope, kind: 'gated', delaySeconds, counted };
  }

  /** Gives back what {@link claim} counted (for a refused or abandoned attempt, and for the client's successful one). */
  private async release(claim: ScopeClaim): Promise<void> {
    const { limiter } = this.deps;
    const { scope } = claim;
    if (claim.kind === 'free') {
      await limiter.reward({ rule: scope.failures, key: scope.key });
      return;
    }
    await Promise.all([
      claim.counted ? limiter.reward({ rule: scope.failures, key: scope.key }) : undefined,
      limiter.reward({ rule: scope.strikes, key: scope.key }),
      limiter.reset({ rule: scope.delay, key: scope.key }),
    ]);
  }

  /** The scopes that apply to `subject`: the pair (unless turned off), and the client when known (unless turned off). */
  private loginScopes(subject: LoginSubject): LoginScope[] {
    const scopes: LoginScope[] = [];
    if (this.options.loginFreeFailuresPerAccount > 0) {
      const r = this.rules;
      scopes.push({
        key: this.pairKey(subject),
        free: this.options.loginFreeFailuresPerAccount,
        failures: r.loginFailuresPair,
        delay: r.loginDelayPair,
        strikes: r.loginStrikesPair,
        forgetOnSuccess: true,
      });
    }
    if (subject.client !== undefined && this.options.loginFreeFailuresPerClient > 0) {
      const r = this.rules;
      scopes.push({
        key: subject.client,
        free: this.options.loginFreeFailuresPerClient,
        failures: r.loginFailuresClient,
        delay: r.loginDelayClient,
        strikes: r.loginStrikesClient,
        forgetOnSuccess: false,
      });
    }
    return scopes;
  }

  /**
   * Whole seconds the client must wait before an API key it sends is accepted (0: now), without
   * counting anything. While a delay runs every API key from the client is refused, known or not:
   * answering a right key then would tell a guesser which guess was right (docs/api-keys.md).
   * A "no wait" read is reused for {@link API_KEY_WAIT_REUSE_MS} (no store read per request), except
   * for an address that sent this process an unknown key in the last day: a delay needs
   * `loginFreeFailuresPerClient` unknown keys first, so a guesser's own process always reads, and a
   * delay started elsewhere reaches this process within that time.
   */
  async apiKeyWait(client: string | undefined): Promise<number> {
    const scope = this.apiKeyScope(client);
    if (!scope) return 0;
    const now = this.deps.clock?.now().getTime();
    const suspect = now !== undefined && isWithin(this.apiKeySuspects.get(scope.key), now, LOGIN_FAILURE_MEMORY_SECONDS * 1000);
    if (now !== undefined && !suspect && isWithin(this.apiKeyClearReads.get(scope.key), now, API_KEY_WAIT_REUSE_MS)) return 0;
    const wait = await this.deps.limiter.retryAfter({ rule: scope.delay, key: scope.key });
    if (now !== undefined && !suspect && wait === 0) remember(this.apiKeyClearReads, scope.key, now);
    return wait;
  }

  /**
   * Counts one unknown API key sent by the client, like a failed login of the client (its own
   * counters, the same numbers: `loginFreeFailuresPerClient` free, then delays of 1 s, 2 s, 4 s… up
   * to `loginMaxDelaySeconds`, remembered for a day). Past the free failures one unknown key per
   * delay is answered as unknown; the others are refused without saying whether they were known.
   * A known key is never counted and forgets nothing. Nothing without a client (or with the limit off).
   * From then on, for a day, this process reads the address's wait for every API key it sends
   * (see {@link apiKeyWait}: other addresses reuse a "no wait" read for {@link API_KEY_WAIT_REUSE_MS}).
   * @throws DomainError RATE_LIMITED (429) with `details.retry_after_seconds` when this failure meets a running delay
   */
  async apiKeyFailed(client: string | undefined): Promise<void> {
    const scope = this.apiKeyScope(client);
    if (!scope) return;
    const now = this.deps.clock?.now().getTime();
    if (now !== undefined) {
      this.apiKeyClearReads.delete(scope.key);
      remember(this.apiKeySuspects, scope.key, now);
    }
    const claim = await this.claim(scope);
    if (typeof claim === 'number') throw rateLimited(claim, 'Too many unknown API keys from this address: wait before trying again.');
  }

  private apiKeyScope(client: string | undefined): LoginScope | undefined {
    if (client === undefined || this.options.loginFreeFailuresPerClient <= 0) return undefined;
    const r = this.rules;
    return {
      key: client,
      free: this.options.loginFreeFailuresPerClient,
      failures: r.apiKeyFailures,
      delay: r.apiKeyDelay,
      strikes: r.apiKeyStrikes,
      forgetOnSuccess: false,
    };
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
   * Counts one request for a new confirmation e-mail, for the client and the address (whether or
   * not it has an account). It shares the budgets of password reset requests
   * (`passwordResetsPerClientPerHour`, `emailRequestsPerAddressPerHour`): both ask for an e-mail
   * without signing in.
   * @throws DomainError RATE_LIMITED (429)
   */
  async confirmationResend(subject: LoginSubject): Promise<void> {
    await this.passwordReset(subject);
  }

  /**
   * Counts one upload (or resumable-upload creation) for the account `userId`, whichever of its
   * credentials sent it, in the store every process shares.
   * @throws DomainError RATE_LIMITED (429)
   */
  async upload(userId: string): Promise<void> {
    await this.count([{ rule: this.rules.uploads, key: userId, limit: this.options.uploadsPerAccountPerMinute }]);
  }

  /**
   * Counts one image transformation that is not served from the cache, for the client address
   * (anonymous requests on the content server; docs/images.md). Nothing without a client.
   * @throws DomainError RATE_LIMITED (429)
   */
  async imageTransform(client: string | undefined): Promise<void> {
    await this.count([{ rule: this.rules.imageTransforms, key: client, limit: this.options.imageTransformsPerClientPerMinute }]);
  }

  /**
   * Counts one password attempt at a share link (docs/private-files.md): at most 10 per link and client address
   * in 10 minutes, and 100 per link in all in an hour (so a guesser spread over many addresses
   * is slowed too, while the owner can still revoke the link and make a new one).
   * @throws DomainError RATE_LIMITED (429)
   */
  async sharePasswordAttempt(subject: { shareId: string; client?: string }): Promise<void> {
    await this.count([
      {
        rule: SHARE_PASSWORD_RULES.pair,
        key: subject.client === undefined ? undefined : `${subject.shareId}\n${subject.client}`,
        limit: SHARE_PASSWORD_RULES.pair.points,
      },
      { rule: SHARE_PASSWORD_RULES.share, key: subject.shareId, limit: SHARE_PASSWORD_RULES.share.points },
    ]);
  }

  /**
   * Counts one passkey sign-in challenge for the client address (at most 30 a minute; each is a
   * stored row). Nothing without a client.
   * @throws DomainError RATE_LIMITED (429)
   */
  async passkeyChallenge(client: string | undefined): Promise<void> {
    await this.count([{ rule: PASSKEY_CHALLENGE_RULE, key: client, limit: PASSKEY_CHALLENGE_RULE.points }]);
  }

  /**
   * Counts one OIDC sign-in start for the client address (at most 30 a minute; each is a stored
   * flow with its PKCE verifier). Nothing without a client.
   * @throws DomainError RATE_LIMITED (429)
   */
  async oidcStart(client: string | undefined): Promise<void> {
    await this.count([{ rule: OIDC_START_RULE, key: client, limit: OIDC_START_RULE.points }]);
  }

  /**
   * Counts one second-factor code attempt for the account, before the code is checked; give it
   * back with {@link mfaCodeAccepted} when the code was right, so only wrong codes use the budget
   * (see MFA_CODE_RULE). Keyed by account, not client: the code is the account's.
   * @throws DomainError RATE_LIMITED (429)
   */
  async mfaCodeAttempt(userId: string): Promise<void> {
    await this.count([{ rule: MFA_CODE_RULE, key: userId, limit: MFA_CODE_RULE.points }]);
  }

  /** Gives back the point {@link mfaCodeAttempt} counted, for a right code. */
  async mfaCodeAccepted(userId: string): Promise<void> {
    await this.deps.limiter.reward({ rule: MFA_CODE_RULE, key: userId });
  }

  /**
   * Takes one of the client address's places for a slow request body (`slowBodiesPerClient`), in
   * the counters every process shares; give it back with {@link slowBodyEnded} when the body ends.
   * A concurrent count: the counter goes up here and down there, inside a window of
   * {@link SLOW_BODY_RULE_SECONDS} that starts at the address's first slow body (fixed windows are
   * what the store keeps; a body still under way when its window ends is no longer counted, so the
   * cap may be passed by that many once per window). When the store cannot be reached the body is
   * let through: the cap is a defence against piling up sockets, not a reason to refuse uploads.
   * Nothing without a client.
   * @throws DomainError TOO_MANY_SLOW_BODIES (429) when the address has no place left (nothing stays counted)
   */
  async slowBodyStarted(client: string | undefined): Promise<void> {
    const cap = this.options.slowBodiesPerClient ?? DEFAULT_RATE_LIMITS.slowBodiesPerClient!;
    if (client === undefined || cap <= 0) return;
    const rule = this.slowBodyRule(cap);
    const count = await this.deps.limiter.consume({ rule, key: client }).catch(() => undefined);
    if (count === undefined || count.consumed <= cap) return;
    await this.deps.limiter.reward({ rule, key: client }).catch(() => undefined);
    throw new DomainError('TOO_MANY_SLOW_BODIES', `This address already sends ${cap} request bodies slowly at once: finish one first.`, {
      slow_bodies_per_client: cap,
    });
  }

  /** Gives back the place {@link slowBodyStarted} took. Never rejects. */
  async slowBodyEnded(client: string | undefined): Promise<void> {
    const cap = this.options.slowBodiesPerClient ?? DEFAULT_RATE_LIMITS.slowBodiesPerClient!;
    if (client === undefined || cap <= 0) return;
    await this.deps.limiter.reward({ rule: this.slowBodyRule(cap), key: client }).catch(() => undefined);
  }

  private slowBodyRule(cap: number): RateRule {
    return { name: 'slow_bodies_client', points: cap, durationSeconds: SLOW_BODY_RULE_SECONDS };
  }

  private async count(checks: { rule: RateRule; key: string | undefined; limit: number }[]): Promise<void> {
    const results = await Promise.all(
      checks.filter((c) => c.key !== undefined && c.limit > 0).map((c) => this.deps.limiter.consume({ rule: c.rule, key: c.key! })),
    );
    const wait = Math.max(0, ...results.map((r) => r.retryAfterSeconds));
    if (wait > 0) throw rateLimited(wait, 'Too many requests: wait before trying again.');
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

/** True when `at` (Unix ms) is set and less than `periodMs` before `now`. */
function isWithin(at: number | undefined, now: number, periodMs: number): boolean {
  return at !== undefined && now - at < periodMs && now >= at;
}

/** Sets `key` to `at` in `map` as its newest entry, forgetting the oldest past {@link API_KEY_ADDRESSES_KEPT}. */
function remember(map: Map<string, number>, key: string, at: number): void {
  map.delete(key);
  map.set(key, at);
  if (map.size > API_KEY_ADDRESSES_KEPT) map.delete(map.keys().next().value!);
}
