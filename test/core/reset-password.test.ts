import { expect } from 'chai';
import { createMemoryHangar, passwordSignIn, DEFAULT_PASSWORD, expectDomainError, START } from '../support/memory-hangar.js';

const MINUTE = 60_000;

/** Alice, confirmed, with a second session, and a reset link requested a minute later. */
async function withResetLink(redirectTo?: string) {
  const world = createMemoryHangar();
  const alice = await world.registerConfirmed('alice@example.com');
  const login = await passwordSignIn(world.hangar, { email: 'alice@example.com', password: DEFAULT_PASSWORD });
  world.clock.advance(MINUTE);
  await world.hangar.requestPasswordReset.execute({ email: 'alice@example.com', redirectTo });
  await world.hangar.requestPasswordReset.settled();
  return { ...world, alice, sessions: [alice.session, login.session], token: world.lastToken('alice@example.com', 'reset-password') };
}

describe('ResetPassword', () => {
  it('sets the new password: the old one fails, the new one logs in', async () => {
    const { hangar, token } = await withResetLink();
    await hangar.resetPassword.execute({ token, password: 'brand-new-password' });
    await expectDomainError(passwordSignIn(hangar, { email: 'alice@example.com', password: DEFAULT_PASSWORD }), 'INVALID_CREDENTIALS');
    await passwordSignIn(hangar, { email: 'alice@example.com', password: 'brand-new-password' });
  });

  it('revokes every existing session: their access and refresh tokens stop working', async () => {
    const { hangar, token, sessions } = await withResetLink();
    await hangar.resetPassword.execute({ token, password: 'brand-new-password' });
    for (const session of sessions) {
      await expectDomainError(hangar.authenticate.execute({ authorization: `Bearer ${session.accessToken}` }), 'UNAUTHORIZED');
      await expectDomainError(hangar.refreshSession.execute({ refreshToken: session.refreshToken }), 'INVALID_REFRESH_TOKEN');
    }
  });

  it('leaves API keys working unless asked: the keys still authenticate after a plain reset', async () => {
    const { hangar, token, alice } = await withResetLink();
    const { key } = await hangar.createApiKey.execute({ userId: alice.userId, name: 'ci' });
    expect(await hangar.resetPassword.execute({ token, password: 'brand-new-password' })).to.include({ revokedApiKeys: 0 });
    expect(await hangar.authenticate.execute({ apiKey: key })).to.include({ kind: 'api_key', userId: alice.userId });
  });

  it('revokes every API key of the account with revokeApiKeys, and no other account’s', async () => {
    const { hangar, token, alice, registerConfirmed } = await withResetLink();
    const keys = [
      await hangar.createApiKey.execute({ userId: alice.userId, name: 'ci' }),
      await hangar.createApiKey.execute({ userId: alice.userId, name: 'sharex' }),
    ];
    const bob = await registerConfirmed('bob@example.com');
    const bobs = await hangar.createApiKey.execute({ userId: bob.userId, name: 'ci' });
    expect(await hangar.resetPassword.execute({ token, password: 'brand-new-password', revokeApiKeys: true })).to.include({ revokedApiKeys: 2 });
    for (const { key } of keys) await expectDomainError(hangar.authenticate.execute({ apiKey: key }), 'UNAUTHORIZED');
    expect((await hangar.listApiKeys.execute({ userId: alice.userId, page: 1, limit: 10 })).items).to.deep.equal([]);
    expect(await hangar.authenticate.execute({ apiKey: bobs.key })).to.include({ userId: bob.userId });
  });

  it('keeps the keys when the reset is refused (short password), even with revokeApiKeys', async () => {
    const { hangar, token, alice } = await withResetLink();
    const { key } = await hangar.createApiKey.execute({ userId: alice.userId, name: 'ci' });
    await expectDomainError(hangar.resetPassword.execute({ token, password: '12345', revokeApiKeys: true }), 'PASSWORD_TOO_SHORT');
    expect(await hangar.authenticate.execute({ apiKey: key })).to.include({ userId: alice.userId });
  });

  it('works once: the same link a second time is INVALID_TOKEN and the password stays the first new one', async () => {
    const { hangar, token } = await withResetLink();
    await hangar.resetPassword.execute({ token, password: 'first-new-password' });
    await expectDomainError(hangar.resetPassword.execute({ token, password: 'second-new-password' }), 'INVALID_TOKEN');
    await passwordSignIn(hangar, { email: 'alice@example.com', password: 'first-new-password' });
  });

  it('refuses a short password with PASSWORD_TOO_SHORT, and the link still works afterwards', async () => {
    const { hangar, token } = await withResetLink();
    await expectDomainError(hangar.resetPassword.execute({ token, password: '12345' }), 'PASSWORD_TOO_SHORT');
    await passwordSignIn(hangar, { email: 'alice@example.com', password: DEFAULT_PASSWORD });
    await hangar.resetPassword.execute({ token, password: '123456' });
    await passwordSignIn(hangar, { email: 'alice@example.com', password: '123456' });
  });

  it('refuses a password over 1024 characters with PASSWORD_TOO_LONG, and the link still works afterwards', async () => {
    const { hangar, token } = await withResetLink();
    await expectDomainError(hangar.resetPassword.execute({ token, password: 'x'.repeat(1025) }), 'PASSWORD_TOO_LONG');
    await hangar.resetPassword.execute({ token, password: 'brand-new-password' });
  });

  it('still works just before 1 hour', async () => {
    const { hangar, token, clock } = await withResetLink();
    clock.advance(60 * MINUTE - 1000);
    await hangar.resetPassword.execute({ token, password: 'brand-new-password' });
  });

  it('expires after 1 hour: INVALID_TOKEN and the old password still works', async () => {
    const { hangar, token, clock } = await withResetLink();
    clock.advance(60 * MINUTE + 1000);
    await expectDomainError(hangar.resetPassword.execute({ token, password: 'brand-new-password' }), 'INVALID_TOKEN');
    await passwordSignIn(hangar, { email: 'alice@example.com', password: DEFAULT_PASSWORD });
  });

  it('returns the redirect_to given with the request', async () => {
    const { hangar, token } = await withResetLink('http://app.test/welcome/reset-done');
    expect(await hangar.resetPassword.execute({ token, password: 'brand-new-password' })).to.deep.equal({
      redirectTo: 'http://app.test/welcome/reset-done',
      revokedApiKeys: 0,
    });
  });

  it('returns a null redirect when none was given', async () => {
    const { hangar, token } = await withResetLink();
    expect(await hangar.resetPassword.execute({ token, password: 'brand-new-password' })).to.deep.equal({ redirectTo: null, revokedApiKeys: 0 });
  });

  it('invalidates the account’s other reset links', async () => {
    const { hangar, token: older, clock, lastToken } = await withResetLink();
    clock.advance(MINUTE);
    await hangar.requestPasswordReset.execute({ email: 'alice@example.com' });
    await hangar.requestPasswordReset.settled();
    const newer = lastToken('alice@example.com', 'reset-password');
    expect(newer).to.not.equal(older);
    await hangar.resetPassword.execute({ token: newer, password: 'brand-new-password' });
    await expectDomainError(hangar.resetPassword.execute({ token: older, password: 'attacker-password' }), 'INVALID_TOKEN');
  });

  it('refuses a confirmation token (another purpose) with INVALID_TOKEN', async () => {
    const world = createMemoryHangar();
    await world.hangar.registerAccount.execute({ email: 'alice@example.com', password: DEFAULT_PASSWORD });
    const confirmation = world.lastToken('alice@example.com', 'confirm');
    await expectDomainError(world.hangar.resetPassword.execute({ token: confirmation, password: 'brand-new-password' }), 'INVALID_TOKEN');
    await world.hangar.confirmEmail.execute({ token: confirmation });
  });

  it('refuses an unknown token with INVALID_TOKEN', async () => {
    const { hangar } = createMemoryHangar();
    await expectDomainError(hangar.resetPassword.execute({ token: 'Z'.repeat(40), password: 'brand-new-password' }), 'INVALID_TOKEN');
  });

  it('confirms an unconfirmed address, since following the link proves the mailbox', async () => {
    const world = createMemoryHangar();
    const { user } = await world.hangar.registerAccount.execute({ email: 'alice@example.com', password: DEFAULT_PASSWORD });
    world.clock.advance(MINUTE);
    await world.hangar.requestPasswordReset.execute({ email: 'alice@example.com' });
    await world.hangar.requestPasswordReset.settled();
    await world.hangar.resetPassword.execute({ token: world.lastToken('alice@example.com', 'reset-password'), password: 'brand-new-password' });
    expect((await world.repos.users.findById(user.id))?.emailConfirmedAt?.getTime()).to.equal(START.getTime() + MINUTE);
    await passwordSignIn(world.hangar, { email: 'alice@example.com', password: 'brand-new-password' });
  });

  it('works with the reset link mailed when someone re-registers a confirmed address', async () => {
    const world = createMemoryHangar();
    await world.registerConfirmed('alice@example.com');
    world.clock.advance(MINUTE);
    await world.hangar.registerAccount.execute({ email: 'alice@example.com', password: 'whatever-pw' });
    await world.hangar.resetPassword.execute({ token: world.lastToken('alice@example.com', 'reset-password'), password: 'brand-new-password' });
    await passwordSignIn(world.hangar, { email: 'alice@example.com', password: 'brand-new-password' });
  });
});
