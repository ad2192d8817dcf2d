import { expect } from 'chai';
import { NodeSecretDigest } from '../../adapters/crypto/node-secret-digest.js';
import type { RateCount, RateLimiter, RateRule } from '../../core/index.js';
import { RateLimits } from '../../core/index.js';
import { FixedClock } from '../support/fixed-clock.js';
import { createMemoryHangar, DEFAULT_PASSWORD, expectDomainError } from '../support/memory-hangar.js';

/**
 * A {@link RateLimiter} on a {@link FixedClock}, so delays can be read off and waited out without
 * sleeping (the real adapter is checked by test/contracts/rate-limiter.test.ts).
 */
class ClockRateLimiter implements RateLimiter {
  private readonly counters = new Map<string, { points: number; endsAt: number }>();
  constructor(private readonly clock: FixedClock) {}

  private entry(rule: RateRule, key: string) {
    const id = `${rule.name}\n${key}`;
    const now = this.clock.now().getTime();
    let entry = this.counters.get(id);
    if (!entry || entry.endsAt <= now) {
      entry = { points: 0, endsAt: now + rule.durationSeconds * 1000 };
      this.counters.set(id, entry);
    }
    return entry;
  }
  async consume(options: { rule: RateRule; key: string; points?: number }): Promise<RateCount> {
    const entry = this.entry(options.rule, options.key);
    entry.points += options.points ?? 1;
    const over = entry.points > options.rule.points;
    return { consumed: entry.points, retryAfterSeconds: over ? Math.ceil((entry.endsAt - this.clock.now().getTime()) / 1000) : 0 };
  }
  async reward(options: { rule: RateRule; key: string; points?: number }): Promise<void> {
    this.entry(options.rule, options.key).points -= options.points ?? 1;
  }
  async retryAfter(options: { rule: RateRule; key: string }): Promise<number> {
    const entry = this.entry(options.rule, options.key);
    return entry.points > options.rule.points ? Math.ceil((entry.endsAt - this.clock.now().getTime()) / 1000) : 0;
  }
  async block(options: { rule: RateRule; key: string; seconds: number }): Promise<void> {
    this.counters.set(`${options.rule.name}\n${options.key}`, { points: options.rule.points + 1, endsAt: this.clock.now().getTime() + options.seconds * 1000 });
  }
  async reset(options: { rule: RateRule; key: string }): Promise<void> {
    this.counters.delete(`${options.rule.name}\n${options.key}`);
  }
}

function limitsWith(options: ConstructorParameters<typeof RateLimits>[0]['options']) {
  const clock = new FixedClock();
  const limits = new RateLimits({ limiter: new ClockRateLimiter(clock), digest: new NodeSecretDigest(), options });
  return { clock, limits };
}

/** Seconds `beforeLogin` makes `subject` wait now (0: may try). */
async function waitOf(limits: RateLimits, subject: { email: string; client?: string }): Promise<number> {
  try {
    await limits.beforeLogin(subject);
    return 0;
  } catch (error) {
    return (error as { details: { retry_after_seconds: number } }).details.retry_after_seconds;
  }
}

/** One attempt that fails its check; an attempt refused before its check (a delay runs) is only counted as refused. */
async function fail(limits: RateLimits, subject: { email: string; client?: string }): Promise<'checked' | 'refused'> {
  try {
    const attempt = await limits.beginLogin(subject);
    await attempt.failed();
    return 'checked';
  } catch (error) {
    if ((error as { code?: string }).code !== 'RATE_LIMITED') throw error;
    return 'refused';
  }
}

