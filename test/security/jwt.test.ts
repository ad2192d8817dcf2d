import { expect } from 'chai';
import { SignJWT } from 'jose';
import { call, expectError, signUp, signUpWithKey, startTestServer, type TestServer } from '../support/http-harness.js';
import { scaled } from './scale.js';

const SECRET = 'test-secret-for-forgery-tests-0123456789';
const key = (secret: string) => new TextEncoder().encode(secret);
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

// OWASP ASVS 3.5.3 (tokens signed and checked), 3.1.1 (no tokens in URLs), 3.3.x (session
// invalidation), JWT BCP RFC 8725 §3.1–3.3 (pinned algorithm, audience, issuer): black-box, over HTTP.
describe('Security: session tokens (JWT) and refresh', function () {
  this.timeout(60_000);
  let server: TestServer;
  let account: { userId: string; accessToken: string; refreshToken: string };
  let sessionId: string;
  before(async () => {
    server = await startTestServer({ JWT_SECRET: SECRET });
    account = await signUp(server, 'jwt@example.com');
    sessionId = JSON.parse(Buffer.from(account.accessToken.split('.')[1], 'base64url').toString()).sid;
  });
  after(async () => {
    await server.stop();
    expect(server.internalErrors).to.deep.equal([]);
  });

  /** A token with every claim right unless `change` says otherwise. */
  async function forge(
    change: { secret?: string; alg?: string; iss?: string; aud?: string; exp?: number; sid?: string | null; sub?: string } = {},
  ): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    const claims: Record<string, unknown> = {
      sub: change.sub ?? account.userId,
      iss: change.iss ?? 'hangar',
      aud: change.aud ?? 'hangar',
      iat: now,
      exp: change.exp ?? now + 600,
    };
    if (change.sid !== null) claims.sid = change.sid ?? sessionId;
    return new SignJWT(claims).setProtectedHeader({ alg: change.alg ?? 'HS256', typ: 'JWT' }).sign(key(change.secret ?? SECRET));
  }

  it('accepts a token the server would issue (the forgeries below differ in one thing each)', async () => {
    expect((await call(server.api, '/settings', { token: await forge() })).status).to.equal(200);
  });

  const forgeries: [string, () => Promise<string>][] = [
    ['alg none, no signature', async () => `${b64({ alg: 'none', typ: 'JWT' })}.${(await forge()).split('.')[1]}.`],
    [
      'alg none with the original signature',
      async () => {
        const [, payload, signature] = (await forge()).split('.');
        return `${b64({ alg: 'none', typ: 'JWT' })}.${payload}.${signature}`;
      },
    ],
    ['alg HS512 with the right key', () => forge({ alg: 'HS512' })],
    ['signed with another key', () => forge({ secret: 'another-secret-of-sufficient-length-000000' })],
    [
      'a payload changed after signing (another user)',
      async () => {
        const [header, , signature] = (await forge()).split('.');
        return `${header}.${b64({ sub: '00000000-0000-4000-8000-000000000000', sid: sessionId, iss: 'hangar', aud: 'hangar', exp: 9_999_999_999, iat: 1 })}.${signature}`;
      },
    ],
    ['the wrong audience', () => forge({ aud: 'another-service' })],
    ['the wrong issuer', () => forge({ iss: 'someone-else' })],
    ['expired a second ago', () => forge({ exp: Math.floor(Date.now() / 1000) - 1 })],
    ['without a session id', () => forge({ sid: null })],
    ['for a session that does not exist', () => forge({ sid: '11111111-1111-4111-8111-111111111111' })],
    ['for another user than the session’s', () => forge({ sub: '22222222-2222-4222-8222-222222222222' })],
    ['not a JWT at all', async () => 'not.a.jwt'],
  ];
  for (const [name, make] of forgeries) {
    it(`refuses a token ${name} with 401 UNAUTHORIZED`, async () => {
      const token = await make();
      expectError(await call(server.api, '/settings', { token }), 401, 'UNAUTHORIZED');
      expectError(await call(server.api, '/auth/api-keys', { token }), 401, 'UNAUTHORIZED');
    });
  }

  it('never takes a credential from the query string (access_token, token, jwt, api_key, key…)', async () => {
    const { apiKey } = await signUpWithKey(server, 'query@example.com');
    for (const name of ['access_token', 'token', 'jwt', 'authorization', 'bearer']) {
      expectError(await call(server.api, `/settings?${name}=${encodeURIComponent(account.accessToken)}`), 401, 'UNAUTHORIZED');
    }
    for (const name of ['api_key', 'apikey', 'key', 'x-api-key']) {
      expectError(await call(server.api, `/settings?${name}=${encodeURIComponent(apiKey)}`), 401, 'UNAUTHORIZED');
    }
  });

  const races = scaled(10, 100);
  it(`answers two simultaneous refreshes with the same token (two tabs) with the same new refresh token; the session lives on (${races} races)`, async () => {
    let refreshToken = (await call(server.api, '/auth/login', { method: 'POST', json: { email: 'jwt@example.com', password: 'correct horse' } })).body.session
      .refresh_token as string;
    for (let race = 0; race < races; race++) {
      const results = await Promise.all([1, 2].map(() => call(server.api, '/auth/refresh', { method: 'POST', json: { refresh_token: refreshToken } })));
      expect(
        results.map((r) => r.status),
        JSON.stringify(results.map((r) => r.body)),
      ).to.deep.equal([200, 200]);
      const [first, second] = results.map((r) => r.body.session);
      expect(second.refresh_token).to.equal(first.refresh_token);
      for (const session of [first, second]) expect((await call(server.api, '/settings', { token: session.access_token })).status).to.equal(200);
      refreshToken = first.refresh_token;
    }
  });
});
