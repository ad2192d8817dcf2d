import { expect } from 'chai';
import { OtplibTotp } from '../../adapters/crypto/otplib-totp.js';
import { call, expectError, RELAXED_RATE_LIMITS, signUp, startTestServer, type TestServer } from '../support/http-harness.js';
import { FixedClock } from '../support/fixed-clock.js';

const totp = new OtplibTotp();
const STEP_MS = 30_000;
const DAY_MS = 86_400_000;

describe('HTTP: two-factor sign-in (TOTP) and device sessions', () => {
  let server: TestServer;
  const clock = new FixedClock(new Date(Math.floor(Date.now() / STEP_MS) * STEP_MS + 1000));
  before(async () => {
    server = await startTestServer({ ...RELAXED_RATE_LIMITS, SESSION_IDLE_DAYS: '2' }, {}, { clock });
  });
  after(async () => {
    await server.stop();
    expect(server.internalErrors).to.deep.equal([]);
  });

  const login = (email: string, headers: Record<string, string> = {}) =>
    call(server.api, '/auth/login', { method: 'POST', json: { email, password: 'correct horse' }, headers });
  const codeNow = (secret: string) => totp.codeAt({ secret, at: clock.now() });

  /** Signs up `email` and turns TOTP on; returns the secret, the recovery codes and the first session's token. */
  async function enrolled(email: string) {
    const account = await signUp(server, email);
    const started = await call(server.api, '/auth/mfa/totp', { method: 'POST', token: account.accessToken });
    expect(started.status).to.equal(200);
    const { secret, otpauth_uri } = started.body;
    expect(otpauth_uri).to.equal(`otpauth://totp/Hangar:${encodeURIComponent(email)}?secret=${secret}&issuer=Hangar`);
    const confirmed = await call(server.api, '/auth/mfa/totp/verify', { method: 'POST', token: account.accessToken, json: { code: await codeNow(secret) } });
    expect(confirmed.status).to.equal(200);
    clock.advance(STEP_MS);
    return { ...account, secret, recoveryCodes: confirmed.body.recovery_codes as string[] };
  }

  it('enrols, then login answers { mfa_required, mfa_token } without tokens, and /auth/mfa/verify completes it like a login', async () => {
    const alice = await enrolled('alice@example.com');
    expect(alice.recoveryCodes).to.have.length(10);
    expect((await call(server.api, '/auth/mfa', { token: alice.accessToken })).body).to.deep.equal({ totp: 'on', recovery_codes_left: 10 });
    const first = await login('alice@example.com');
    expect(first.status).to.equal(200);
    expect(first.body).to.have.keys('mfa_required', 'mfa_token', 'expires_at');
    expect(first.body.mfa_required).to.equal(true);
    const code = await codeNow(alice.secret);
    const done = await call(server.api, '/auth/mfa/verify', { method: 'POST', json: { mfa_token: first.body.mfa_token, code } });
    expect(done.status).to.equal(200);
    expect(done.body).to.have.keys('user', 'session');
    expect((await call(server.api, '/settings', { token: done.body.session.access_token })).status).to.equal(200);
    // The same code again (replay), and the used mfa_token again.
    expectError(
      await call(server.api, '/auth/mfa/verify', { method: 'POST', json: { mfa_token: (await login('alice@example.com')).body.mfa_token, code } }),
      400,
      'INVALID_MFA_CODE',
    );
    expectError(
      await call(server.api, '/auth/mfa/verify', { method: 'POST', json: { mfa_token: first.body.mfa_token, code: alice.recoveryCodes[0] } }),
      401,
      'INVALID_MFA_TOKEN',
    );
  });

  it('accepts a recovery code once, refuses an expired mfa_token, and turns off only with a current code', async () => {
    const bob = await enrolled('bob@example.com');
    const token = (await login('bob@example.com')).body.mfa_token;
    expect((await call(server.api, '/auth/mfa/verify', { method: 'POST', json: { mfa_token: token, code: bob.recoveryCodes[3] } })).status).to.equal(200);
    expectError(
      await call(server.api, '/auth/mfa/verify', {
        method: 'POST',
        json: { mfa_token: (await login('bob@example.com')).body.mfa_token, code: bob.recoveryCodes[3] },
      }),
      400,
      'INVALID_MFA_CODE',
    );
    const stale = (await login('bob@example.com')).body.mfa_token;
    clock.advance(5 * 60_000);
    expectError(
      await call(server.api, '/auth/mfa/verify', { method: 'POST', json: { mfa_token: stale, code: await codeNow(bob.secret) } }),
      401,
      'INVALID_MFA_TOKEN',
    );
    expectError(await call(server.api, '/auth/mfa/totp', { method: 'DELETE', token: bob.accessToken, json: { code: '123' } }), 400, 'INVALID_MFA_CODE');
    expectError(await call(server.api, '/auth/mfa/totp', { method: 'POST', token: bob.accessToken }), 409, 'MFA_ALREADY_ENABLED');
    expect((await call(server.api, '/auth/mfa/totp', { method: 'DELETE', token: bob.accessToken, json: { code: await codeNow(bob.secret) } })).status).to.equal(
      204,
    );
    const plain = await login('bob@example.com');
    expect(plain.body).to.have.keys('user', 'session');
  });

  it('rate-limits codes per account: 429 after 5 wrong ones, whatever the mfa_token', async () => {
    const carol = await enrolled('carol@example.com');
    for (let i = 0; i < 5; i++) {
      expectError(
        await call(server.api, '/auth/mfa/verify', {
          method: 'POST',
          json: { mfa_token: (await login('carol@example.com')).body.mfa_token, code: `nope-${i}` },
        }),
        400,
        'INVALID_MFA_CODE',
      );
    }
    const limited = await call(server.api, '/auth/mfa/verify', {
      method: 'POST',
      json: { mfa_token: (await login('carol@example.com')).body.mfa_token, code: await codeNow(carol.secret) },
    });
    expectError(limited, 429, 'RATE_LIMITED');
  });

  it('lists sessions with user agent, IP and the current one; ending one refuses its tokens at once', async () => {
    const dave = await signUp(server, 'dave@example.com');
    const phone = (await login('dave@example.com', { 'user-agent': 'Phone/1.0' })).body.session;
    const list = await call(server.api, '/auth/sessions', { token: dave.accessToken });
    expect(list.status).to.equal(200);
    const sessions = list.body.sessions as {
      id: string;
      user_agent: string | null;
      ip: string | null;
      current: boolean;
      created_at: string;
      last_used_at: string;
    }[];
    const mine = sessions.filter((s) => s.current);
    expect(mine).to.have.length(1);
    const phoneSession = sessions.find((s) => s.user_agent === 'Phone/1.0');
    expect(phoneSession, JSON.stringify(sessions)).to.not.equal(undefined);
    expect(phoneSession!.ip).to.match(/127\.0\.0\.1|::1/);
    expect(phoneSession!.current).to.equal(false);
    expect((await call(server.api, '/auth/sessions', { token: phone.access_token })).body.sessions.find((s: { current: boolean }) => s.current).id).to.equal(
      phoneSession!.id,
    );

    expect((await call(server.api, `/auth/sessions/${phoneSession!.id}`, { method: 'DELETE', token: dave.accessToken })).status).to.equal(204);
    expectError(await call(server.api, '/settings', { token: phone.access_token }), 401, 'UNAUTHORIZED');
    expectError(await call(server.api, '/auth/refresh', { method: 'POST', json: { refresh_token: phone.refresh_token } }), 401, 'INVALID_REFRESH_TOKEN');
    expectError(await call(server.api, `/auth/sessions/${phoneSession!.id}`, { method: 'DELETE', token: dave.accessToken }), 404, 'SESSION_NOT_FOUND');
    const erin = await signUp(server, 'erin@example.com');
    const daveCurrent = mine[0].id;
    expectError(await call(server.api, `/auth/sessions/${daveCurrent}`, { method: 'DELETE', token: erin.accessToken }), 404, 'SESSION_NOT_FOUND');
    expect((await call(server.api, '/settings', { token: dave.accessToken })).status).to.equal(200);
  });

  it('ends a session idle past SESSION_IDLE_DAYS: its refresh token is refused and it is no longer listed', async () => {
    const frank = await signUp(server, 'frank@example.com');
    const other = (await login('frank@example.com')).body.session;
    clock.advance(2 * DAY_MS - 60_000);
    const renewed = (await call(server.api, '/auth/refresh', { method: 'POST', json: { refresh_token: other.refresh_token } })).body.session;
    clock.advance(120_000);
    expectError(await call(server.api, '/auth/refresh', { method: 'POST', json: { refresh_token: frank.refreshToken } }), 401, 'INVALID_REFRESH_TOKEN');
    const listed = await call(server.api, '/auth/sessions', { token: renewed.access_token });
    expect(listed.body.sessions).to.have.length(1);
    expect(listed.body.sessions[0].current).to.equal(true);
  });
});
