import { expect } from 'chai';
import { call, expectError, signUp, signUpWithKey, startTestServer, type TestServer } from '../support/http-harness.js';
import { OffsetClock } from '../support/offset-clock.js';
import { SoftAuthenticator, type SoftCredential } from '../support/soft-authenticator.js';

/** The origin of the harness's PUBLIC_API_URL, where the dashboard runs its ceremonies. */
const ORIGIN = 'http://api.hangar.test';

describe('HTTP: passkeys', () => {
  let server: TestServer;
  const clock = new OffsetClock();
  const authenticator = new SoftAuthenticator(ORIGIN);
  before(async () => {
    server = await startTestServer({}, {}, { clock });
  });
  after(async () => {
    await server.stop();
    expect(server.internalErrors).to.deep.equal([]);
  });

  /** Registers a passkey on the account through the two registration routes. */
  async function register(token: string, settings: { counter?: number; name?: string } = {}): Promise<{ credential: SoftCredential; passkey: any }> {
    const options = await call(server.api, '/auth/passkeys/registration/options', { method: 'POST', token });
    expect(options.status, JSON.stringify(options.body)).to.equal(200);
    const { credential, response } = authenticator.create(options.body, settings);
    const verified = await call(server.api, '/auth/passkeys/registration/verify', {
      method: 'POST',
      token,
      json: { credential: response, name: settings.name },
    });
    expect(verified.status, JSON.stringify(verified.body)).to.equal(201);
    return { credential, passkey: verified.body.passkey };
  }

  async function signInOptions(json: { email?: string } = {}) {
    const options = await call(server.api, '/auth/passkeys/authentication/options', { method: 'POST', json });
    expect(options.status, JSON.stringify(options.body)).to.equal(200);
    return options.body;
  }

  function verify(credential: unknown) {
    return call(server.api, '/auth/passkeys/authentication/verify', { method: 'POST', json: { credential } });
  }

  it('registers a passkey and signs in with it instead of a password, as login answers', async () => {
    const account = await signUp(server, 'passkey-user@example.com');
    const options = await call(server.api, '/auth/passkeys/registration/options', { method: 'POST', token: account.accessToken });
    expect(options.body).to.deep.include({ rp: { id: 'api.hangar.test', name: 'Hangar' }, attestation: 'none' });
    expect(options.body.authenticatorSelection).to.include({ residentKey: 'required', userVerification: 'required' });
    const { credential, passkey } = await register(account.accessToken, { name: 'Laptop' });
    expect(passkey).to.have.keys('id', 'name', 'created_at', 'last_used_at');
    expect(passkey).to.include({ name: 'Laptop', last_used_at: null });

    const signedIn = await verify(authenticator.get(credential, await signInOptions()));
    expect(signedIn.status, JSON.stringify(signedIn.body)).to.equal(200);
    expect(signedIn.body.user).to.include({ id: account.userId, email: 'passkey-user@example.com' });
    expect(signedIn.body.session).to.include({ token_type: 'bearer', expires_in: 3600 });
    const listed = await call(server.api, '/auth/passkeys', { token: signedIn.body.session.access_token });
    expect(listed.status).to.equal(200);
    expect(listed.body.passkeys).to.have.length(1);
    expect(listed.body.passkeys[0].last_used_at).to.match(/Z$/);
  });

  it("limits the sign-in options to the account's passkeys when an e-mail is given", async () => {
    const account = await signUp(server, 'passkey-email@example.com');
    const { credential } = await register(account.accessToken);
    const options = await signInOptions({ email: 'passkey-email@example.com' });
    expect(options.allowCredentials.map((c: { id: string }) => c.id)).to.deep.equal([credential.id]);
    expect(options.userVerification).to.equal('required');
    expect((await signInOptions({ email: 'nobody@example.com' })).allowCredentials ?? []).to.deep.equal([]);
  });

  it('refuses an answer to a challenge the server never issued, changing nothing', async () => {
    const account = await signUp(server, 'passkey-bad-challenge@example.com');
    const { credential } = await register(account.accessToken);
    const options = await signInOptions();
    expectError(await verify(authenticator.get(credential, options, { challenge: 'bm90LWlzc3VlZA' })), 400, 'PASSKEY_CHALLENGE_INVALID');
    const registration = await call(server.api, '/auth/passkeys/registration/options', { method: 'POST', token: account.accessToken });
    const forged = authenticator.create({ ...registration.body, challenge: 'bm90LWlzc3VlZA' });
    expectError(
      await call(server.api, '/auth/passkeys/registration/verify', { method: 'POST', token: account.accessToken, json: { credential: forged.response } }),
      400,
      'PASSKEY_CHALLENGE_INVALID',
    );
    expect((await call(server.api, '/auth/passkeys', { token: account.accessToken })).body.passkeys).to.have.length(1);
  });

  it('refuses an answer after the challenge expired (5 minutes)', async () => {
    const account = await signUp(server, 'passkey-expired@example.com');
    const { credential } = await register(account.accessToken);
    const options = await signInOptions();
    clock.advance(5 * 60_000 + 1000);
    expectError(await verify(authenticator.get(credential, options)), 400, 'PASSKEY_CHALLENGE_INVALID');
  });

  it('refuses a replayed sign-in response', async () => {
    const account = await signUp(server, 'passkey-replay@example.com');
    const { credential } = await register(account.accessToken);
    const response = authenticator.get(credential, await signInOptions());
    expect((await verify(response)).status).to.equal(200);
    expectError(await verify(response), 400, 'PASSKEY_CHALLENGE_INVALID');
  });

  it('refuses a credential that is not registered, or was deleted', async () => {
    const account = await signUp(server, 'passkey-unknown@example.com');
    const stranger = authenticator.create({ rp: { id: 'api.hangar.test' }, challenge: 'eA', user: { id: 'eA' } }).credential;
    expectError(await verify(authenticator.get(stranger, await signInOptions())), 401, 'PASSKEY_NOT_RECOGNISED');
    const { credential, passkey } = await register(account.accessToken);
    expect((await call(server.api, `/auth/passkeys/${passkey.id}`, { method: 'DELETE', token: account.accessToken })).status).to.equal(204);
    expectError(await verify(authenticator.get(credential, await signInOptions())), 401, 'PASSKEY_NOT_RECOGNISED');
  });

  it('refuses a signature made for another relying party, and one without user verification', async () => {
    const account = await signUp(server, 'passkey-rp@example.com');
    const { credential } = await register(account.accessToken);
    expectError(await verify(authenticator.get(credential, await signInOptions(), { rpId: 'evil.test' })), 401, 'PASSKEY_REJECTED');
    expectError(await verify(authenticator.get(credential, await signInOptions(), { userVerified: false })), 401, 'PASSKEY_REJECTED');
  });

  it('refuses a signature counter that went backwards (a cloned authenticator), and accepts the real one after', async () => {
    const account = await signUp(server, 'passkey-counter@example.com');
    const { credential } = await register(account.accessToken, { counter: 10 });
    expectError(await verify(authenticator.get(credential, await signInOptions(), { counter: 7 })), 401, 'PASSKEY_COUNTER_REGRESSED');
    expect((await verify(authenticator.get(credential, await signInOptions(), { counter: 11 }))).status).to.equal(200);
  });

  it('refuses registration without user verification and a second registration of one credential', async () => {
    const account = await signUp(server, 'passkey-uv@example.com');
    const options = await call(server.api, '/auth/passkeys/registration/options', { method: 'POST', token: account.accessToken });
    const unverified = authenticator.create(options.body, { userVerified: false });
    expectError(
      await call(server.api, '/auth/passkeys/registration/verify', { method: 'POST', token: account.accessToken, json: { credential: unverified.response } }),
      400,
      'PASSKEY_INVALID',
    );
    const first = authenticator.create((await call(server.api, '/auth/passkeys/registration/options', { method: 'POST', token: account.accessToken })).body);
    expect(
      (await call(server.api, '/auth/passkeys/registration/verify', { method: 'POST', token: account.accessToken, json: { credential: first.response } }))
        .status,
    ).to.equal(201);
    const again = await call(server.api, '/auth/passkeys/registration/options', { method: 'POST', token: account.accessToken });
    expect(again.body.excludeCredentials.map((c: { id: string }) => c.id)).to.deep.equal([first.credential.id]);
  });

  it("renames and deletes only the account's own passkeys; session tokens only", async () => {
    const alice = await signUpWithKey(server, 'passkey-alice@example.com');
    const bob = await signUp(server, 'passkey-bob@example.com');
    const { passkey } = await register(alice.accessToken);
    expectError(
      await call(server.api, `/auth/passkeys/${passkey.id}`, { method: 'PATCH', token: bob.accessToken, json: { name: 'Mine' } }),
      404,
      'PASSKEY_NOT_FOUND',
    );
    expectError(await call(server.api, `/auth/passkeys/${passkey.id}`, { method: 'DELETE', token: bob.accessToken }), 404, 'PASSKEY_NOT_FOUND');
    expectError(
      await call(server.api, `/auth/passkeys/${passkey.id}`, { method: 'PATCH', token: alice.accessToken, json: { name: '' } }),
      400,
      'VALIDATION_FAILED',
    );
    const renamed = await call(server.api, `/auth/passkeys/${passkey.id}`, { method: 'PATCH', token: alice.accessToken, json: { name: 'Phone' } });
    expect(renamed.status).to.equal(200);
    expect(renamed.body.passkey).to.include({ id: passkey.id, name: 'Phone' });
    expectError(await call(server.api, '/auth/passkeys', { apiKey: alice.apiKey }), 403, 'JWT_REQUIRED');
    expectError(await call(server.api, '/auth/passkeys/registration/options', { method: 'POST' }), 401, 'UNAUTHORIZED');
    expectError(await verify({ id: 'x', rawId: 'x', type: 'public-key', response: { clientDataJSON: 'bm90LWpzb24' } }), 400, 'PASSKEY_INVALID');
    expectError(
      await call(server.api, '/auth/passkeys/authentication/verify', { method: 'POST', json: { credential: { id: 'x' } } }),
      400,
      'VALIDATION_FAILED',
    );
  });
});
