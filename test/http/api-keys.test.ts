import { expect } from 'chai';
import { call, expectError, signUp, startTestServer, type TestServer } from '../support/http-harness.js';

describe('HTTP: API keys', () => {
  let server: TestServer;
  let token: string;
  before(async () => {
    server = await startTestServer();
    token = (await signUp(server, 'keys@example.com')).accessToken;
  });
  after(async () => {
    await server.stop();
    expect(server.internalErrors).to.deep.equal([]);
  });

  it('creates a key hgr_ + 32 base62 once, with key_prefix its first 12 characters', async () => {
    const created = await call(server.api, '/auth/api-keys', { method: 'POST', token, json: { name: 'ci' } });
    expect(created.status).to.equal(201);
    expect(created.body).to.have.keys('id', 'key', 'key_prefix', 'name', 'created_at', 'scopes', 'expires_at', 'expired');
    expect(created.body.key).to.match(/^hgr_[0-9A-Za-z]{32}$/);
    expect(created.body.key_prefix).to.equal(created.body.key.slice(0, 12));
    expect(created.body.name).to.equal('ci');
    const list = await call(server.api, '/auth/api-keys', { token });
    const listed = list.body.api_keys.find((k: any) => k.id === created.body.id);
    expect(listed).to.have.keys('id', 'key_prefix', 'name', 'created_at', 'last_used_at', 'scopes', 'expires_at', 'expired');
    expect(JSON.stringify(list.body)).to.not.include(created.body.key);
  });

  it('accepts a key in Authorization: Bearer and in X-Api-Key, and records last_used_at', async () => {
    const created = await call(server.api, '/auth/api-keys', { method: 'POST', token, json: {} });
    expect((await call(server.api, '/files', { headers: { authorization: `Bearer ${created.body.key}` } })).status).to.equal(200);
    expect((await call(server.api, '/files', { apiKey: created.body.key })).status).to.equal(200);
    const list = await call(server.api, '/auth/api-keys', { token });
    const listed = list.body.api_keys.find((k: any) => k.id === created.body.id);
    expect(listed.last_used_at).to.match(/Z$/);
  });

  it('refuses an API key on key management with 403 JWT_REQUIRED, and no credential with 401', async () => {
    const { body } = await call(server.api, '/auth/api-keys', { method: 'POST', token, json: {} });
    expectError(await call(server.api, '/auth/api-keys', { apiKey: body.key }), 403, 'JWT_REQUIRED');
    expectError(await call(server.api, '/auth/api-keys', { method: 'POST', apiKey: body.key, json: {} }), 403, 'JWT_REQUIRED');
    expectError(await call(server.api, `/auth/api-keys/${body.id}`, { method: 'DELETE', apiKey: body.key }), 403, 'JWT_REQUIRED');
    expectError(await call(server.api, '/auth/api-keys'), 401, 'UNAUTHORIZED');
    expectError(await call(server.api, '/files', { apiKey: 'hgr_00000000000000000000000000000000' }), 401, 'UNAUTHORIZED');
    expectError(await call(server.api, '/files', { token: 'not.a.jwt' }), 401, 'UNAUTHORIZED');
  });

  it('revokes with 204, after which the key is refused; unknown and foreign ids are 404', async () => {
    const { body } = await call(server.api, '/auth/api-keys', { method: 'POST', token, json: { name: 'temp' } });
    expect((await call(server.api, `/auth/api-keys/${body.id}`, { method: 'DELETE', token })).status).to.equal(204);
    expectError(await call(server.api, '/files', { apiKey: body.key }), 401, 'UNAUTHORIZED');
    expectError(await call(server.api, `/auth/api-keys/${body.id}`, { method: 'DELETE', token }), 404, 'API_KEY_NOT_FOUND');
    expectError(await call(server.api, '/auth/api-keys/not-a-uuid', { method: 'DELETE', token }), 404, 'API_KEY_NOT_FOUND');
    const other = await signUp(server, 'keys-other@example.com');
    const mine = await call(server.api, '/auth/api-keys', { method: 'POST', token, json: {} });
    expectError(await call(server.api, `/auth/api-keys/${mine.body.id}`, { method: 'DELETE', token: other.accessToken }), 404, 'API_KEY_NOT_FOUND');
    expect((await call(server.api, '/files', { apiKey: mine.body.key })).status).to.equal(200);
  });

  it('pages the list newest first with total, page and limit; limit over 100 and page 0 are 400', async () => {
    const account = await signUp(server, 'keys-paging@example.com');
    for (const name of ['one', 'two', 'three']) {
      await call(server.api, '/auth/api-keys', { method: 'POST', token: account.accessToken, json: { name } });
      await new Promise((r) => setTimeout(r, 5)); // distinct created_at; equal timestamps have no defined order
    }
    const page = await call(server.api, '/auth/api-keys?page=2&limit=2', { token: account.accessToken });
    expect(page.body).to.include({ total: 3, page: 2, limit: 2 });
    expect(page.body.api_keys.map((k: any) => k.name)).to.deep.equal(['one']);
    const first = await call(server.api, '/auth/api-keys', { token: account.accessToken });
    expect(first.body.limit).to.equal(30);
    expect(first.body.api_keys.map((k: any) => k.name)).to.deep.equal(['three', 'two', 'one']);
    expectError(await call(server.api, '/auth/api-keys?limit=101', { token: account.accessToken }), 400, 'VALIDATION_FAILED');
    expectError(await call(server.api, '/auth/api-keys?page=0', { token: account.accessToken }), 400, 'VALIDATION_FAILED');
  });
});