describe('RateLimits: failed logins', () => {
  const attacker = { email: 'owner@example.com', client: '203.0.113.7' };

  it('lets the free failures through, then delays 1 s, 2 s, 4 s, 8 s… up to the maximum', async () => {
    const { clock, limits } = limitsWith({ loginFreeFailuresPerAccount: 3, loginMaxDelaySeconds: 10 });
    const delays: number[] = [];
    for (let i = 0; i < 8; i++) {
      expect(await waitOf(limits, attacker)).to.equal(0);
      expect(await fail(limits, attacker)).to.equal('checked');
      const wait = await waitOf(limits, attacker);
      delays.push(wait);
      clock.advance(wait * 1000);
    }
    expect(delays).to.deep.equal([0, 0, 1, 2, 4, 8, 10, 10]);
  });

  it('never locks the owner out: failures from another address do not delay the owner’s address', async () => {
    const { limits } = limitsWith({ loginFreeFailuresPerAccount: 2 });
    for (let i = 0; i < 5; i++) await fail(limits, attacker);
    expect(await waitOf(limits, attacker)).to.be.greaterThan(0);
    expect(await waitOf(limits, { email: 'owner@example.com', client: '198.51.100.2' })).to.equal(0);
  });

  it('keys the account by the address as typed, normalised: Owner@Example.com is owner@example.com', async () => {
    const { limits } = limitsWith({ loginFreeFailuresPerAccount: 2 });
    await fail(limits, attacker);
    expect(await fail(limits, { ...attacker, email: ' Owner@Example.COM ' })).to.equal('checked');
    expect(await waitOf(limits, attacker)).to.equal(1);
  });

  it('delays a client that fails on many accounts once past its own free failures', async () => {
    const { limits } = limitsWith({ loginFreeFailuresPerAccount: 100, loginFreeFailuresPerClient: 4 });
    for (let i = 0; i < 4; i++) expect(await fail(limits, { email: `user${i}@example.com`, client: '203.0.113.9' })).to.equal('checked');
    expect(await waitOf(limits, { email: 'someone-new@example.com', client: '203.0.113.9' })).to.equal(1);
    expect(await waitOf(limits, { email: 'someone-new@example.com', client: '203.0.113.10' })).to.equal(0);
  });

  it('forgets the pair’s failures after a success', async () => {
    const { clock, limits } = limitsWith({ loginFreeFailuresPerAccount: 3 });
    for (let i = 0; i < 3; i++) await fail(limits, attacker);
    clock.advance(1000);
    await (await limits.beginLogin(attacker)).succeeded();
    await fail(limits, attacker);
    await fail(limits, attacker);
    expect(await waitOf(limits, attacker)).to.equal(0);
  });

  it('turns off with 0', async () => {
    const { limits } = limitsWith({ loginFreeFailuresPerAccount: 0, loginFreeFailuresPerClient: 0 });
    for (let i = 0; i < 20; i++) expect(await fail(limits, attacker)).to.equal('checked');
    expect(await waitOf(limits, attacker)).to.equal(0);
  });
});

describe('RateLimits: unknown API keys seen by two processes sharing one store', () => {
  /** Seconds `apiKeyWait` says for `client` (0: its keys are looked at). */
  const waitFor = (limits: RateLimits, client: string) => limits.apiKeyWait(client);

  it('the guessing address waits at once on the process it guesses through, and within 1 s on another that had read "no wait" for it', async () => {
    const clock = new FixedClock();
    const limiter = new ClockRateLimiter(clock);
    const options = { loginFreeFailuresPerClient: 3, loginMaxDelaySeconds: 60 };
    const guessedThrough = new RateLimits({ limiter, digest: new NodeSecretDigest(), options, clock });
    const other = new RateLimits({ limiter, digest: new NodeSecretDigest(), options, clock });
    const guesser = '203.0.113.9';
    expect(await waitFor(other, guesser)).to.equal(0);
    for (let n = 0; n < 3; n++) await guessedThrough.apiKeyFailed(guesser);
    expect(await waitFor(guessedThrough, guesser), 'the process that saw the failures reads the store').to.equal(1);
    clock.advance(500);
    expect(await waitFor(other, guesser), 'within the reuse period of its last read').to.equal(0);
    clock.advance(500);
    await guessedThrough.apiKeyFailed(guesser);
    expect(await waitFor(other, guesser), '1 s after its last read the other process reads the store again').to.equal(2);
    expect(await waitFor(other, '198.51.100.4'), 'other addresses are not slowed').to.equal(0);
  });

  it('an address that sent a process an unknown key has its wait read on every request there', async () => {
    const clock = new FixedClock();
    const limiter = new ClockRateLimiter(clock);
    const options = { loginFreeFailuresPerClient: 2, loginMaxDelaySeconds: 60 };
    const a = new RateLimits({ limiter, digest: new NodeSecretDigest(), options, clock });
    const b = new RateLimits({ limiter, digest: new NodeSecretDigest(), options, clock });
    const guesser = '203.0.113.10';
    expect(await waitFor(b, guesser)).to.equal(0);
    await b.apiKeyFailed(guesser);
    await a.apiKeyFailed(guesser);
    expect(await waitFor(b, guesser), 'b saw one of the failures: it reads at once').to.equal(1);
  });
});

describe('RateLimits: registrations, reset requests and uploads', () => {
  it('refuses the registration past the hourly count per client with RATE_LIMITED and the seconds left', async () => {
    const { limits } = limitsWith({ registrationsPerClientPerHour: 2 });
    await limits.registration({ email: 'a@example.com', client: '203.0.113.1' });
    await limits.registration({ email: 'b@example.com', client: '203.0.113.1' });
    const error = await expectDomainError(limits.registration({ email: 'c@example.com', client: '203.0.113.1' }), 'RATE_LIMITED');
    expect(error.details).to.deep.equal({ retry_after_seconds: 3600 });
    await limits.registration({ email: 'c@example.com', client: '203.0.113.2' });
  });

  it('counts registrations and reset requests naming one address together, from any client', async () => {
    const { limits } = limitsWith({ emailRequestsPerAddressPerHour: 2 });
    await limits.registration({ email: 'x@example.com', client: '203.0.113.1' });
    await limits.passwordReset({ email: 'X@example.com', client: '203.0.113.2' });
    await expectDomainError(limits.passwordReset({ email: 'x@example.com', client: '203.0.113.3' }), 'RATE_LIMITED');
  });

  it('counts uploads per account per minute', async () => {
    const { clock, limits } = limitsWith({ uploadsPerAccountPerMinute: 2 });
    await limits.upload('account-1');
    await limits.upload('account-1');
    await expectDomainError(limits.upload('account-1'), 'RATE_LIMITED');
    await limits.upload('account-2');
    clock.advance(60_000);
    await limits.upload('account-1');
  });
});

