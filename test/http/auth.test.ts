import { expect } from 'chai';
import { call, expectError, mailedToken, outbox, signUp, startTestServer, type TestServer } from '../support/http-harness.js';

describe('HTTP: registration, confirmation, login and sessions', () => {
  let server: TestServer;
  before(async () => {
    // A reuse interval of 0: a rotated refresh token presented again is theft at once (the interval has its own tests in test/security/jwt.test.ts).
    server = await startTestServer({}, { refreshTokenReuseIntervalMs: 0 });
  });
  after(async () => {
    await server.stop();
    expect(server.internalErrors).to.deep.equal([]);
  });

  it('registers with 201 { message, user: { id, email } } and mails a confirmation link under PUBLIC_API_URL', async () => {
    const result = await call(server.api, '/auth/register', { method: 'POST', json: { email: 'Ada@Example.com ', password: 'secret1' } });
    expect(result.status).to.equal(201);
    expect(result.body.message).to.be.a('string');
    expect(result.body.user).to.have.keys('id', 'email');
    expect(result.body.user.email).to.equal('ada@example.com');
    const [mail] = await outbox(server, 'ada@example.com');
    expect(mail).to.have.keys('to', 'subject', 'text', 'html', 'created_at');
    expect(mail.text).to.match(/http:\/\/api\.hangar\.test\/auth\/confirm\?token=[0-9A-Za-z]+/);
    expect(mail.created_at).to.match(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });

  it('refuses a bad e-mail, a 5-character password and a foreign redirect_to with 400 and distinct codes', async () => {
    expectError(await call(server.api, '/auth/register', { method: 'POST', json: { email: 'not-an-email', password: 'secret1' } }), 400, 'INVALID_EMAIL');
    expectError(await call(server.api, '/auth/register', { method: 'POST', json: { email: 'b@example.com', password: '12345' } }), 400, 'PASSWORD_TOO_SHORT');
    for (const redirect of [
      'https://app.example.com@evil.example.net/welcome',
      'https://app.example.com.evil.net/welcome',
      'https://app.example.com/other',
      '//evil.example.net/',
    ]) {
      expectError(
        await call(server.api, '/auth/register', { method: 'POST', json: { email: 'c@example.com', password: 'secret1', redirect_to: redirect } }),
        400,
        'INVALID_REDIRECT_URL',
      );
    }
    expectError(await call(server.api, '/auth/register', { method: 'POST', json: { email: 'c@example.com' } }), 400, 'VALIDATION_FAILED');
    expect(await outbox(server, 'c@example.com', 1, 300)).to.have.length(0);
  });

  it('answers 415 for a non-JSON body and 400 for malformed JSON', async () => {
    expectError(
      await call(server.api, '/auth/login', { method: 'POST', body: 'email=a', headers: { 'content-type': 'application/x-www-form-urlencoded' } }),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    );
    expectError(
      await call(server.api, '/auth/login', { method: 'POST', body: '{"email":', headers: { 'content-type': 'application/json' } }),
      400,
      'VALIDATION_FAILED',
    );
  });

  it('refuses login before confirmation with 403 EMAIL_NOT_VERIFIED, but only with the right password', async () => {
    await call(server.api, '/auth/register', { method: 'POST', json: { email: 'd@example.com', password: 'secret1' } });
    expectError(
      await call(server.api, '/auth/login', { method: 'POST', json: { email: 'd@example.com', password: 'wrong-password' } }),
      401,
      'INVALID_CREDENTIALS',
    );
    expectError(await call(server.api, '/auth/login', { method: 'POST', json: { email: 'd@example.com', password: 'secret1' } }), 403, 'EMAIL_NOT_VERIFIED');
    expectError(
      await call(server.api, '/auth/login', { method: 'POST', json: { email: 'nobody@example.com', password: 'secret1' } }),
      401,
      'INVALID_CREDENTIALS',
    );
  });

  it('confirms from the mailed link: 302 to redirect_to with the session in the fragment; the link works once', async () => {
    await call(server.api, '/auth/register', {
      method: 'POST',
      json: { email: 'e@example.com', password: 'secret1', redirect_to: 'https://app.example.com/welcome/next' },
    });
    const token = await mailedToken(server, 'e@example.com', '/auth/confirm');
    const confirmed = await call(server.api, `/auth/confirm?token=${token}`);
    expect(confirmed.status).to.equal(302);
    const location = new URL(confirmed.headers.get('location')!);
    expect(location.origin + location.pathname).to.equal('https://app.example.com/welcome/next');
    const fragment = new URLSearchParams(location.hash.slice(1));
    expect(fragment.get('token_type')).to.equal('bearer');
    const settings = await call(server.api, '/settings', { token: fragment.get('access_token')! });
    expect(settings.status).to.equal(200);
    const again = await call(server.api, `/auth/confirm?token=${token}`);
    expect(again.status).to.equal(400);
    expect(again.headers.get('content-type')).to.match(/text\/html/);
  });

  it('logs in with 200 { user with timestamps, session } after confirmation', async () => {
    await signUp(server, 'f@example.com', 'secret1');
    const login = await call(server.api, '/auth/login', { method: 'POST', json: { email: 'F@example.com', password: 'secret1' } });
    expect(login.status).to.equal(200);
    expect(login.body.user).to.have.keys('id', 'email', 'created_at', 'updated_at');
    expect(login.body.user.created_at).to.match(/\.\d{3}Z$/);
    expect(login.body.session).to.include({ expires_in: 3600, token_type: 'bearer' });
    expect(login.body.session.expires_at).to.be.closeTo(Math.floor(Date.now() / 1000) + 3600, 5);
  });

  it('does not reveal an existing address at registration: same 201 shape, no second account, the owner is told by e-mail', async () => {
    await signUp(server, 'g@example.com', 'secret1');
    const again = await call(server.api, '/auth/register', { method: 'POST', json: { email: 'g@example.com', password: 'another-password' } });
    expect(again.status).to.equal(201);
    expect(again.body.user).to.have.keys('id', 'email');
    const messages = await outbox(server, 'g@example.com', 2);
    expect(messages).to.have.length(2);
    expect(messages[1].subject).to.not.equal(messages[0].subject);
    const login = await call(server.api, '/auth/login', { method: 'POST', json: { email: 'g@example.com', password: 'secret1' } });
    expect(login.status).to.equal(200);
    expectError(
      await call(server.api, '/auth/login', { method: 'POST', json: { email: 'g@example.com', password: 'another-password' } }),
      401,
      'INVALID_CREDENTIALS',
    );
  });

  it('rotates refresh tokens; reusing a rotated one revokes the whole session', async () => {
    const account = await signUp(server, 'h@example.com');
    const first = await call(server.api, '/auth/refresh', { method: 'POST', json: { refresh_token: account.refreshToken } });
    expect(first.status).to.equal(200);
    expect(first.body.session.refresh_token).to.not.equal(account.refreshToken);
    expect((await call(server.api, '/settings', { token: first.body.session.access_token })).status).to.equal(200);
    expectError(await call(server.api, '/auth/refresh', { method: 'POST', json: { refresh_token: account.refreshToken } }), 401, 'INVALID_REFRESH_TOKEN');
    expectError(
      await call(server.api, '/auth/refresh', { method: 'POST', json: { refresh_token: first.body.session.refresh_token } }),
      401,
      'INVALID_REFRESH_TOKEN',
    );
    expectError(await call(server.api, '/settings', { token: first.body.session.access_token }), 401, 'UNAUTHORIZED');
    expectError(await call(server.api, '/auth/refresh', { method: 'POST', json: { refresh_token: 'unknown' } }), 401, 'INVALID_REFRESH_TOKEN');
    // The account's activity log says why the session ended.
    const again = await call(server.api, '/auth/login', { method: 'POST', json: { email: 'h@example.com', password: 'correct horse' } });
    const sessionId = JSON.parse(Buffer.from(first.body.session.access_token.split('.')[1], 'base64url').toString()).sid;
    let logged: any[] = [];
    for (let i = 0; i < 50 && !logged.some((entry) => entry.metadata.reason === 'refresh_token_reuse'); i++) {
      logged = (await call(server.api, '/logs?kind=actions&limit=100', { token: again.body.session.access_token })).body.logs ?? [];
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const entry = logged.find((one) => one.metadata.reason === 'refresh_token_reuse');
    expect(entry, JSON.stringify(logged)).to.deep.include({ method: 'POST', path: '/auth/refresh', status_code: 401 });
    expect(entry.metadata.session_id).to.equal(sessionId);
  });

  it('logs out with 204 and the access token stops working', async () => {
    const account = await signUp(server, 'i@example.com');
    const out = await call(server.api, '/auth/logout', { method: 'POST', token: account.accessToken });
    expect(out.status).to.equal(204);
    expectError(await call(server.api, '/settings', { token: account.accessToken }), 401, 'UNAUTHORIZED');
    expectError(await call(server.api, '/auth/refresh', { method: 'POST', json: { refresh_token: account.refreshToken } }), 401, 'INVALID_REFRESH_TOKEN');
  });

  it('answers forgot-password the same for known and unknown addresses, and mails only the known one', async () => {
    await signUp(server, 'j@example.com', 'old-password');
    const known = await call(server.api, '/auth/forgot-password', { method: 'POST', json: { email: 'j@example.com' } });
    const unknown = await call(server.api, '/auth/forgot-password', { method: 'POST', json: { email: 'nobody-here@example.com' } });
    expect(known.status).to.equal(200);
    expect(unknown.status).to.equal(200);
    expect(known.body).to.deep.equal(unknown.body);
    expect(await mailedToken(server, 'j@example.com', '/auth/reset-password')).to.match(/^[0-9A-Za-z]+$/);
    expect(await outbox(server, 'nobody-here@example.com', 1, 300)).to.have.length(0);
  });

  it('resets the password from the mailed link: the dashboard screen, new password works, old sessions revoked, link single-use', async () => {
    const account = await signUp(server, 'k@example.com', 'old-password');
    await call(server.api, '/auth/forgot-password', { method: 'POST', json: { email: 'k@example.com' } });
    const mail = (await outbox(server, 'k@example.com', 2)).find((m) => m.subject === 'Reset your password');
    expect(mail?.text)
      .to.match(/^http:\/\/api\.hangar\.test\/#\/reset\?token=[0-9A-Za-z]+$/m)
      .and.include('API keys keep working');
    const token = await mailedToken(server, 'k@example.com', '/auth/reset-password');
    const page = await call(server.api, `/auth/reset-password?token=${token}`);
    expect(page.status, 'a link mailed before points at the dashboard’s screen').to.equal(302);
    expect(page.headers.get('location')).to.equal(`/#/reset?token=${token}`);
    expectError(await call(server.api, '/auth/reset-password', { method: 'POST', json: { token, password: '12345' } }), 400, 'PASSWORD_TOO_SHORT');
    const reset = await call(server.api, '/auth/reset-password', { method: 'POST', json: { token, password: 'new-password' } });
    expect(reset.status).to.equal(200);
    expect(reset.body.message).to.be.a('string');
    expectError(await call(server.api, '/auth/reset-password', { method: 'POST', json: { token, password: 'newer-password' } }), 400, 'INVALID_TOKEN');
    expectError(await call(server.api, '/settings', { token: account.accessToken }), 401, 'UNAUTHORIZED');
    expectError(
      await call(server.api, '/auth/login', { method: 'POST', json: { email: 'k@example.com', password: 'old-password' } }),
      401,
      'INVALID_CREDENTIALS',
    );
    expect((await call(server.api, '/auth/login', { method: 'POST', json: { email: 'k@example.com', password: 'new-password' } })).status).to.equal(200);
  });

  it('keeps API keys working after a reset by default, and revokes them all with revoke_api_keys: true', async () => {
    const account = await signUp(server, 'keys-reset@example.com', 'old-password');
    const makeKey = async () =>
      (await call(server.api, '/auth/api-keys', { method: 'POST', token: account.accessToken, json: { name: 'ci' } })).body.key as string;
    const kept = await makeKey();
    await call(server.api, '/auth/forgot-password', { method: 'POST', json: { email: 'keys-reset@example.com' } });
    const first = await mailedToken(server, 'keys-reset@example.com', '/auth/reset-password');
    const plain = await call(server.api, '/auth/reset-password', { method: 'POST', json: { token: first, password: 'new-password' } });
    expect(plain.status).to.equal(200);
    expect(plain.body).to.include({ revoked_api_keys: 0 });
    expect(plain.body.message).to.include('API keys keep working');
    expect((await call(server.api, '/files', { apiKey: kept })).status, 'the key survives a plain reset').to.equal(200);

    const session = (await call(server.api, '/auth/login', { method: 'POST', json: { email: 'keys-reset@example.com', password: 'new-password' } })).body
      .session;
    const another = (await call(server.api, '/auth/api-keys', { method: 'POST', token: session.access_token, json: { name: 'sharex' } })).body.key as string;
    await call(server.api, '/auth/forgot-password', { method: 'POST', json: { email: 'keys-reset@example.com' } });
    let second = first;
    for (let tries = 0; second === first && tries < 200; tries += 1) second = await mailedToken(server, 'keys-reset@example.com', '/auth/reset-password');
    const revoking = await call(server.api, '/auth/reset-password', {
      method: 'POST',
      json: { token: second, password: 'newer-password', revoke_api_keys: true },
    });
    expect(revoking.status).to.equal(200);
    expect(revoking.body).to.include({ revoked_api_keys: 2 });
    for (const key of [kept, another]) expectError(await call(server.api, '/files', { apiKey: key }), 401, 'UNAUTHORIZED');
    expectError(
      await call(server.api, '/auth/reset-password', { method: 'POST', json: { token: 'x', password: 'newer-password', revoke_api_keys: 'yes' } }),
      400,
      'VALIDATION_FAILED',
    );
  });

  it('sends at most one e-mail per address and purpose per minute, silently: a reset right after the confirmation e-mail goes out, a second reset does not', async () => {
    const limited = await startTestServer({}, { emailMinIntervalMs: 60_000 });
    try {
      await call(limited.api, '/auth/register', { method: 'POST', json: { email: 'l@example.com', password: 'secret1' } });
      const first = await call(limited.api, '/auth/forgot-password', { method: 'POST', json: { email: 'l@example.com' } });
      expect(first.status).to.equal(200);
      expect(await outbox(limited, 'l@example.com', 2)).to.have.length(2);
      const again = await call(limited.api, '/auth/forgot-password', { method: 'POST', json: { email: 'l@example.com' } });
      expect(again.status).to.equal(200);
      expect(again.body).to.deep.equal(first.body);
      expect(again.body.message).to.include('wait a minute and try again');
      const resent = await call(limited.api, '/auth/resend-confirmation', { method: 'POST', json: { email: 'l@example.com' } });
      expect(resent.status).to.equal(200);
      expect(await outbox(limited, 'l@example.com', 3, 300)).to.have.length(2);
    } finally {
      await limited.stop();
    }
  });

  it('resends the confirmation link to an unconfirmed account, answering known, confirmed and unknown addresses alike', async () => {
    await call(server.api, '/auth/register', { method: 'POST', json: { email: 'r@example.com', password: 'secret1' } });
    await signUp(server, 'r-confirmed@example.com');
    const first = await mailedToken(server, 'r@example.com', '/auth/confirm');
    const answers = [];
    for (const email of ['r@example.com', 'r-confirmed@example.com', 'r-nobody@example.com']) {
      const answer = await call(server.api, '/auth/resend-confirmation', { method: 'POST', json: { email } });
      expect(answer.status).to.equal(200);
      answers.push(answer.body);
    }
    expect(answers[1]).to.deep.equal(answers[0]);
    expect(answers[2]).to.deep.equal(answers[0]);
    expect(answers[0].message).to.include('wait a minute and try again');
    const mails = await outbox(server, 'r@example.com', 2);
    expect(mails.map((m) => m.subject)).to.deep.equal(['Confirm your e-mail address', 'Confirm your e-mail address']);
    const second = await mailedToken(server, 'r@example.com', '/auth/confirm');
    expect(second).to.not.equal(first);
    expect((await call(server.api, `/auth/confirm?token=${second}`)).status).to.equal(302);
    expect((await call(server.api, '/auth/login', { method: 'POST', json: { email: 'r@example.com', password: 'secret1' } })).status).to.equal(200);
    expect(await outbox(server, 'r-confirmed@example.com', 2, 300)).to.have.length(1);
    expect(await outbox(server, 'r-nobody@example.com', 1, 300)).to.have.length(0);
    expectError(await call(server.api, '/auth/resend-confirmation', { method: 'POST', json: { email: 'not-an-email' } }), 400, 'INVALID_EMAIL');
    expectError(await call(server.api, '/auth/resend-confirmation', { method: 'POST', json: {} }), 400, 'VALIDATION_FAILED');
  });

  it('gives every response an X-Request-Id and unknown routes 404 NOT_FOUND', async () => {
    const result = await call(server.api, '/nowhere');
    expectError(result, 404, 'NOT_FOUND');
    expect(result.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
    expectError(await call(server.api, '/files', { method: 'PUT' }), 405, 'METHOD_NOT_ALLOWED');
  });
});
