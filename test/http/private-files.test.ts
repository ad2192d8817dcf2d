import { expect } from 'chai';
import { makePng, randomFileOf, sha256 } from '../support/bytes.js';
import { checkResponse } from '../support/openapi-check.js';
import { call, expectError, signUpWithKey, startTestServer, type TestServer, upload } from '../support/http-harness.js';

describe('HTTP: private files (the owner’s download, file updates)', () => {
  let server: TestServer;
  let apiKey: string;
  let accessToken: string;
  let otherKey: string;
  before(async () => {
    server = await startTestServer();
    ({ apiKey, accessToken } = await signUpWithKey(server, 'owner@example.com'));
    ({ apiKey: otherKey } = await signUpWithKey(server, 'other@example.com'));
  });
  after(async () => {
    await server.stop();
    expect(server.internalErrors).to.deep.equal([]);
  });

  /** GET (or HEAD) of raw bytes, checked against the OpenAPI document. */
  const fetchBytes = async (url: string, headers: Record<string, string> = {}, method = 'GET') => {
    const response = await fetch(url, { headers, method });
    const bytes = new Uint8Array(await response.arrayBuffer());
    const type = response.headers.get('content-type');
    const body = type?.startsWith('application/json') ? JSON.parse(Buffer.from(bytes).toString('utf8')) : undefined;
    checkResponse(new URL(url).origin, method, new URL(url).pathname, response.status, type, body);
    return { status: response.status, headers: response.headers, bytes, body };
  };
  const content = (fileId: string, query = '') => `${server.api}/files/${fileId}/content${query}`;
  const publicAddress = (fileId: string, kind: 'm' | 'd' = 'm') => `${server.content}/${kind}/${fileId}`;

  describe('GET /files/:id/content', () => {
    it('streams a private file to its owner (API key or session token), with its name, strong ETag and no-cache', async () => {
      const bytes = randomFileOf(5000, 'application/pdf', 7);
      const uploaded = await upload(server, apiKey, bytes, { contentType: 'application/pdf', name: 'r%C3%A9sum%C3%A9.pdf', query: '?isPublic=false' });
      expect(uploaded.status).to.equal(201);
      const fileId = uploaded.body.file.file_id;
      expect((await fetchBytes(publicAddress(fileId))).status).to.equal(404);

      for (const credential of [{ 'x-api-key': apiKey }, { authorization: `Bearer ${accessToken}` }] as Record<string, string>[]) {
        const got = await fetchBytes(content(fileId), credential);
        expect(got.status).to.equal(200);
        expect(sha256(got.bytes)).to.equal(sha256(bytes));
        expect(got.headers.get('content-type')).to.equal('application/pdf');
        expect(got.headers.get('etag')).to.equal(`"${sha256(bytes)}"`);
        expect(got.headers.get('content-disposition')).to.equal(`attachment; filename="r_sum_.pdf"; filename*=UTF-8''r%C3%A9sum%C3%A9.pdf`);
        expect(got.headers.get('cache-control')).to.equal('private, no-cache');
        expect(got.headers.get('content-security-policy')).to.match(/^sandbox/);
        expect(got.headers.get('accept-ranges')).to.equal('bytes');
      }
      const inline = await fetchBytes(content(fileId, '?disposition=inline'), { 'x-api-key': apiKey });
      expect(inline.headers.get('content-disposition')).to.match(/^inline; filename="r_sum_.pdf"/);
    });

    it('answers Range (206, suffix, 416), If-Range, If-None-Match (304) and HEAD as the download address does', async () => {
      const bytes = randomFileOf(10_000, 'image/png', 8);
      const fileId = (await upload(server, apiKey, bytes, { query: '?isPublic=false' })).body.file.file_id;
      const auth = { 'x-api-key': apiKey };
      const part = await fetchBytes(content(fileId), { ...auth, range: 'bytes=100-199' });
      expect(part.status).to.equal(206);
      expect(part.headers.get('content-range')).to.equal('bytes 100-199/10000');
      expect(Buffer.from(part.bytes).equals(Buffer.from(bytes.subarray(100, 200)))).to.equal(true);
      const suffix = await fetchBytes(content(fileId), { ...auth, range: 'bytes=-10' });
      expect(suffix.status).to.equal(206);
      expect(Buffer.from(suffix.bytes).equals(Buffer.from(bytes.subarray(9990)))).to.equal(true);
      const outside = await fetchBytes(content(fileId), { ...auth, range: 'bytes=20000-' });
      expect(outside.status).to.equal(416);
      expect(outside.headers.get('content-range')).to.equal('bytes */10000');
      expect(outside.body.code).to.equal('RANGE_NOT_SATISFIABLE');
      const etag = `"${sha256(bytes)}"`;
      expect((await fetchBytes(content(fileId), { ...auth, range: 'bytes=0-9', 'if-range': '"stale"' })).status).to.equal(200);
      expect((await fetchBytes(content(fileId), { ...auth, range: 'bytes=0-9', 'if-range': etag })).status).to.equal(206);
      const notModified = await fetchBytes(content(fileId), { ...auth, 'if-none-match': etag });
      expect(notModified.status).to.equal(304);
      expect(notModified.bytes.length).to.equal(0);
      const head = await fetchBytes(content(fileId), auth, 'HEAD');
      expect(head.status).to.equal(200);
      expect(head.headers.get('content-length')).to.equal('10000');
      expect(head.bytes.length).to.equal(0);
    });

    it('answers 404 FILE_NOT_FOUND for another account’s file, public or private, and for an unknown id; 401 without a credential', async () => {
      const mine = (await upload(server, apiKey, makePng(), { query: '?isPublic=false' })).body.file.file_id;
      const theirs = (await upload(server, otherKey, makePng())).body.file.file_id;
      for (const fileId of [theirs, 'AAAAAAAAAA', 'not-an-id']) {
        expectError(await call(server.api, `/files/${fileId}/content`, { apiKey }), 404, 'FILE_NOT_FOUND');
      }
      expectError(await call(server.api, `/files/${mine}/content`, { apiKey: otherKey }), 404, 'FILE_NOT_FOUND');
      expectError(await call(server.api, `/files/${mine}/content`), 401, 'UNAUTHORIZED');
    });
  });

  describe('PATCH /files/:id', () => {
    it('makes a public file private (its addresses answer 404) and public again (they come back), renames it, and logs the change', async () => {
      const png = makePng();
      const file = (await upload(server, apiKey, png, { name: 'before.png' })).body.file;
      expect((await fetchBytes(publicAddress(file.file_id))).status).to.equal(200);

      const hidden = await call(server.api, `/files/${file.file_id}`, { method: 'PATCH', apiKey, json: { is_public: false } });
      expect(hidden.status, JSON.stringify(hidden.body)).to.equal(200);
      expect(hidden.body).to.include({ file_id: file.file_id, is_public: false, public_url: null, default_download_url: null, name: 'before.png' });
      expect((await fetchBytes(publicAddress(file.file_id))).status).to.equal(404);
      expect((await fetchBytes(publicAddress(file.file_id, 'd'))).status).to.equal(404);
      expect((await call(server.api, `/files/${file.file_id}`, { apiKey })).body.is_public).to.equal(false);
      expect((await call(server.api, '/files?isPublic=false&limit=100', { apiKey })).body.files.map((f: any) => f.file_id)).to.include(file.file_id);

      const shown = await call(server.api, `/files/${file.file_id}`, {
        method: 'PATCH',
        token: accessToken,
        json: { is_public: true, name: 'after \u0007.png' },
      });
      expect(shown.status).to.equal(200);
      expect(shown.body).to.include({ is_public: true, name: 'after .png', public_url: file.public_url });
      const download = await fetchBytes(publicAddress(file.file_id, 'd'));
      expect(download.status).to.equal(200);
      expect(download.headers.get('content-disposition')).to.match(/^attachment; filename="after .png"/);
      expect((await call(server.api, '/files?q=after&limit=100', { apiKey })).body.files.map((f: any) => f.file_id)).to.deep.equal([file.file_id]);

      await server.running.hangar.activity.flush();
      const logs = await call(server.api, '/logs?limit=100', { apiKey });
      const patches = logs.body.logs.filter((entry: any) => entry.method === 'PATCH' && entry.path === `/files/${file.file_id}`);
      expect(patches).to.have.length(2);
      expect(patches[0].metadata.file_id).to.equal(file.file_id);
    });

    it('keeps the listing totals by visibility exact through changes', async () => {
      const { apiKey: key } = await signUpWithKey(server, 'totals@example.com');
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) ids.push((await upload(server, key, randomFileOf(100 + i, 'image/png', 100 + i))).body.file.file_id);
      const totals = async () => [
        (await call(server.api, '/files?isPublic=true', { apiKey: key })).body.total,
        (await call(server.api, '/files?isPublic=false', { apiKey: key })).body.total,
        (await call(server.api, '/files?isPublic=false&type=image/png', { apiKey: key })).body.total,
        (await call(server.api, '/files?isPublic=false&createdAfter=2000-01-01', { apiKey: key })).body.total,
      ];
      expect(await totals()).to.deep.equal([3, 0, 0, 0]);
      await call(server.api, `/files/${ids[0]}`, { method: 'PATCH', apiKey: key, json: { is_public: false } });
      await call(server.api, `/files/${ids[1]}`, { method: 'PATCH', apiKey: key, json: { is_public: false } });
      // Setting the visibility it already has moves nothing.
      await call(server.api, `/files/${ids[1]}`, { method: 'PATCH', apiKey: key, json: { is_public: false } });
      expect(await totals()).to.deep.equal([1, 2, 2, 2]);
      await call(server.api, `/files/${ids[0]}`, { method: 'PATCH', apiKey: key, json: { is_public: true } });
      expect(await totals()).to.deep.equal([2, 1, 1, 1]);
    });

    it('refuses unknown fields, bad values, an empty body and a past expiry with 400, and changes nothing', async () => {
      const file = (await upload(server, apiKey, makePng(), { name: 'keep.png' })).body.file;
      const patch = (json: unknown) => call(server.api, `/files/${file.file_id}`, { method: 'PATCH', apiKey, json });
      for (const json of [{ is_public: false, colour: 'red' }, { is_public: 'no' }, {}, { name: 5 }, { expires_at: 'tomorrow' }]) {
        expectError(await patch(json), 400, 'VALIDATION_FAILED');
      }
      expectError(await patch({ is_public: false, name: 'x'.repeat(256) }), 400, 'INVALID_FILE_NAME');
      expectError(await patch({ is_public: false, expires_at: '2001-01-01T00:00:00Z' }), 400, 'INVALID_EXPIRY');
      expect((await call(server.api, `/files/${file.file_id}`, { apiKey })).body).to.include({ is_public: true, name: 'keep.png', expires_at: null });
      expect((await fetchBytes(publicAddress(file.file_id))).status).to.equal(200);
    });

    it('answers 404 FILE_NOT_FOUND for another account’s file and leaves it as it was', async () => {
      const theirs = (await upload(server, otherKey, makePng(), { name: 'theirs.png' })).body.file;
      expectError(await call(server.api, `/files/${theirs.file_id}`, { method: 'PATCH', apiKey, json: { is_public: false } }), 404, 'FILE_NOT_FOUND');
      expect((await fetchBytes(publicAddress(theirs.file_id))).status).to.equal(200);
    });

    it('sets and removes an expiry, shown as expires_at', async () => {
      const file = (await upload(server, apiKey, makePng())).body.file;
      expect(file.expires_at).to.equal(null);
      const at = new Date(Date.now() + 3_600_000).toISOString();
      const set = await call(server.api, `/files/${file.file_id}`, { method: 'PATCH', apiKey, json: { expires_at: at } });
      expect(set.body.expires_at).to.equal(at);
      const removed = await call(server.api, `/files/${file.file_id}`, { method: 'PATCH', apiKey, json: { expires_at: null } });
      expect(removed.body.expires_at).to.equal(null);
    });
  });
});

