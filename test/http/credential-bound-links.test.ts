import { expect } from 'chai';
import { makePng } from '../support/bytes.js';
import { call, expectError, signUpWithKey, startTestServer, type TestServer, upload } from '../support/http-harness.js';
import { OffsetClock } from '../support/offset-clock.js';

// Issue #60 item 5 (docs/api-keys.md, "What outlives a credential"): what an API key makes goes with the key.
describe('HTTP: signed URLs and share links made with an API key end with the key', () => {
  let server: TestServer;
  let account: { accessToken: string; apiKey: string };
  const clock = new OffsetClock();
  before(async () => {
    server = await startTestServer({}, {}, { clock });
    account = await signUpWithKey(server, 'bound@example.com');
  });
  after(async () => {
    await server.stop();
    expect(server.internalErrors).to.deep.equal([]);
  });

  const local = (url: string) => url.replace('http://cdn.hangar.test', server.content);
  const open = async (url: string) => {
    const response = await fetch(local(url));
    const text = await response.text();
    return { status: response.status, body: response.headers.get('content-type')?.startsWith('application/json') ? JSON.parse(text) : text };
  };
  const newKey = async (json: Record<string, unknown> = {}) => {
    const created = await call(server.api, '/auth/api-keys', { method: 'POST', token: account.accessToken, json: { name: 'minter', ...json } });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    return { id: created.body.id as string, key: created.body.key as string };
  };
  const privateFile = async () => (await upload(server, account.apiKey, makePng(), { query: '?isPublic=false' })).body.file.file_id as string;
  const signWith = (credential: { apiKey?: string; token?: string }, fileId: string, expiresIn = 600) =>
    call(server.api, `/files/${fileId}/signed-url`, { method: 'POST', ...credential, json: { expires_in: expiresIn } });
  const shareWith = (credential: { apiKey?: string; token?: string }, fileId: string, json: Record<string, unknown> = {}) =>
    call(server.api, `/files/${fileId}/shares`, { method: 'POST', ...credential, json });

  it('refuses a signed URL with 403 SIGNED_URL_INVALID once the API key that made it is revoked (the probe’s reproduction)', async () => {
    const fileId = await privateFile();
    const minter = await newKey();
    const signed = await signWith({ apiKey: minter.key }, fileId);
    expect(signed.status).to.equal(200);
    expect(new URL(signed.body.signed_url).searchParams.get('kid')).to.equal(minter.id);
    expect((await open(signed.body.signed_url)).status).to.equal(200);
    expect((await call(server.api, `/auth/api-keys/${minter.id}`, { method: 'DELETE', token: account.accessToken })).status).to.equal(204);
    const after = await open(signed.body.signed_url);
    expect(after.status).to.equal(403);
    expect(after.body.code).to.equal('SIGNED_URL_INVALID');
  });

  it('refuses a signed URL whose kid was removed or changed (the key id is signed)', async () => {
    const fileId = await privateFile();
    const minter = await newKey();
    const other = await newKey();
    const url = new URL((await signWith({ apiKey: minter.key }, fileId)).body.signed_url);
    const without = new URL(url.href);
    without.searchParams.delete('kid');
    const swapped = new URL(url.href);
    swapped.searchParams.set('kid', other.id);
    for (const href of [without.href, swapped.href]) {
      const answer = await open(href);
      expect(answer.status, href).to.equal(403);
      expect(answer.body.code, href).to.equal('SIGNED_URL_INVALID');
    }
  });

  it('refuses a deletion link (403, file kept) once the API key that made it is revoked, or when its kid was removed or swapped', async () => {
    const minter = await newKey();
    const other = await newKey();
    const uploaded = await upload(server, minter.key, makePng(), { query: '?deletionUrl=true' });
    const fileId = uploaded.body.file.file_id as string;
    const link = new URL(uploaded.body.deletion_url.replace('http://api.hangar.test', server.api));
    expect(link.searchParams.get('kid')).to.equal(minter.id);
    const without = new URL(link.href);
    without.searchParams.delete('kid');
    const swapped = new URL(link.href);
    swapped.searchParams.set('kid', other.id);
    for (const href of [without.href, swapped.href]) expect((await fetch(href, { method: 'POST' })).status, href).to.equal(403);
    expect((await fetch(link.href)).status).to.equal(200);
    expect((await call(server.api, `/auth/api-keys/${minter.id}`, { method: 'DELETE', token: account.accessToken })).status).to.equal(204);
    const page = await fetch(link.href, { method: 'POST' });
    expect(page.status).to.equal(403);
    expect(await page.text()).to.include('API key that made it');
    expect((await call(server.api, `/files/${fileId}`, { apiKey: account.apiKey })).status).to.equal(200);
  });

  it('refuses a signed upload URL (403 UPLOAD_URL_INVALID, nothing stored) once the API key that minted it is revoked; one a session minted stays', async () => {
    const minter = await newKey();
    const byKey = await call(server.api, '/files/upload-url', { method: 'POST', apiKey: minter.key, json: { expires_in: 600 } });
    const bySession = await call(server.api, '/files/upload-url', { method: 'POST', token: account.accessToken, json: { expires_in: 600 } });
    expect([byKey.status, bySession.status]).to.deep.equal([201, 201]);
    const local = (url: string) => url.replace('http://api.hangar.test', server.api);
    const filesBefore = (await call(server.api, '/files?limit=100', { apiKey: account.apiKey })).body.total;
    expect((await call(server.api, `/auth/api-keys/${minter.id}`, { method: 'DELETE', token: account.accessToken })).status).to.equal(204);
    expectError(
      await call(local(byKey.body.upload_url), '', { method: 'PUT', headers: { 'content-type': 'image/png' }, body: makePng() }),
      403,
      'UPLOAD_URL_INVALID',
    );
    expect((await call(server.api, '/files?limit=100', { apiKey: account.apiKey })).body.total).to.equal(filesBefore);
    expect((await call(local(bySession.body.upload_url), '', { method: 'PUT', headers: { 'content-type': 'image/png' }, body: makePng() })).status).to.equal(
      201,
    );
  });

  it('mints an upload URL with an expiring key that expires no later than the key', async () => {
    const minter = await newKey({ expires_at: new Date(clock.now().getTime() + 120_000).toISOString() });
    const minted = await call(server.api, '/files/upload-url', { method: 'POST', apiKey: minter.key, json: { expires_in: 3_600 } });
    expect(minted.status, JSON.stringify(minted.body)).to.equal(201);
    expect(Date.parse(minted.body.expires_at)).to.be.at.most(clock.now().getTime() + 120_000);
  });

  it('removes a share link (404) once the API key that made it is revoked; a share made with a session stays', async () => {
    const fileId = await privateFile();
    const minter = await newKey();
    const byKey = await shareWith({ apiKey: minter.key }, fileId);
    const bySession = await shareWith({ token: account.accessToken }, fileId);
    expect([byKey.status, bySession.status]).to.deep.equal([201, 201]);
    expect((await open(`${byKey.body.url}/download`)).status).to.equal(200);
    expect((await call(server.api, `/auth/api-keys/${minter.id}`, { method: 'DELETE', token: account.accessToken })).status).to.equal(204);
    const gone = await open(`${byKey.body.url}/download`);
    expect(gone.status).to.equal(404);
    expect(gone.body.code).to.equal('SHARE_NOT_FOUND');
    expect((await open(`${bySession.body.url}/download`)).status).to.equal(200);
    const listed = await call(server.api, `/files/${fileId}/shares`, { token: account.accessToken });
    expect(listed.body.shares.map((share: { url: string }) => share.url)).to.deep.equal([bySession.body.url]);
  });

  it('ends a signed URL and a share made with an expiring key no later than the key: expires_at is cut to it, and both stop when it expires', async () => {
    const fileId = await privateFile();
    const keyExpiry = new Date(clock.now().getTime() + 120_000);
    const minter = await newKey({ expires_at: keyExpiry.toISOString() });
    const signed = await signWith({ apiKey: minter.key }, fileId, 3600);
    expect(Date.parse(signed.body.expires_at)).to.be.at.most(keyExpiry.getTime());
    const share = await shareWith({ apiKey: minter.key }, fileId, { expires_at: new Date(clock.now().getTime() + 3_600_000).toISOString() });
    expect(Date.parse(share.body.expires_at)).to.equal(keyExpiry.getTime());
    const forever = await shareWith({ apiKey: minter.key }, fileId);
    expect(Date.parse(forever.body.expires_at), 'a share without an expiry gets the key’s').to.equal(keyExpiry.getTime());
    expect((await open(signed.body.signed_url)).status).to.equal(200);
    clock.advance(121_000);
    expect((await open(signed.body.signed_url)).status).to.equal(403);
    expect((await open(`${share.body.url}/download`)).status).to.equal(410);
    expect((await open(`${forever.body.url}/download`)).status).to.equal(410);
  });

  it('keeps a signed URL made with a session working after that session ends (logout)', async () => {
    const fileId = await privateFile();
    const session = (await call(server.api, '/auth/login', { method: 'POST', json: { email: 'bound@example.com', password: 'correct horse' } })).body.session;
    const signed = await signWith({ token: session.access_token }, fileId);
    expect(new URL(signed.body.signed_url).searchParams.get('kid')).to.equal(null);
    expect((await call(server.api, '/auth/logout', { method: 'POST', token: session.access_token })).status).to.equal(204);
    expect((await open(signed.body.signed_url)).status).to.equal(200);
  });

  it('refuses to make a signed URL or a share with a key revoked meanwhile (401)', async () => {
    const fileId = await privateFile();
    const minter = await newKey();
    await call(server.api, `/auth/api-keys/${minter.id}`, { method: 'DELETE', token: account.accessToken });
    expectError(await signWith({ apiKey: minter.key }, fileId), 401, 'UNAUTHORIZED');
    expectError(await shareWith({ apiKey: minter.key }, fileId), 401, 'UNAUTHORIZED');
  });
});
