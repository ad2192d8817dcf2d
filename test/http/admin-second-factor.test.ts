import { expect } from 'chai';
import { OtplibTotp } from '../../adapters/crypto/otplib-totp.js';
import { call, expectError, RELAXED_RATE_LIMITS, signUp, startTestServer, type TestServer } from '../support/http-harness.js';
import { FixedClock } from '../support/fixed-clock.js';
import { SoftAuthenticator } from '../support/soft-authenticator.js';

const totp = new OtplibTotp();
const STEP_MS = 30_000;
/** The origin of the harness's PUBLIC_API_URL, where the dashboard runs its ceremonies. */
const ORIGIN = 'http://api.hangar.test';
const PASSWORD = 'correct horse';

/**
 * "Admin routes need an admin session with a second factor if the admin has one enabled"
 * (docs/admin.md, "Who may call /admin"): a session that proved no second factor is refused once the
 * administrator has one, whether it was opened before the enrolment or not; the session that
 * enrolled the account's first factor, a sign-in with the factor, and admin-scoped keys keep working.
 */
describe('HTTP: the admin routes ask a second factor of an administrator who has one', function () {
  this.timeout(60_000);
  let server: TestServer;
  const clock = new FixedClock(new Date(Math.floor(Date.now() / STEP_MS) * STEP_MS + 1000));
  const authenticator = new SoftAuthenticator(ORIGIN);
  before(async () => {
    server = await startTestServer({ ...RELAXED_RATE_LIMITS, ADMIN_EMAILS: 'totp-admin@example.com,passkey-admin@example.com' }, {}, { clock });
  });
  after(async () => {
    await server.stop();
    expect(server.internalErrors).to.deep.equal([]);
  });

  const login = (email: string) => call(server.api, '/auth/login', { method: 'POST', json: { email, password: PASSWORD } });
  const adminUsers = (token: string) => call(server.api, '/admin/users', { token });

  it('refuses a session opened before the TOTP enrolment, keeps the enrolling one, and admits a sign-in with the code', async () => {
    const enrolling = await signUp(server, 'totp-admin@example.com');
    const earlier = (await login('totp-admin@example.com')).body.session as { access_token: string; refresh_token: string };
    const key = await call(server.api, '/auth/api-keys', { method: 'POST', token: enrolling.accessToken, json: { name: 'console', scopes: ['admin'] } });
    expect(key.status).to.equal(201);
    // Without a factor, any session of the administrator reaches the console.
    expect((await adminUsers(earlier.access_token)).status).to.equal(200);

    const started = await call(server.api, '/auth/mfa/totp', { method: 'POST', token: enrolling.accessToken });
    const secret = started.body.secret as string;
    const confirmed = await call(server.api, '/auth/mfa/totp/verify', {
      method: 'POST',
      token: enrolling.accessToken,
      json: { code: await totp.codeAt({ secret, at: clock.now() }) },
    });
    expect(confirmed.status).to.equal(200);
    clock.advance(STEP_MS);

    expect((await adminUsers(enrolling.accessToken)).status, 'the session that enrolled the factor').to.equal(200);
    const refused = await adminUsers(earlier.access_token);
    expectError(refused, 403, 'SECOND_FACTOR_REQUIRED');
    expect(refused.body.message).to.match(/sign in again/);
    // The rest of the account still answers that session, and a refresh keeps it as it was.
    expect((await call(server.api, '/profile', { token: earlier.access_token })).status).to.equal(200);
    const refreshed = await call(server.api, '/auth/refresh', { method: 'POST', json: { refresh_token: earlier.refresh_token } });
    expect(refreshed.status, JSON.stringify(refreshed.body)).to.equal(200);
    expectError(await adminUsers(refreshed.body.session.access_token), 403, 'SECOND_FACTOR_REQUIRED');
    // That session cannot add a passkey either: it would be a second factor it never proved.
    expectError(await call(server.api, '/auth/passkeys/registration/options', { method: 'POST', token: earlier.access_token }), 403, 'SECOND_FACTOR_REQUIRED');
    // A key with the admin scope is not a session: it keeps working.
    expect((await call(server.api, '/admin/users', { apiKey: key.body.key })).status).to.equal(200);

    const first = await login('totp-admin@example.com');
    const done = await call(server.api, '/auth/mfa/verify', {
      method: 'POST',
      json: { mfa_token: first.body.mfa_token, code: await totp.codeAt({ secret, at: clock.now() }) },
    });
    expect(done.status).to.equal(200);
    expect((await adminUsers(done.body.session.access_token)).status, 'a sign-in with the code').to.equal(200);
  });

  it('refuses a session opened before the first passkey, keeps the registering one, and admits a passkey sign-in', async () => {
    const registering = await signUp(server, 'passkey-admin@example.com');
    const earlier = (await login('passkey-admin@example.com')).body.session.access_token as string;
    const register = async (token: string) => {
      const options = await call(server.api, '/auth/passkeys/registration/options', { method: 'POST', token });
      const { credential, response } = authenticator.create(options.body);
      const verified = await call(server.api, '/auth/passkeys/registration/verify', { method: 'POST', token, json: { credential: response } });
      expect(verified.status, JSON.stringify(verified.body)).to.equal(201);
      return credential;
    };
    const credential = await register(registering.accessToken);

    expect((await adminUsers(registering.accessToken)).status, 'the session that registered the passkey').to.equal(200);
    expectError(await adminUsers(earlier), 403, 'SECOND_FACTOR_REQUIRED');
    // Nor may that session add a factor of its own (a passkey, or TOTP), which would then pass every
    // check that asks for one (docs/account-security.md, "Adding a factor"); nothing is stored.
    expectError(await call(server.api, '/auth/passkeys/registration/options', { method: 'POST', token: earlier }), 403, 'SECOND_FACTOR_REQUIRED');
    expectError(await call(server.api, '/auth/mfa/totp', { method: 'POST', token: earlier }), 403, 'SECOND_FACTOR_REQUIRED');
    expect((await call(server.api, '/auth/passkeys', { token: registering.accessToken })).body.passkeys).to.have.length(1);
    expectError(await adminUsers(earlier), 403, 'SECOND_FACTOR_REQUIRED');
    // The session that proved the factor may add another.
    await register(registering.accessToken);
    // A password sign-in of a passkey-only account opens a session without a second factor.
    expectError(await adminUsers((await login('passkey-admin@example.com')).body.session.access_token), 403, 'SECOND_FACTOR_REQUIRED');

    const options = await call(server.api, '/auth/passkeys/authentication/options', { method: 'POST', json: {} });
    const signedIn = await call(server.api, '/auth/passkeys/authentication/verify', {
      method: 'POST',
      json: { credential: authenticator.get(credential, options.body) },
    });
    expect(signedIn.status, JSON.stringify(signedIn.body)).to.equal(200);
    expect((await adminUsers(signedIn.body.session.access_token)).status, 'a passkey sign-in').to.equal(200);
  });

  it('still answers ADMIN_REQUIRED, not SECOND_FACTOR_REQUIRED, to an ordinary account', async () => {
    const someone = await signUp(server, 'someone@example.com');
    expectError(await adminUsers(someone.accessToken), 403, 'ADMIN_REQUIRED');
  });
});