describe('LogIn under the login limits', () => {
  it('answers an unknown address exactly like a known one: the same codes in the same order', async () => {
    const world = createMemoryHangar({ rateLimits: { loginFreeFailuresPerAccount: 2 } });
    await world.registerConfirmed('known@example.com');
    const codes = async (email: string) => {
      const seen: string[] = [];
      for (let i = 0; i < 4; i++) {
        seen.push(
          await world.hangar.logIn.execute({ email, password: 'wrong password', client: '203.0.113.5' }).then(
            () => 'OK',
            (e: { code: string }) => e.code,
          ),
        );
      }
      return seen;
    };
    expect(await codes('known@example.com')).to.deep.equal(['INVALID_CREDENTIALS', 'INVALID_CREDENTIALS', 'RATE_LIMITED', 'RATE_LIMITED']);
    expect(await codes('unknown@example.com')).to.deep.equal(['INVALID_CREDENTIALS', 'INVALID_CREDENTIALS', 'RATE_LIMITED', 'RATE_LIMITED']);
  });

  it('refuses even the right password while the delay runs, and accepts it from the owner’s own address', async () => {
    const world = createMemoryHangar({ rateLimits: { loginFreeFailuresPerAccount: 1 } });
    await world.registerConfirmed('owner@example.com');
    for (let i = 0; i < 1; i++)
      await expectDomainError(world.hangar.logIn.execute({ email: 'owner@example.com', password: 'guess', client: '203.0.113.5' }), 'INVALID_CREDENTIALS');
    await expectDomainError(world.hangar.logIn.execute({ email: 'owner@example.com', password: DEFAULT_PASSWORD, client: '203.0.113.5' }), 'RATE_LIMITED');
    await world.hangar.logIn.execute({ email: 'owner@example.com', password: DEFAULT_PASSWORD, client: '198.51.100.2' });
  });

  it('checks at most the free failures’ passwords among 40 simultaneous wrong logins, and refuses the right password at position 37', async () => {
    let checks = 0;
    const world = createMemoryHangar({ rateLimits: { loginFreeFailuresPerAccount: 5 } }, (ports) => ({
      passwords: {
        hash: (password: string) => ports.passwords.hash(password),
        verify: (options: { hash: string; password: string }) => {
          checks++;
          return ports.passwords.verify(options);
        },
      },
    }));
    await world.registerConfirmed('owner@example.com');
    checks = 0;
    const codes = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        world.hangar.logIn.execute({ email: 'owner@example.com', password: i === 36 ? DEFAULT_PASSWORD : `guess ${i}`, client: '203.0.113.5' }).then(
          () => 'OK',
          (error: { code: string }) => error.code,
        ),
      ),
    );
    expect(checks).to.be.at.most(5);
    expect(codes[36]).to.equal('RATE_LIMITED');
    expect(codes.filter((code) => code === 'INVALID_CREDENTIALS')).to.have.length(checks);
    expect(codes.filter((code) => code === 'RATE_LIMITED')).to.have.length(40 - checks);
  });

  it('lets 20 simultaneous logins with the right password all succeed, checked a few at a time', async () => {
    const world = createMemoryHangar({ rateLimits: { loginFreeFailuresPerAccount: 3, loginFreeFailuresPerClient: 5 } });
    await world.registerConfirmed('owner@example.com');
    const codes = await Promise.all(
      Array.from({ length: 20 }, () =>
        world.hangar.logIn.execute({ email: 'owner@example.com', password: DEFAULT_PASSWORD, client: '203.0.113.8' }).then(
          () => 'OK',
          (error: { code: string }) => error.code,
        ),
      ),
    );
    expect(codes).to.deep.equal(Array.from({ length: 20 }, () => 'OK'));
  });

  it('gives the client’s point back after a right password: many accounts logging in from one address never meet the client limit', async () => {
    const world = createMemoryHangar({ rateLimits: { loginFreeFailuresPerAccount: 5, loginFreeFailuresPerClient: 3 } });
    for (let i = 0; i < 6; i++) {
      await world.registerConfirmed(`user${i}@example.com`);
      await world.hangar.logIn.execute({ email: `user${i}@example.com`, password: DEFAULT_PASSWORD, client: '203.0.113.6' });
    }
  });
});
