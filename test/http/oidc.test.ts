import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { call, expectError, signUp, startTestServer, type TestServer } from '../support/http-harness.js';
import {
  browseUntil,
  startTestOidcProvider,
  TEST_CLIENT_ID,
  TEST_CLIENT_SECRET,
  type TestOidcAccount,
  type TestOidcProvider,
} from '../support/oidc-test-provider.js';
import { freshServerDatabase, type ServerDatabase } from '../support/test-database.js';

/** PUBLIC_API_URL of the test servers: the redirect URI registered at the provider is under it. */
const PUBLIC_API = 'http://api.hangar.test';
const CALLBACK = `${PUBLIC_API}/auth/oidc/callback`;

describe('single sign-on (OIDC) over HTTP, two server processes on one database', function () {
  this.timeout(30_000);
  let idp: TestOidcProvider;
  let dir: string;
  let database: ServerDatabase;
  let first: TestServer;
  let second: TestServer;

  before(async () => {
    idp = await startTestOidcProvider();
    idp.useRedirectUri(CALLBACK);
    dir = await mkdtemp(path.join(tmpdir(), 'hangar-oidc-'));
    database = await freshServerDatabase(dir);
    const env = { ...database.env, OIDC_ISSUER: idp.issuer, OIDC_CLIENT_ID: TEST_CLIENT_ID, OIDC_CLIENT_SECRET: TEST_CLIENT_SECRET, OIDC_NAME: 'Test IdP' };
    first = await startTestServer(env);
    second = await startTestServer(env);
  });
  after(async () => {
    await first?.stop();
    await second?.stop();
    await database?.drop();
    await idp?.close();
    await rm(dir, { recursive: true, force: true });
  });

  /**
   * The browser's way: start on `start`, through the provider, back to the callback, which a load
   * balancer hands to `callbackOn`; returns the callback's answer.
   */
  async function signInAt(start: TestServer, callbackOn: TestServer, account: TestOidcAccount) {
    idp.signInAs = account;
    const started = await call(start.api, '/auth/oidc/start');
    expect(started.status).to.equal(302);
    const callback = await browseUntil(started.headers.get('location')!, (url) => url.href.startsWith(CALLBACK));
    return call(callbackOn.api, `${callback.pathname}${callback.search}`);
  }

  /** The parameters of the dashboard address `/#/sso?…` a redirect points to. */
  function ssoParams(location: string | null): URLSearchParams {
    expect(location).to.match(/^\/#\/sso\?/);
    return new URLSearchParams(location!.slice('/#/sso?'.length));
  }

  it('tells the dashboard that OIDC is on, its name, and the registration mode', async () => {
    const providers = await call(first.api, '/auth/providers');
    expect(providers.status).to.equal(200);
    expect(providers.body).to.deep.equal({ oidc: { name: 'Test IdP', start_url: '/auth/oidc/start' }, registration: 'open' });
  });

  it('signs in with the callback on the other process, handing over a code (no token in any URL) that the dashboard exchanges once', async () => {
    const back = await signInAt(first, second, { sub: 'http-alice', email: 'alice@example.com', email_verified: true });
    expect(back.status).to.equal(302);
    expect(back.headers.get('cache-control')).to.equal('no-store');
    const code = ssoParams(back.headers.get('location')).get('code')!;
    expect(code).to.match(/^[0-9A-Za-z]{40}$/);

    const exchanged = await call(first.api, '/auth/oidc/exchange', { method: 'POST', json: { code } });
    expect(exchanged.status, JSON.stringify(exchanged.body)).to.equal(200);
    expect(exchanged.body.user.email).to.equal('alice@example.com');
    const profile = await call(second.api, '/profile', { token: exchanged.body.session.access_token });
    expect(profile.status).to.equal(200);
    expectError(await call(second.api, '/auth/oidc/exchange', { method: 'POST', json: { code } }), 400, 'INVALID_TOKEN');

    // Neither the session's tokens nor the hand-over code show up in either server's log.
    const logged = JSON.stringify([...first.log.entries, ...second.log.entries]);
    expect(logged).to.not.include(exchanged.body.session.access_token);
    expect(logged).to.not.include(exchanged.body.session.refresh_token);
    expect(logged).to.not.include(code);

    // The second sign-in finds the same account.
    const again = await signInAt(second, first, { sub: 'http-alice', email: 'alice@example.com', email_verified: true });
    const session = await call(first.api, '/auth/oidc/exchange', { method: 'POST', json: { code: ssoParams(again.headers.get('location')).get('code') } });
    expect(session.body.user.id).to.equal(exchanged.body.user.id);
  });

  it('links the sign-in to the confirmed account with the same address', async () => {
    const bob = await signUp(first, 'bob@example.com');
    const back = await signInAt(first, second, { sub: 'http-bob', email: 'bob@example.com', email_verified: true });
    const session = await call(second.api, '/auth/oidc/exchange', { method: 'POST', json: { code: ssoParams(back.headers.get('location')).get('code') } });
    expect(session.body.user.id).to.equal(bob.userId);
  });

  it('sends the browser back to the dashboard with the error code for an unverified address and an unknown state', async () => {
    const unverified = await signInAt(first, second, { sub: 'http-eve', email: 'eve@example.com', email_verified: false });
    const params = ssoParams(unverified.headers.get('location'));
    expect(params.get('error')).to.equal('OIDC_EMAIL_UNVERIFIED');
    expect([...params.keys()], 'the stable code only: no message in the URL').to.deep.equal(['error']);

    const forged = await call(second.api, '/auth/oidc/callback?code=abc&state=forged');
    expect(ssoParams(forged.headers.get('location')).get('error')).to.equal('OIDC_STATE_INVALID');
  });

  it('refuses a made-up hand-over code', async () => {
    expectError(await call(first.api, '/auth/oidc/exchange', { method: 'POST', json: { code: 'x'.repeat(40) } }), 400, 'INVALID_TOKEN');
  });
});

describe('single sign-on (OIDC) off', () => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer({ REGISTRATION: 'closed' });
  });
  after(async () => {
    await server?.stop();
  });

  it('says so on GET /auth/providers, and /auth/oidc/start sends the browser back with OIDC_NOT_CONFIGURED', async () => {
    expect((await call(server.api, '/auth/providers')).body).to.deep.equal({ oidc: null, registration: 'closed' });
    const started = await call(server.api, '/auth/oidc/start');
    expect(started.status).to.equal(302);
    expect(started.headers.get('location')).to.equal('/#/sso?error=OIDC_NOT_CONFIGURED');
  });
});

describe('single sign-on (OIDC) with the provider unreachable', () => {
  let server: TestServer;

  before(async () => {
    // A port nobody listens on: discovery fails with the network's own words (`fetch failed`).
    server = await startTestServer({ OIDC_ISSUER: 'http://127.0.0.1:9/', OIDC_CLIENT_ID: TEST_CLIENT_ID, OIDC_CLIENT_SECRET: TEST_CLIENT_SECRET });
  });
  after(async () => {
    await server?.stop();
  });

  it('sends the browser back with the stable code alone, and the failure’s detail to the log', async () => {
    const started = await call(server.api, '/auth/oidc/start');
    expect(started.status).to.equal(302);
    expect(started.headers.get('location')).to.equal('/#/sso?error=OIDC_PROVIDER_ERROR');
    const logged = server.log.entries.find((entry) => entry.event === 'oidc_sign_in_refused');
    expect(logged?.level).to.equal('warn');
    expect(logged?.fields).to.include({ step: 'start', code: 'OIDC_PROVIDER_ERROR' });
    expect(String(logged?.fields.detail)).to.match(/could not be reached/);
  });
});
