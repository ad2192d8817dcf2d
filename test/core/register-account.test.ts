import { expect } from 'chai';
import { createMemoryHangar, DEFAULT_PASSWORD, expectDomainError, tokenIn, UUID_PATTERN } from '../support/memory-hangar.js';

describe('RegisterAccount', () => {
  it('answers { message, user: { id, email } } and stores an unconfirmed user with a hashed password', async () => {
    const { hangar, repos } = createMemoryHangar();
    const result = await hangar.registerAccount.execute({ email: 'alice@example.com', password: 'secret-pw' });

    expect(Object.keys(result).sort()).to.deep.equal(['message', 'user']);
    expect(result.message).to.be.a('string').and.not.equal('');
    expect(Object.keys(result.user).sort()).to.deep.equal(['email', 'id']);
    expect(result.user.id).to.match(UUID_PATTERN);
    expect(result.user.email).to.equal('alice@example.com');

    const stored = await repos.users.findByEmail('alice@example.com');
    expect(stored?.id).to.equal(result.user.id);
    expect(stored?.emailConfirmedAt).to.equal(null);
    expect(stored?.passwordHash).to.match(/^\$argon2id\$/);
    expect(stored?.passwordHash).to.not.include('secret-pw');
  });

  it('mails a confirmation link under PUBLIC_API_URL/auth/confirm to the address', async () => {
    const { hangar, mailer } = createMemoryHangar();
    await hangar.registerAccount.execute({ email: 'alice@example.com', password: 'secret-pw' });

    expect(mailer.messages).to.have.length(1);
    const [message] = mailer.messages;
    expect(message.to).to.equal('alice@example.com');
    expect(message.text).to.include('http://api.test/auth/confirm?token=');
    expect(message.html).to.include('http://api.test/auth/confirm?token=');
    expect(tokenIn(message, 'confirm')).to.match(/^[0-9A-Za-z]{40}$/);
  });

  it('normalises the e-mail address (case and surrounding spaces) before storing and mailing', async () => {
    const { hangar, repos, mailer } = createMemoryHangar();
    const result = await hangar.registerAccount.execute({ email: '  Alice@Example.COM ', password: 'secret-pw' });

    expect(result.user.email).to.equal('alice@example.com');
    expect((await repos.users.findByEmail('alice@example.com'))?.id).to.equal(result.user.id);
    expect(mailer.messages.map((m) => m.to)).to.deep.equal(['alice@example.com']);
  });

  for (const email of ['not-an-email', 'alice@localhost', 'alice@@example.com', 'al ice@example.com', '', `${'a'.repeat(250)}@example.com`]) {
    it(`refuses the e-mail address ${JSON.stringify(email.length > 40 ? `${email.slice(0, 20)}…` : email)} with INVALID_EMAIL, creating and mailing nothing`, async () => {
      const { hangar, repos, mailer } = createMemoryHangar();
      await expectDomainError(hangar.registerAccount.execute({ email, password: 'secret-pw' }), 'INVALID_EMAIL');
      expect(await repos.users.findByEmail(email.trim().toLowerCase())).to.equal(undefined);
      expect(mailer.messages).to.be.empty;
    });
  }

  it('refuses a 5-character password with PASSWORD_TOO_SHORT, creating and mailing nothing', async () => {
    const { hangar, repos, mailer } = createMemoryHangar();
    await expectDomainError(hangar.registerAccount.execute({ email: 'alice@example.com', password: '12345' }), 'PASSWORD_TOO_SHORT');
    expect(await repos.users.findByEmail('alice@example.com')).to.equal(undefined);
    expect(mailer.messages).to.be.empty;
  });

  it('accepts a 6-character password', async () => {
    const { hangar, repos } = createMemoryHangar();
    await hangar.registerAccount.execute({ email: 'alice@example.com', password: '123456' });
    expect(await repos.users.findByEmail('alice@example.com')).to.not.equal(undefined);
  });

  it('counts password length in code points: 5 emoji are too short, 6 are enough', async () => {
    const { hangar } = createMemoryHangar();
    await expectDomainError(hangar.registerAccount.execute({ email: 'a@example.com', password: '😀'.repeat(5) }), 'PASSWORD_TOO_SHORT');
    await hangar.registerAccount.execute({ email: 'b@example.com', password: '😀'.repeat(6) });
  });

  it('refuses a password over 1024 characters with PASSWORD_TOO_LONG', async () => {
    const { hangar, repos } = createMemoryHangar();
    await expectDomainError(hangar.registerAccount.execute({ email: 'alice@example.com', password: 'x'.repeat(1025) }), 'PASSWORD_TOO_LONG');
    expect(await repos.users.findByEmail('alice@example.com')).to.equal(undefined);
  });

  for (const redirectTo of [
    'https://app.example.com@evil.example.net/',
    'http://app.test@evil.example.net/welcome',
    'http://app.test.evil.net/welcome',
    'http://app.test/other',
    'http://app.test/welcomeX',
    'https://app.test/welcome',
    'http://user:pw@app.test/welcome',
    'javascript:alert(1)',
    '//app.test/welcome',
    '/welcome',
  ]) {
    it(`refuses redirect_to ${redirectTo} with INVALID_REDIRECT_URL, creating and mailing nothing`, async () => {
      const { hangar, repos, mailer } = createMemoryHangar();
      await expectDomainError(hangar.registerAccount.execute({ email: 'alice@example.com', password: 'secret-pw', redirectTo }), 'INVALID_REDIRECT_URL');
      expect(await repos.users.findByEmail('alice@example.com')).to.equal(undefined);
      expect(mailer.messages).to.be.empty;
    });
  }

  for (const redirectTo of ['http://app.test/welcome', 'http://app.test/welcome/next?step=2']) {
    it(`accepts redirect_to ${redirectTo} (under an allowed URL)`, async () => {
      const { hangar, mailer } = createMemoryHangar();
      await hangar.registerAccount.execute({ email: 'alice@example.com', password: 'secret-pw', redirectTo });
      expect(mailer.messages).to.have.length(1);
    });
  }

  it('for an address with a confirmed account: creates nothing, answers the same shape with another id, and mails the owner a different message', async () => {
    const world = createMemoryHangar();
    const { hangar, repos, mailer, clock } = world;
    const owner = await world.registerConfirmed('alice@example.com');
    const before = await repos.users.findByEmail('alice@example.com');
    const confirmation = mailer.messages[0];
    clock.advance(60_000);

    const result = await hangar.registerAccount.execute({ email: 'Alice@example.com', password: 'another-password' });

    expect(Object.keys(result).sort()).to.deep.equal(['message', 'user']);
    expect(result.user.email).to.equal('alice@example.com');
    expect(result.user.id).to.match(UUID_PATTERN);
    expect(result.user.id).to.not.equal(owner.userId);
    expect(await repos.users.findById(result.user.id)).to.equal(undefined);
    const after = await repos.users.findByEmail('alice@example.com');
    expect(after?.id).to.equal(owner.userId);
    expect(after?.passwordHash).to.equal(before?.passwordHash);

    expect(mailer.messages).to.have.length(2);
    const notice = mailer.messages[1];
    expect(notice.to).to.equal('alice@example.com');
    expect(notice.subject).to.not.equal(confirmation.subject);
    expect(notice.text).to.not.include('/auth/confirm?token=');
    expect(notice.text).to.include('http://api.test/#/reset?token=');

    // The owner's password is untouched: the stranger's password does not log in.
    await hangar.logIn.execute({ email: 'alice@example.com', password: DEFAULT_PASSWORD });
    await expectDomainError(hangar.logIn.execute({ email: 'alice@example.com', password: 'another-password' }), 'INVALID_CREDENTIALS');
  });

  it('answers the same message whether or not the address already has an account', async () => {
    const world = createMemoryHangar();
    await world.registerConfirmed('alice@example.com');
    const fresh = await world.hangar.registerAccount.execute({ email: 'bob@example.com', password: 'secret-pw' });
    const existing = await world.hangar.registerAccount.execute({ email: 'alice@example.com', password: 'secret-pw' });
    expect(existing.message).to.equal(fresh.message);
  });

  it('re-registering an unconfirmed address mails a new confirmation link and keeps the account and its password', async () => {
    const world = createMemoryHangar();
    const { hangar, repos, mailer, clock } = world;
    const first = await hangar.registerAccount.execute({ email: 'alice@example.com', password: 'first-password' });
    const firstToken = tokenIn(mailer.messages[0], 'confirm');
    clock.advance(60_000);

    const second = await hangar.registerAccount.execute({ email: 'alice@example.com', password: 'second-password' });

    expect(second.user.id).to.not.equal(first.user.id);
    expect((await repos.users.findByEmail('alice@example.com'))?.id).to.equal(first.user.id);
    expect(mailer.messages).to.have.length(2);
    const secondToken = tokenIn(mailer.messages[1], 'confirm');
    expect(secondToken).to.not.equal(firstToken);

    const confirmed = await hangar.confirmEmail.execute({ token: secondToken });
    expect(confirmed.userId).to.equal(first.user.id);
    await hangar.logIn.execute({ email: 'alice@example.com', password: 'first-password' });
    await expectDomainError(hangar.logIn.execute({ email: 'alice@example.com', password: 'second-password' }), 'INVALID_CREDENTIALS');
  });

  it('drops a second e-mail to the same address within a minute silently, and sends one once the minute has passed', async () => {
    const { hangar, mailer, clock } = createMemoryHangar();
    const first = await hangar.registerAccount.execute({ email: 'alice@example.com', password: 'secret-pw' });
    expect(mailer.messages).to.have.length(1);

    clock.advance(59_999);
    const again = await hangar.registerAccount.execute({ email: 'alice@example.com', password: 'secret-pw' });
    expect(again.message).to.equal(first.message);
    expect(again.user.email).to.equal('alice@example.com');
    expect(mailer.messages).to.have.length(1);

    clock.advance(1);
    await hangar.registerAccount.execute({ email: 'alice@example.com', password: 'secret-pw' });
    expect(mailer.messages).to.have.length(2);
    expect(mailer.messages[1].text).to.include('http://api.test/auth/confirm?token=');
  });

  it('takes the interval between e-mails from options.emailMinIntervalMs when given', async () => {
    const { hangar, mailer, clock } = createMemoryHangar({ emailMinIntervalMs: 10_000 });
    await hangar.registerAccount.execute({ email: 'alice@example.com', password: 'secret-pw' });
    clock.advance(9_999);
    await hangar.registerAccount.execute({ email: 'alice@example.com', password: 'secret-pw' });
    expect(mailer.messages).to.have.length(1);
    clock.advance(1);
    await hangar.registerAccount.execute({ email: 'alice@example.com', password: 'secret-pw' });
    expect(mailer.messages).to.have.length(2);
  });

  it('limits e-mails per address, not globally: another address is mailed at once', async () => {
    const { hangar, mailer } = createMemoryHangar();
    await hangar.registerAccount.execute({ email: 'alice@example.com', password: 'secret-pw' });
    await hangar.registerAccount.execute({ email: 'bob@example.com', password: 'secret-pw' });
    expect(mailer.messages.map((m) => m.to)).to.deep.equal(['alice@example.com', 'bob@example.com']);
  });
});
