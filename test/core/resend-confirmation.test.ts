import { expect } from 'chai';
import { createMemoryHangar, DEFAULT_PASSWORD, expectDomainError, tokenIn } from '../support/memory-hangar.js';

const MINUTE = 60_000;

/** Alice registered (not confirmed) a minute ago; Bob registered and confirmed. */
async function withAccounts() {
  const world = createMemoryHangar();
  await world.registerConfirmed('bob@example.com');
  await world.hangar.registerAccount.execute({ email: 'alice@example.com', password: DEFAULT_PASSWORD });
  world.clock.advance(MINUTE);
  const baseline = world.mailer.messages.length;
  /** Messages sent since the setup. */
  const mail = () => world.mailer.messages.slice(baseline);
  const resend = async (input: { email: string; redirectTo?: string; client?: string }) => {
    const answer = await world.hangar.resendConfirmation.execute(input);
    await world.hangar.resendConfirmation.settled();
    return answer;
  };
  return { ...world, mail, resend };
}

describe('ResendConfirmation', () => {
  it('mails a new confirmation link to an unconfirmed account, and the link confirms it', async () => {
    const { hangar, mail, resend, repos } = await withAccounts();
    await resend({ email: ' Alice@Example.com ' });
    expect(mail().map((m) => [m.to, m.subject])).to.deep.equal([['alice@example.com', 'Confirm your e-mail address']]);
    const confirmed = await hangar.confirmEmail.execute({ token: tokenIn(mail()[0], 'confirm') });
    expect((await repos.users.findById(confirmed.userId))?.emailConfirmedAt).to.not.equal(null);
  });

  it('resolves the same for an unknown address and a confirmed account, and mails neither', async () => {
    const { mail, resend } = await withAccounts();
    const unconfirmed = await resend({ email: 'alice@example.com' });
    const unknown = await resend({ email: 'nobody@example.com' });
    const confirmed = await resend({ email: 'bob@example.com' });
    expect(unknown).to.deep.equal(unconfirmed);
    expect(confirmed).to.deep.equal(unconfirmed);
    expect(mail().map((m) => m.to)).to.deep.equal(['alice@example.com']);
  });

  it('mails nothing within a minute of the last confirmation e-mail, and mails again after it', async () => {
    const { mail, resend, clock } = await withAccounts();
    await resend({ email: 'alice@example.com' });
    clock.advance(MINUTE - 1);
    await resend({ email: 'alice@example.com' });
    expect(mail()).to.have.length(1);
    clock.advance(1);
    await resend({ email: 'alice@example.com' });
    expect(mail()).to.have.length(2);
  });

  it('is not held back by a password reset e-mail sent just before (one slot per purpose)', async () => {
    const { hangar, mail, resend } = await withAccounts();
    await hangar.requestPasswordReset.execute({ email: 'alice@example.com' });
    await hangar.requestPasswordReset.settled();
    await resend({ email: 'alice@example.com' });
    expect(mail().map((m) => m.subject)).to.deep.equal(['Reset your password', 'Confirm your e-mail address']);
  });

  it('carries redirect_to through to the confirmation', async () => {
    const { hangar, mail, resend } = await withAccounts();
    await resend({ email: 'alice@example.com', redirectTo: 'http://app.test/welcome?again=1' });
    const result = await hangar.confirmEmail.execute({ token: tokenIn(mail()[0], 'confirm') });
    expect(result.redirectTo).to.equal('http://app.test/welcome?again=1');
  });

  it('refuses an invalid address with INVALID_EMAIL and a redirect_to outside the allowed URLs with INVALID_REDIRECT_URL, mailing nothing', async () => {
    const { mail, resend } = await withAccounts();
    await expectDomainError(resend({ email: 'alice' }), 'INVALID_EMAIL');
    await expectDomainError(resend({ email: 'alice@example.com', redirectTo: 'https://evil.example.net/' }), 'INVALID_REDIRECT_URL');
    expect(mail()).to.be.empty;
  });

  it('counts requests per address with reset requests: RATE_LIMITED past emailRequestsPerAddressPerHour', async () => {
    const world = createMemoryHangar({ rateLimits: { emailRequestsPerAddressPerHour: 2 } });
    await world.hangar.requestPasswordReset.execute({ email: 'carol@example.com' });
    await world.hangar.resendConfirmation.execute({ email: 'carol@example.com' });
    const error = await expectDomainError(world.hangar.resendConfirmation.execute({ email: 'carol@example.com' }), 'RATE_LIMITED');
    expect(error.details).to.have.property('retry_after_seconds').that.is.above(0);
  });
});