describe('HTTP: the reference lists the private-file routes with their errors', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.stop());

  it('has every new route in the OpenAPI document and in /reference/for-agents, with its error codes', async () => {
    const openapi = (await call(server.api, '/reference/openapi.json')).body;
    expect(openapi.paths['/files/{id}'].patch.operationId).to.equal('updateFile');
    expect(openapi.paths['/files/{id}/content'].get.operationId).to.equal('downloadOwnFile');
    expect(openapi.paths['/files/{id}/signed-url'].post.operationId).to.equal('createSignedUrl');
    expect(openapi.paths['/settings/rotate-signing-key'].post.operationId).to.equal('rotateSigningKey');
    expect(openapi.paths['/s/{id}'].get.operationId).to.equal('readSignedUrl');
    const guide = (await call(server.api, '/reference/for-agents')).body;
    const endpoint = (method: string, path: string) => guide.endpoints.find((e: any) => e.method === method && e.path === path);
    expect(endpoint('PATCH', '/files/:id').errors).to.include.members(['INVALID_EXPIRY', 'FILE_NOT_FOUND']);
    expect(endpoint('GET', '/files/:id/content').errors).to.include('RANGE_NOT_SATISFIABLE');
    expect(endpoint('POST', '/files/:id/signed-url').errors).to.include('FILE_NOT_FOUND');
    expect(endpoint('GET', '/s/:id').errors).to.include.members(['SIGNED_URL_INVALID', 'SIGNED_URL_EXPIRED']);
    expect(endpoint('POST', '/settings/rotate-signing-key')).to.not.equal(undefined);
    expect(guide.errors.codes).to.include({ INVALID_EXPIRY: 400, SIGNED_URL_EXPIRED: 403, SIGNED_URL_INVALID: 403 });
  });
});
