import { expect } from 'chai';
import type { OneTimeTokenRepository, UserRepository } from '../../core/index.js';
import { createMemoryHangar, expectDomainError, gate, tokenIn } from '../support/memory-hangar.js';

/** `port` with some of its methods replaced (the others called on `port` itself). */
function overriding<T extends object>(port: T, methods: Partial<T>): T {
  return new Proxy(port, {
    get: (target, name, receiver) => (name in methods ? methods[name as keyof T] : Reflect.get(target, name, receiver)),
  });
}

async function withAlice() {
  const world = createMemoryHangar();
  const alice = await world.registerConfirmed('alice@example.com');
  world.clock.advance(60_000); // past the one-e-mail-per-minute window of the confirmation mail
  const baseline = world.mailer.messages.length;
  /** Messages sent since the setup. */
  const mail = () => world.mailer.messages.slice(baseline);
  return { ...world, alice, mail };
}

describe('RequestPasswordReset', () => {
  it('mails a link to the dashboard’s reset screen under PUBLIC_API_URL to an account holder', async () => {
    const { hangar, mail } = await withAlice();
    await hangar.requestPasswordReset.execute({ email: 'alice@example.com' });
    await hangar.requestPasswordReset.settled();
    expect(mail()).to.have.length(1);
    expect(mail()[0].to).to.equal('alice@example.com');
    expect(mail()[0].text).to.include('http://api.test/#/reset?token=');
    expect(tokenIn(mail()[0], 'reset-password')).to.match(/^[0-9A-Za-z]{40}$/);
  });

  it('normalises the address (case and spaces)', async () => {
    const { hangar, mail } = await withAlice();
    await hangar.requestPasswordReset.execute({ email: ' ALICE@example.com  ' });
    await hangar.requestPasswordReset.settled();
    expect(mail().map((m) => m.to)).to.deep.equal(['alice@example.com']);
  });

  it('for an address without an account: mails nothing and resolves the same way', async () => {
    const { hangar, mail } = await withAlice();
    const known = await hangar.requestPasswordReset.execute({ email: 'alice@example.com' });
    await hangar.requestPasswordReset.settled();
    const unknown = await hangar.requestPasswordReset.execute({ email: 'nobody@example.com' });
    await hangar.requestPasswordReset.settled();
    expect(unknown).to.deep.equal(known);
    expect(mail().map((m) => m.to)).to.deep.equal(['alice@example.com']);
  });

  it('answers an account holder before the link is created and mailed, as fast as anyone (no address oracle by timing)', async () => {
    // eslint-disable-next-line prefer-const -- assigned once, after the double that reads it is made
    let held: ReturnType<typeof gate> | undefined;
    let claims = 0;
    const world = createMemoryHangar({}, (ports) => ({
      users: overriding(ports.users, {
        claimEmailSlot: async (...args: Parameters<UserRepository['claimEmailSlot']>) => {
          claims += 1;
          await held?.promise;
          return ports.users.claimEmailSlot(...args);
        },
      }),
    }));
    await world.registerConfirmed('alice@example.com');
    world.clock.advance(60_000);
    held = gate();
    claims = 0;
    // The answer comes while the background work is held at its first write.
    await world.hangar.requestPasswordReset.execute({ email: 'alice@example.com' });
    expect(claims).to.equal(1);
    const resets = () => world.mailTo('alice@example.com').filter((m) => m.text.includes('/#/reset?token='));
    expect(resets()).to.be.empty;
    let settled = false;
    const waiting = world.hangar.requestPasswordReset.settled().then(() => (settled = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled, 'settled() waits for the held work').to.equal(false);
    held.open();
    await waiting;
    expect(resets()).to.have.length(1);
  });

  it('reports a failure of the background work to onBackgroundError; the answer is the same', async () => {
    let failing = false;
    const world = createMemoryHangar({}, (ports) => ({
      tokens: overriding(ports.tokens, {
        create: async (token: Parameters<OneTimeTokenRepository['create']>[0]) =>
          failing ? Promise.reject(new Error('database down')) : ports.tokens.create(token),
      }),
    }));
    await world.registerConfirmed('alice@example.com');
    world.clock.advance(60_000);
    failing = true;
    await world.hangar.requestPasswordReset.execute({ email: 'alice@example.com' });
    await world.hangar.requestPasswordReset.settled();
    expect(world.backgroundErrors.map((error) => String(error))).to.deep.equal(['Error: database down']);
    expect(world.mailTo('alice@example.com').filter((m) => m.text.includes('/#/reset?token='))).to.be.empty;
  });

  it('refuses an invalid address with INVALID_EMAIL', async () => {
    const { hangar, mail } = await withAlice();
    await expectDomainError(hangar.requestPasswordReset.execute({ email: 'alice' }), 'INVALID_EMAIL');
    expect(mail()).to.be.empty;
  });

  it('refuses a redirect_to outside the allowed URLs with INVALID_REDIRECT_URL and mails nothing', async () => {
    const { hangar, mail } = await withAlice();
    await expectDomainError(
      hangar.requestPasswordReset.execute({ email: 'alice@example.com', redirectTo: 'https://app.example.com@evil.example.net/' }),
      'INVALID_REDIRECT_URL',
    );
    expect(mail()).to.be.empty;
  });

  it('drops a second request within a minute silently, and mails again after it', async () => {
    const { hangar, mail, clock } = await withAlice();
    await hangar.requestPasswordReset.execute({ email: 'alice@example.com' });
    await hangar.requestPasswordReset.settled();
    await hangar.requestPasswordReset.execute({ email: 'alice@example.com' });
    await hangar.requestPasswordReset.settled();
    expect(mail()).to.have.length(1);
    clock.advance(60_000);
    await hangar.requestPasswordReset.execute({ email: 'alice@example.com' });
    await hangar.requestPasswordReset.settled();
    expect(mail()).to.have.length(2);
  });

  it('keeps the one-per-minute limit per purpose: a reset asked right after the confirmation e-mail is mailed', async () => {
    const world = createMemoryHangar();
    await world.registerConfirmed('alice@example.com');
    await world.hangar.requestPasswordReset.execute({ email: 'alice@example.com' });
    await world.hangar.requestPasswordReset.settled();
    expect(world.mailer.messages.map((m) => m.subject)).to.deep.equal(['Confirm your e-mail address', 'Reset your password']);
    await world.hangar.requestPasswordReset.execute({ email: 'alice@example.com' });
    await world.hangar.requestPasswordReset.settled();
    expect(world.mailer.messages).to.have.length(2); // the second reset waits for its own minute
  });
});
