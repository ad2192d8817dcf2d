import { expect } from 'chai';
import { createMemoryHangar, passwordSignIn, DEFAULT_PASSWORD, expectDomainError, START, UUID_PATTERN } from '../support/memory-hangar.js';

describe('LogIn', () => {
  it('refuses an unknown e-mail address with INVALID_CREDENTIALS', async () => {
    const world = createMemoryHangar();
    await world.registerConfirmed('alice@example.com');
    await expectDomainError(passwordSignIn(world.hangar, { email: 'nobody@example.com', password: DEFAULT_PASSWORD }), 'INVALID_CREDENTIALS');
  });

  it('refuses a wrong password with the same INVALID_CREDENTIALS and the same message', async () => {
    const world = createMemoryHangar();
    await world.registerConfirmed('alice@example.com');
    const unknown = await expectDomainError(passwordSignIn(world.hangar, { email: 'nobody@example.com', password: DEFAULT_PASSWORD }), 'INVALID_CREDENTIALS');
    const wrong = await expectDomainError(passwordSignIn(world.hangar, { email: 'alice@example.com', password: 'wrong-password' }), 'INVALID_CREDENTIALS');
    expect(wrong.message).to.equal(unknown.message);
  });

  it('answers INVALID_CREDENTIALS (not INVALID_EMAIL) for an address that is not even valid', async () => {
    const { hangar } = createMemoryHangar();
    await expectDomainError(passwordSignIn(hangar, { email: 'not-an-email', password: DEFAULT_PASSWORD }), 'INVALID_CREDENTIALS');
  });

  it('refuses an unconfirmed account with a wrong password as INVALID_CREDENTIALS, so it reveals nothing', async () => {
    const { hangar } = createMemoryHangar();
    await hangar.registerAccount.execute({ email: 'alice@example.com', password: DEFAULT_PASSWORD });
    await expectDomainError(passwordSignIn(hangar, { email: 'alice@example.com', password: 'wrong-password' }), 'INVALID_CREDENTIALS');
  });

  it('refuses an unconfirmed account with the right password as EMAIL_NOT_VERIFIED', async () => {
    const { hangar } = createMemoryHangar();
    await hangar.registerAccount.execute({ email: 'alice@example.com', password: DEFAULT_PASSWORD });
    const error = await expectDomainError(passwordSignIn(hangar, { email: 'alice@example.com', password: DEFAULT_PASSWORD }), 'EMAIL_NOT_VERIFIED');
    expect(error.message).to.be.a('string').and.not.equal('');
  });

  it('returns the user and a bearer session of 3600 s whose expires_at is now + 3600 in Unix seconds', async () => {
    const world = createMemoryHangar();
    const alice = await world.registerConfirmed('alice@example.com');
    world.clock.advance(90_000);

    const { user, session } = await passwordSignIn(world.hangar, { email: 'alice@example.com', password: DEFAULT_PASSWORD });

    expect(user.id).to.equal(alice.userId);
    expect(user.id).to.match(UUID_PATTERN);
    expect(user.email).to.equal('alice@example.com');
    expect(user.createdAt.getTime()).to.equal(START.getTime());
    expect(user.updatedAt).to.be.instanceOf(Date);
    expect(session.tokenType).to.equal('bearer');
    expect(session.expiresIn).to.equal(3600);
    expect(session.expiresAt).to.equal((START.getTime() + 90_000) / 1000 + 3600);
    expect(session.accessToken.split('.')).to.have.length(3);
    expect(session.refreshToken).to.match(/^[0-9A-Za-z]{40}$/);

    const principal = await world.hangar.authenticate.execute({ authorization: `Bearer ${session.accessToken}` });
    expect(principal).to.include({ kind: 'session', userId: alice.userId });
  });

  it('accepts the e-mail address in another case and with surrounding spaces', async () => {
    const world = createMemoryHangar();
    const alice = await world.registerConfirmed('alice@example.com');
    const { user } = await passwordSignIn(world.hangar, { email: '  ALICE@Example.com ', password: DEFAULT_PASSWORD });
    expect(user.id).to.equal(alice.userId);
  });

  it('does not trim or fold the password', async () => {
    const world = createMemoryHangar();
    await world.registerConfirmed('alice@example.com', 'Secret-PW');
    await expectDomainError(passwordSignIn(world.hangar, { email: 'alice@example.com', password: 'secret-pw' }), 'INVALID_CREDENTIALS');
    await expectDomainError(passwordSignIn(world.hangar, { email: 'alice@example.com', password: ' Secret-PW' }), 'INVALID_CREDENTIALS');
  });

  it('opens a separate session at each login', async () => {
    const world = createMemoryHangar();
    await world.registerConfirmed('alice@example.com');
    const first = await passwordSignIn(world.hangar, { email: 'alice@example.com', password: DEFAULT_PASSWORD });
    const second = await passwordSignIn(world.hangar, { email: 'alice@example.com', password: DEFAULT_PASSWORD });
    const a = await world.hangar.authenticate.execute({ authorization: `Bearer ${first.session.accessToken}` });
    const b = await world.hangar.authenticate.execute({ authorization: `Bearer ${second.session.accessToken}` });
    expect(a.kind === 'session' && b.kind === 'session' && a.sessionId !== b.sessionId).to.equal(true);
    expect(first.session.refreshToken).to.not.equal(second.session.refreshToken);
  });
});
