import { expect } from 'chai';
import * as tus from 'tus-js-client';
import { makePng, randomFileOf, sha256 } from '../support/bytes.js';
import { call, expectError, signUpWithKey, startTestServer, type TestServer } from '../support/http-harness.js';
import { OffsetClock } from '../support/offset-clock.js';

describe('HTTP: signed upload URLs', () => {
  let server: TestServer;
  let apiKey: string;
  let otherKey: string;
  const clock = new OffsetClock();
  before(async () => {
    server = await startTestServer({}, {}, { clock });
    ({ apiKey } = await signUpWithKey(server, 'minter@example.com'));
    ({ apiKey: otherKey } = await signUpWithKey(server, 'other-minter@example.com'));
  });
  after(async () => {
    await server.stop();
    expect(server.internalErrors).to.deep.equal([]);
  });

  const mint = async (json: unknown = {}, key = apiKey) => call(server.api, '/files/upload-url', { method: 'POST', apiKey: key, json });
  /** The minted URL's path and query on the running server (PUBLIC_API_URL is a test name). */
  const local = (uploadUrl: string) => {
    const url = new URL(uploadUrl);
    expect(url.origin).to.equal('http://api.hangar.test');
    return `${url.pathname}${url.search}`;
  };
  const put = (path: string, bytes: Uint8Array, headers: Record<string, string> = {}) =>
    call(server.api, path, { method: 'PUT', headers: { 'content-type': 'image/png', ...headers }, body: bytes });
  const postForm = (path: string, form: FormData) => call(server.api, path, { method: 'POST', body: form });
  /** SHA-256 (hex) of the bytes stored for one of the minting account's files. */
  const storedSha256 = async (fileId: string) =>
    sha256(new Uint8Array(await (await fetch(`${server.api}/files/${fileId}/content`, { headers: { 'x-api-key': apiKey } })).arrayBuffer()));
  const listed = async (key = apiKey) => (await call(server.api, '/files?limit=100', { apiKey: key })).body.files as { file_id: string; name: string | null }[];

  it('mints a URL for 60 s to 1 day (default 1 hour) and refuses other lifetimes, malformed types and no credential', async () => {
    const minted = await mint();
    expect(minted.status, JSON.stringify(minted.body)).to.equal(201);
    expect(minted.body.upload_url).to.match(/^http:\/\/api\.hangar\.test\/uploads\/[0-9A-Za-z]{22}\?signature=[A-Za-z0-9_-]{43}$/);
    expect(Date.parse(minted.body.expires_at) - clock.now().getTime()).to.be.within(3_599_000, 3_601_000);
    expectError(await mint({ expires_in: 59 }), 400, 'VALIDATION_FAILED');
    expectError(await mint({ expires_in: 86_401 }), 400, 'VALIDATION_FAILED');
    expectError(await mint({ content_types: ['not a type'] }), 400, 'INVALID_UPLOAD_URL_REQUEST');
    expectError(await mint({ expires_at: '2000-01-01T00:00:00Z' }), 400, 'INVALID_EXPIRY');
    expect((await call(server.api, '/files/upload-url', { method: 'POST', json: {} })).status).to.equal(401);
  });

  it('uploads one file with a raw PUT under the minting account, with the URL’s name and visibility; a second use is 409 UPLOAD_URL_USED', async () => {
    const minted = await mint({ name: 'avatar.png', is_public: false, expires_in: 600 });
    const path = local(minted.body.upload_url);
    const bytes = makePng(24, 24);
    const uploaded = await put(path, bytes, { 'x-file-name': 'ignored.png' });
    expect(uploaded.status, JSON.stringify(uploaded.body)).to.equal(201);
    expect(uploaded.body.file).to.include({ name: 'avatar.png', is_public: false, size: bytes.byteLength, content_type: 'image/png' });
    expect(await storedSha256(uploaded.body.file.file_id)).to.equal(sha256(bytes));
    const mine = await listed();
    expect(mine.map((f) => f.file_id)).to.include(uploaded.body.file.file_id);
    expect((await listed(otherKey)).map((f) => f.file_id)).not.to.include(uploaded.body.file.file_id);
    expectError(await put(path, makePng(8, 8)), 409, 'UPLOAD_URL_USED');
  });

  it('uploads from a plain HTML form (multipart, field `file`), keeping the form’s file name', async () => {
    const path = local((await mint()).body.upload_url);
    const bytes = makePng(12, 12);
    const form = new FormData();
    form.append('note', 'fields before the file are ignored');
    form.append('file', new Blob([bytes], { type: 'image/png' }), 'café.png');
    const uploaded = await postForm(path, form);
    expect(uploaded.status, JSON.stringify(uploaded.body)).to.equal(201);
    expect(uploaded.body.file).to.include({ name: 'café.png', size: bytes.byteLength, content_type: 'image/png' });
    expect(await storedSha256(uploaded.body.file.file_id)).to.equal(sha256(bytes));
    // A form cut off inside its file part: nothing stored, and the URL stays usable.
    const cutPath = local((await mint()).body.upload_url);
    const boundary = 'hangar-test-boundary';
    const head = `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="cut.png"\r\ncontent-type: image/png\r\n\r\n`;
    const truncated = Buffer.concat([Buffer.from(head), Buffer.from(makePng(30, 30))]);
    const before = (await listed()).length;
    expectError(
      await call(server.api, cutPath, { method: 'POST', headers: { 'content-type': `multipart/form-data; boundary=${boundary}` }, body: truncated }),
      400,
      'UPLOAD_INCOMPLETE',
    );
    expect((await listed()).length).to.equal(before);
    const retry = new FormData();
    retry.append('file', new Blob([bytes], { type: 'image/png' }), 'retry.png');
    expect((await postForm(cutPath, retry)).status).to.equal(201);
    const noFile = new FormData();
    noFile.append('note', 'x');
    expectError(await postForm(local((await mint()).body.upload_url), noFile), 400, 'VALIDATION_FAILED');
    expectError(await call(server.api, local((await mint()).body.upload_url), { method: 'POST', json: { file: 'x' } }), 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('applies the URL’s limits and the account’s rules, and a refused upload leaves the URL usable', async () => {
    const path = local((await mint({ content_types: ['image/*'], max_size_bytes: 2_000 })).body.upload_url);
    expectError(await put(path, randomFileOf(1_000, 'application/pdf', 3), { 'content-type': 'application/pdf' }), 400, 'CONTENT_TYPE_NOT_ALLOWED');
    expectError(await put(path, randomFileOf(3_000, 'image/png', 4)), 413, 'FILE_TOO_LARGE');
    // Chunked (no Content-Length): cut off once past the URL's size, nothing stored.
    const chunked = new ReadableStream({
      start(controller) {
        controller.enqueue(randomFileOf(3_000, 'image/png', 5));
        controller.close();
      },
    });
    const cut = await fetch(`${server.api}${path}`, { method: 'PUT', headers: { 'content-type': 'image/png' }, body: chunked, duplex: 'half' });
    expect(cut.status).to.equal(413);
    expect(((await cut.json()) as { code: string }).code).to.equal('FILE_TOO_LARGE');
    // The account's sniffing applies: PNG declared, not PNG sent.
    expectError(await put(path, new TextEncoder().encode('not a png at all')), 400, 'CONTENT_TYPE_MISMATCH');
    const before = (await listed()).length;
    const ok = await put(path, makePng(10, 10));
    expect(ok.status, JSON.stringify(ok.body)).to.equal(201);
    expect((await listed()).length).to.equal(before + 1);
  });

  it('refuses a tampered, foreign, expired or revoked URL with 403', async () => {
    const minted = local((await mint({ expires_in: 60 })).body.upload_url);
    const tampered = minted.replace(/signature=(.)/, (_, c: string) => `signature=${c === 'A' ? 'B' : 'A'}`);
    expectError(await put(tampered, makePng()), 403, 'UPLOAD_URL_INVALID');
    expectError(await put(minted.replace(/\?.*$/, ''), makePng()), 403, 'UPLOAD_URL_INVALID');
    expectError(await put('/uploads/AAAAAAAAAAAAAAAAAAAAAA?signature=x', makePng()), 403, 'UPLOAD_URL_INVALID');
    // Another account's signature on this URL's id.
    const foreign = local((await mint({}, otherKey)).body.upload_url);
    const foreignSignature = new URL(foreign, 'http://x').searchParams.get('signature')!;
    expectError(await put(minted.replace(/signature=.*$/, `signature=${foreignSignature}`), makePng()), 403, 'UPLOAD_URL_INVALID');

    clock.advance(61_000);
    expectError(await put(minted, makePng()), 403, 'UPLOAD_URL_EXPIRED');

    const revoked = local((await mint()).body.upload_url);
    expect((await call(server.api, '/settings/rotate-signing-key', { method: 'POST', apiKey })).status).to.be.oneOf([200, 204]);
    expectError(await put(revoked, makePng()), 403, 'UPLOAD_URL_INVALID');
    expect((await put(local((await mint()).body.upload_url), makePng())).status).to.equal(201);
  });

  it('stores exactly one file when one URL is used many times at once', async () => {
    const path = local((await mint()).body.upload_url);
    const before = (await listed()).length;
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => put(path, makePng(8 + i, 8))));
    expect(answers.filter((a) => a.status === 201)).to.have.length(1);
    for (const answer of answers.filter((a) => a.status !== 201)) expectError(answer, 409, 'UPLOAD_URL_USED');
    expect((await listed()).length).to.equal(before + 1);
  });

  it('answers CORS preflights and uploads from any origin, while other API routes stay closed to unlisted origins', async () => {
    const path = local((await mint()).body.upload_url);
    const preflight = await fetch(`${server.api}${path}`, {
      method: 'OPTIONS',
      headers: { origin: 'https://some-app.example', 'access-control-request-method': 'PUT', 'access-control-request-headers': 'content-type, x-file-name' },
    });
    expect(preflight.status).to.equal(204);
    expect(preflight.headers.get('access-control-allow-origin')).to.equal('*');
    expect(preflight.headers.get('access-control-allow-methods')).to.include('PUT');
    expect(preflight.headers.get('access-control-allow-headers')?.toLowerCase()).to.include('x-file-name');
    const uploaded = await put(path, makePng(), { origin: 'https://some-app.example' });
    expect(uploaded.status).to.equal(201);
    expect(uploaded.headers.get('access-control-allow-origin')).to.equal('*');
    const other = await fetch(`${server.api}/files`, {
      method: 'OPTIONS',
      headers: { origin: 'https://some-app.example', 'access-control-request-method': 'GET' },
    });
    expect(other.headers.get('access-control-allow-origin')).to.equal(null);
  });

  it('works as a tus creation endpoint for tus-js-client; the upload goes on without a credential until the key is rotated', async () => {
    const minted = await mint({ name: 'movie.mp4', content_types: ['video/*'] });
    const endpoint = `${server.api}${local(minted.body.upload_url)}`;
    const bytes = randomFileOf(300_000, 'video/mp4', 9);
    const fileId = await new Promise<string>((resolve, reject) => {
      let id: string | undefined;
      const upload = new tus.Upload(Buffer.from(bytes), {
        endpoint,
        metadata: { filename: 'ignored.mp4', filetype: 'video/mp4' },
        chunkSize: 100_000,
        retryDelays: [],
        onAfterResponse: (_request, response) => {
          id = response.getHeader('Hangar-File-Id') || id;
        },
        onSuccess: () => (id ? resolve(id) : reject(new Error('no Hangar-File-Id'))),
        onError: reject,
      });
      upload.start();
    });
    expect(await storedSha256(fileId)).to.equal(sha256(bytes));
    expect((await listed()).find((f) => f.file_id === fileId)?.name).to.equal('movie.mp4');
    const again = await fetch(endpoint, {
      method: 'POST',
      headers: { 'tus-resumable': '1.0.0', 'upload-length': '10', 'upload-metadata': `filetype ${Buffer.from('video/mp4').toString('base64')}` },
    });
    expect(again.status).to.equal(409);
    expect(((await again.json()) as { code: string }).code).to.equal('UPLOAD_URL_USED');

    // An unfinished tus upload through a URL: its Location takes PATCH and HEAD, until the key is rotated.
    const second = `${server.api}${local((await mint()).body.upload_url)}`;
    const created = await fetch(second, {
      method: 'POST',
      headers: { 'tus-resumable': '1.0.0', 'upload-length': '100', 'upload-metadata': `filetype ${Buffer.from('text/plain').toString('base64')}` },
    });
    expect(created.status).to.equal(201);
    const location = new URL(created.headers.get('location')!, server.api).href;
    const patch = await fetch(location, {
      method: 'PATCH',
      headers: { 'tus-resumable': '1.0.0', 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' },
      body: 'x'.repeat(40),
    });
    expect(patch.status).to.equal(204);
    const head = await fetch(location, { method: 'HEAD', headers: { 'tus-resumable': '1.0.0' } });
    expect(head.headers.get('upload-offset')).to.equal('40');
    const elsewhere = location.replace(/\/[^/?]+\?/, '/AAAAAAAAAAAAAAAAAAAAAAAA?');
    expect((await fetch(elsewhere, { method: 'HEAD', headers: { 'tus-resumable': '1.0.0' } })).status).to.equal(403);
    await call(server.api, '/settings/rotate-signing-key', { method: 'POST', apiKey });
    const refused = await fetch(location, {
      method: 'PATCH',
      headers: { 'tus-resumable': '1.0.0', 'upload-offset': '40', 'content-type': 'application/offset+octet-stream' },
      body: 'y'.repeat(60),
    });
    expect(refused.status).to.equal(403);
    expect(((await refused.json()) as { code: string }).code).to.equal('UPLOAD_URL_INVALID');
  });
});
