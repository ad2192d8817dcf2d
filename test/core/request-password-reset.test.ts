import { expect } from 'chai';
import { createMemoryHangar, expectDomainError, tokenIn } from '../support/memory-hangar.js';

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
  it('mails a reset link under PUBLIC_API_URL/auth/reset-password to an account holder', async () => {
    const { hangar, mail } = await withAlice();
    await hangar.requestPasswordReset.execute({ email: 'alice@example.com' });
    expect(mail()).to.have.length(1);
    expect(mail()[0].to).to.equal('alice@example.com');
    expect(mail()[0].text).to.include('http://api.test/auth/reset-password?token=');
    expect(tokenIn(mail()[0], 'reset-password')).to.match(/^[0-9A-Za-z]{40}$/);
  });

  it('normalises the address (case and spaces)', async () => {
    const { hangar, mail } = await withAlice();
    await hangar.requestPasswordReset.execute({ email: ' ALICE@example.com  ' });
    expect(mail().map((m) => m.to)).to.deep.equal(['alice@example.com']);
  });

  it('for an address without an account: mails nothing and resolves the same way', async () => {
    const { hangar, mail } = await withAlice();
    const known = await hangar.requestPasswordReset.execute({ email: 'alice@example.com' });
    const unknown = await hangar.requestPasswordReset.execute({ email: 'nobody@example.com' });
    expect(unknown).to.deep.equal(known);
    expect(mail().map((m) => m.to)).to.deep.equal(['alice@example.com']);
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
    await hangar.requestPasswordReset.execute({ email: 'alice@example.com' });
    expect(mail()).to.have.length(1);
    clock.advance(60_000);
    await hangar.requestPasswordReset.execute({ email: 'alice@example.com' });
    expect(mail()).to.have.length(2);
  });

  it('counts the confirmation e-mail in the same one-per-minute limit', async () => {
    const world = createMemoryHangar();
    await world.registerConfirmed('alice@example.com');
    await world.hangar.requestPasswordReset.execute({ email: 'alice@example.com' });
    expect(world.mailer.messages).to.have.length(1); // the confirmation only
  });
});
