import { expect } from 'chai';
import { createMemoryHangar, DEFAULT_PASSWORD, expectDomainError, START } from '../support/memory-hangar.js';

const HOUR = 3600_000;

describe('ConfirmEmail', () => {
  it('confirms the address and signs the user in with a session that authenticates', async () => {
    const world = createMemoryHangar();
    const { hangar, repos, clock } = world;
    const registered = await hangar.registerAccount.execute({ email: 'alice@example.com', password: DEFAULT_PASSWORD });
    clock.advance(5 * 60_000);

    const result = await hangar.confirmEmail.execute({ token: world.lastToken('alice@example.com', 'confirm') });

    expect(result.userId).to.equal(registered.user.id);
    expect(result.redirectTo).to.equal(null);
    expect(result.session.tokenType).to.equal('bearer');
    expect(result.session.expiresIn).to.equal(3600);
    const principal = await hangar.authenticate.execute({ authorization: `Bearer ${result.session.accessToken}` });
    expect(principal).to.include({ kind: 'session', userId: registered.user.id });

    const user = await repos.users.findById(registered.user.id);
    expect(user?.emailConfirmedAt?.getTime()).to.equal(START.getTime() + 5 * 60_000);
  });

  it('lets the user log in afterwards', async () => {
    const world = createMemoryHangar();
    await world.hangar.registerAccount.execute({ email: 'alice@example.com', password: DEFAULT_PASSWORD });
    await expectDomainError(world.hangar.logIn.execute({ email: 'alice@example.com', password: DEFAULT_PASSWORD }), 'EMAIL_NOT_VERIFIED');
    await world.hangar.confirmEmail.execute({ token: world.lastToken('alice@example.com', 'confirm') });
    const { user } = await world.hangar.logIn.execute({ email: 'alice@example.com', password: DEFAULT_PASSWORD });
    expect(user.email).to.equal('alice@example.com');
  });

  it('works once: the same link a second time is INVALID_TOKEN', async () => {
    const world = createMemoryHangar();
    await world.hangar.registerAccount.execute({ email: 'alice@example.com', password: DEFAULT_PASSWORD });
    const token = world.lastToken('alice@example.com', 'confirm');
    await world.hangar.confirmEmail.execute({ token });
    await expectDomainError(world.hangar.confirmEmail.execute({ token }), 'INVALID_TOKEN');
  });

  it('still works just before 24 hours', async () => {
    const world = createMemoryHangar();
    await world.hangar.registerAccount.execute({ email: 'alice@example.com', password: DEFAULT_PASSWORD });
    world.clock.advance(24 * HOUR - 1000);
    await world.hangar.confirmEmail.execute({ token: world.lastToken('alice@example.com', 'confirm') });
  });

  it('expires after 24 hours: INVALID_TOKEN and the address stays unconfirmed', async () => {
    const world = createMemoryHangar();
    const { user } = await world.hangar.registerAccount.execute({ email: 'alice@example.com', password: DEFAULT_PASSWORD });
    world.clock.advance(24 * HOUR + 1000);
    await expectDomainError(world.hangar.confirmEmail.execute({ token: world.lastToken('alice@example.com', 'confirm') }), 'INVALID_TOKEN');
    expect((await world.repos.users.findById(user.id))?.emailConfirmedAt).to.equal(null);
  });

  it('carries redirect_to from registration through to the result', async () => {
    const world = createMemoryHangar();
    await world.hangar.registerAccount.execute({ email: 'alice@example.com', password: DEFAULT_PASSWORD, redirectTo: 'http://app.test/welcome?from=mail' });
    const result = await world.hangar.confirmEmail.execute({ token: world.lastToken('alice@example.com', 'confirm') });
    expect(result.redirectTo).to.equal('http://app.test/welcome?from=mail');
  });

  it('refuses an unknown token with INVALID_TOKEN', async () => {
    const { hangar } = createMemoryHangar();
    await expectDomainError(hangar.confirmEmail.execute({ token: 'A'.repeat(40) }), 'INVALID_TOKEN');
    await expectDomainError(hangar.confirmEmail.execute({ token: '' }), 'INVALID_TOKEN');
  });

  it('refuses a password reset token (another purpose) with INVALID_TOKEN', async () => {
    const world = createMemoryHangar();
    await world.registerConfirmed('alice@example.com');
    world.clock.advance(60_000);
    await world.hangar.requestPasswordReset.execute({ email: 'alice@example.com' });
    await world.hangar.requestPasswordReset.settled();
    const resetToken = world.lastToken('alice@example.com', 'reset-password');
    await expectDomainError(world.hangar.confirmEmail.execute({ token: resetToken }), 'INVALID_TOKEN');
    // …and the reset token was not used up by the attempt.
    await world.hangar.resetPassword.execute({ token: resetToken, password: 'new-password' });
  });

  it('opens a new session at each confirmation of a new account, one per user', async () => {
    const world = createMemoryHangar();
    const alice = await world.registerConfirmed('alice@example.com');
    const bob = await world.registerConfirmed('bob@example.com');
    const a = await world.hangar.authenticate.execute({ authorization: `Bearer ${alice.session.accessToken}` });
    const b = await world.hangar.authenticate.execute({ authorization: `Bearer ${bob.session.accessToken}` });
    expect(a.userId).to.equal(alice.userId);
    expect(b.userId).to.equal(bob.userId);
    expect(a.userId).to.not.equal(b.userId);
  });
});
