import { expect } from 'chai';
import { makePdf, makePng, randomBytesOf, randomFileOf, sha256 } from '../support/bytes.js';
import { checkResponse } from '../support/openapi-check.js';
import { call, expectError, signUpWithKey, startTestServer, type TestServer, upload } from '../support/http-harness.js';

describe('HTTP: files and the content server', () => {
  let server: TestServer;
  let apiKey: string;
  let userId: string;
  before(async () => {
    server = await startTestServer({ DEFAULT_MAX_UPLOAD_SIZE_BYTES: String(1024 * 1024) });
    ({ apiKey, userId } = await signUpWithKey(server, 'files@example.com'));
  });
  after(async () => {
    await server.stop();
    expect(server.internalErrors).to.deep.equal([]);
  });

  const fetchBytes = async (url: string, headers: Record<string, string> = {}, method = 'GET') => {
    const response = await fetch(url, { headers, method });
    const bytes = new Uint8Array(await response.arrayBuffer());
    const type = response.headers.get('content-type');
    const body = type?.startsWith('application/json') ? JSON.parse(Buffer.from(bytes).toString('utf8')) : undefined;
    checkResponse(new URL(url).origin, method, new URL(url).pathname, response.status, type, body);
    return { status: response.status, headers: response.headers, bytes };
  };
  /** The file's public address on the running content server (PUBLIC_CONTENT_URL is a test name). */
  const local = (publicUrl: string) => publicUrl.replace('http://cdn.hangar.test', server.content);

  it('uploads a PNG: 201 with the File object, and /m and /d serve the same bytes', async () => {
    const png = makePng();
    const result = await upload(server, apiKey, png, { name: 'pixel.png' });
    expect(result.status, JSON.stringify(result.body)).to.equal(201);
    const file = result.body.file;
    expect(result.body.message).to.be.a('string');
    expect(file).to.have.keys(
      'id',
      'user_id',
      'file_id',
      'name',
      'content_type',
      'size',
      'public_url',
      'default_url',
      'default_download_url',
      'public_download_url',
      'view_url',
      'created_at',
      'is_public',
      'expires_at',
      'width',
      'height',
      'duration_seconds',
      'thumbhash',
      'metadata_removed',
      'view_count',
      'download_count',
    );
    expect(file).to.include({ user_id: userId, name: 'pixel.png', content_type: 'image/png', size: png.length, is_public: true });
    expect(file.file_id).to.match(/^[0-9A-Za-z]{10}$/);
    expect(file.public_url).to.equal(`http://cdn.hangar.test/m/${file.file_id}`);
    expect(file.default_url).to.equal(file.public_url);
    expect(file.public_download_url).to.equal(`http://cdn.hangar.test/d/${file.file_id}`);
    expect(file.default_download_url).to.equal(file.public_download_url);
    expect(file.view_url).to.equal(`http://cdn.hangar.test/v/${file.file_id}`);
    expect(file.created_at).to.match(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

    const view = await fetchBytes(local(file.public_url));
    expect(view.status).to.equal(200);
    expect(sha256(view.bytes)).to.equal(sha256(png));
    expect(view.headers.get('content-type')).to.equal('image/png');
    expect(view.headers.get('content-disposition')).to.match(/^inline; filename="pixel.png"/);
    expect(view.headers.get('etag')).to.equal(`"${sha256(png)}"`);
    expect(view.headers.get('x-content-type-options')).to.equal('nosniff');
    expect(view.headers.get('cache-control')).to.match(/public, max-age=\d+/);
    expect(view.headers.get('last-modified')).to.be.a('string');
    expect(view.headers.get('content-security-policy')).to.equal(null);
    const download = await fetchBytes(local(file.public_download_url));
    expect(download.status).to.equal(200);
    expect(sha256(download.bytes)).to.equal(sha256(png));
    expect(download.headers.get('content-disposition')).to.match(/^attachment; filename="pixel.png"; filename\*=UTF-8''pixel.png$/);
  });

  it('serves byte ranges (206, suffix, open-ended), 416 outside the file, 304 on If-None-Match, and HEAD without a body', async () => {
    const pdf = makePdf();
    const { body } = await upload(server, apiKey, pdf, { contentType: 'application/pdf', name: 'doc.pdf' });
    const url = local(body.file.public_url);
    const part = await fetchBytes(url, { range: 'bytes=0-9' });
    expect(part.status).to.equal(206);
    expect(part.headers.get('content-range')).to.equal(`bytes 0-9/${pdf.length}`);
    expect(Buffer.from(part.bytes).toString('latin1')).to.equal(Buffer.from(pdf.slice(0, 10)).toString('latin1'));
    const suffix = await fetchBytes(url, { range: 'bytes=-5' });
    expect(suffix.status).to.equal(206);
    expect(Buffer.from(suffix.bytes).equals(Buffer.from(pdf.slice(-5)))).to.equal(true);
    const open = await fetchBytes(url, { range: `bytes=${pdf.length - 3}-` });
    expect(open.bytes.length).to.equal(3);
    const outside = await fetchBytes(url, { range: `bytes=${pdf.length}-` });
    expect(outside.status).to.equal(416);
    expect(outside.headers.get('content-range')).to.equal(`bytes */${pdf.length}`);
    const etag = part.headers.get('etag')!;
    const cached = await fetchBytes(url, { 'if-none-match': etag });
    expect(cached.status).to.equal(304);
    expect(cached.bytes.length).to.equal(0);
    const head = await fetchBytes(url, {}, 'HEAD');
    expect(head.status).to.equal(200);
    expect(head.headers.get('content-length')).to.equal(String(pdf.length));
    expect(head.bytes.length).to.equal(0);
  });

  it('sandboxes active content such as SVG with a Content-Security-Policy', async () => {
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
    const { body } = await upload(server, apiKey, svg, { contentType: 'image/svg+xml' });
    const view = await fetchBytes(local(body.file.public_url));
    expect(view.headers.get('content-security-policy')).to.match(/^sandbox/);
  });

  it('decodes a percent-encoded x-file-name and encodes it back in Content-Disposition (RFC 6266)', async () => {
    const { status, body } = await upload(server, apiKey, makePdf(), { contentType: 'application/pdf', name: 'r%C3%A9sum%C3%A9.pdf' });
    expect(status).to.equal(201);
    expect(body.file.name).to.equal('résumé.pdf');
    const download = await fetchBytes(local(body.file.public_download_url));
    expect(download.headers.get('content-disposition')).to.equal(`attachment; filename="r_sum_.pdf"; filename*=UTF-8''r%C3%A9sum%C3%A9.pdf`);
    expectError(await upload(server, apiKey, makePdf(), { contentType: 'application/pdf', name: 'a'.repeat(256) }), 400, 'INVALID_FILE_NAME');
  });

  it('reads an x-file-name sent as raw UTF-8 bytes (as curl and ShareX send it) as UTF-8, and keeps a lone Latin-1 byte as it came', async () => {
    // fetch writes each character of a header value as one byte: these are the UTF-8 bytes of the name.
    const rawUtf8 = (text: string) => Buffer.from(text, 'utf8').toString('latin1');
    const utf8 = await upload(server, apiKey, makePdf(), { contentType: 'application/pdf', name: rawUtf8('résumé – 日本.pdf') });
    expect(utf8.status).to.equal(201);
    expect(utf8.body.file.name).to.equal('résumé – 日本.pdf');
    const latin1 = await upload(server, apiKey, makePdf(), { contentType: 'application/pdf', name: 'caf\u00e9.pdf' });
    expect(latin1.body.file.name).to.equal('café.pdf');
  });

  it('refuses a content type outside the allowed list with 400 and stores nothing', async () => {
    const before = await call(server.api, '/files', { apiKey });
    expectError(await upload(server, apiKey, Buffer.from('#!/bin/sh'), { contentType: 'application/x-sh' }), 400, 'CONTENT_TYPE_NOT_ALLOWED');
    const after = await call(server.api, '/files', { apiKey });
    expect(after.body.total).to.equal(before.body.total);
    const types = await call(server.api, '/reference/allowed-content-types');
    expect(types.status).to.equal(200);
    expect(types.body.content_types).to.include('image/png').and.not.include('application/x-sh');
  });

  it('refuses a file over max_upload_size_bytes with 413 FILE_TOO_LARGE, declared or streamed, and keeps nothing', async () => {
    const before = (await call(server.api, '/files', { apiKey })).body.total;
    expectError(await upload(server, apiKey, randomBytesOf(1024 * 1024 + 1)), 413, 'FILE_TOO_LARGE');
    // Chunked, no Content-Length: the limit is enforced while streaming.
    const chunks = async function* () {
      for (let i = 0; i < 20; i++) yield i === 0 ? randomFileOf(64 * 1024, 'video/mp4', 1) : randomBytesOf(64 * 1024, i + 1);
    };
    const streamed = await fetch(`${server.api}/files`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'video/mp4' },
      body: ReadableStream.from(chunks()),
      duplex: 'half',
    });
    expect(streamed.status).to.equal(413);
    expect(((await streamed.json()) as any).code).to.equal('FILE_TOO_LARGE');
    expect((await call(server.api, '/files', { apiKey })).body.total).to.equal(before);
    expect((await upload(server, apiKey, randomFileOf(1024 * 1024))).status).to.equal(201);
  });

  it('refuses an empty body with 400 EMPTY_FILE and no credentials with 401', async () => {
    expectError(await upload(server, apiKey, new Uint8Array(0)), 400, 'EMPTY_FILE');
    expectError(await call(server.api, '/files', { method: 'POST', body: makePng(), headers: { 'content-type': 'image/png' } }), 401, 'UNAUTHORIZED');
  });

  it('keeps private uploads off the public addresses', async () => {
    const { status, body } = await upload(server, apiKey, makePng(), { query: '?isPublic=false', name: 'secret.png' });
    expect(status).to.equal(201);
    expect(body.file.is_public).to.equal(false);
    expect(body.file.public_url).to.equal(null);
    const got = await call(server.api, `/files/${body.file.file_id}`, { apiKey });
    expect(got.status).to.equal(200);
    for (const prefix of ['m', 'd']) {
      const served = await call(server.content, `/${prefix}/${body.file.file_id}`);
      expectError(served, 404, 'FILE_NOT_FOUND');
    }
    expectError(await call(server.content, '/m/doesNotExi'), 404, 'FILE_NOT_FOUND');
    expectError(await upload(server, apiKey, makePng(), { query: '?isPublic=maybe' }), 400, 'VALIDATION_FAILED');
  });

  it('lists newest first with q, type, size, visibility and date filters, and pages', async () => {
    const account = await signUpWithKey(server, 'list@example.com');
    const key = account.apiKey;
    const a = (await upload(server, key, makePng(4, 4), { name: 'Holiday Photo.PNG' })).body.file;
    await new Promise((r) => setTimeout(r, 5));
    const b = (await upload(server, key, makePdf('x'), { contentType: 'application/pdf', name: 'invoice.pdf', query: '?isPublic=false' })).body.file;
    await new Promise((r) => setTimeout(r, 5));
    const c = (await upload(server, key, randomFileOf(5000, 'video/mp4'), { contentType: 'video/mp4', name: 'clip.mp4' })).body.file;
    const ids = async (query: string) => (await call(server.api, `/files${query}`, { apiKey: key })).body.files.map((f: any) => f.file_id);

    expect(await ids('')).to.deep.equal([c.file_id, b.file_id, a.file_id]);
    expect(await ids('?q=holiday')).to.deep.equal([a.file_id]);
    expect(await ids(`?q=${a.file_id.slice(2, 8).toLowerCase()}`)).to.include(a.file_id);
    expect(await ids('?type=application/pdf')).to.deep.equal([b.file_id]);
    expect(await ids(`?sizeMin=5000&sizeMax=5000`)).to.deep.equal([c.file_id]);
    expect(await ids('?isPublic=false')).to.deep.equal([b.file_id]);
    expect(await ids(`?createdAfter=${encodeURIComponent(b.created_at)}`)).to.deep.equal([c.file_id, b.file_id]);
    expect(await ids(`?createdBefore=${encodeURIComponent(b.created_at)}`)).to.deep.equal([b.file_id, a.file_id]);
    const page = await call(server.api, '/files?page=2&limit=2', { apiKey: key });
    expect(page.body).to.include({ total: 3, total_relation: 'eq', page: 2, limit: 2 });
    expect(page.body.files.map((f: any) => f.file_id)).to.deep.equal([a.file_id]);

    expectError(await call(server.api, '/files?type=application/x-sh', { apiKey: key }), 400, 'INVALID_FILTER');
    expectError(await call(server.api, '/files?limit=101', { apiKey: key }), 400, 'VALIDATION_FAILED');
    expectError(await call(server.api, '/files?page=0', { apiKey: key }), 400, 'VALIDATION_FAILED');
    expectError(await call(server.api, '/files?createdAfter=yesterday', { apiKey: key }), 400, 'VALIDATION_FAILED');
    // Bounds past what a byte count or a page can be are refused, on every database (a bigint overflow is not a 500).
    // Numbers are plain decimal integers: not truncated from a fraction or an exponent.
    for (const query of [
      'sizeMin=100000000000000000000',
      'sizeMax=9007199254740992',
      'page=1e300',
      'page=100000000000000000',
      'sizeMin=1.5e6',
      'limit=2.5',
      'page=0x10',
    ]) {
      expectError(await call(server.api, `/files?${query}`, { apiKey: key }), 400, 'VALIDATION_FAILED');
    }
    // Far ranges that are valid answer normally, with every filter combination that counts rather than reads a total.
    for (const query of [
      'sizeMin=9007199254740991',
      'sizeMax=9007199254740991&type=image/png',
      'createdAfter=9999-12-31T23:59:59Z',
      'createdBefore=0001-01-01T00:00:00Z&q=a',
    ]) {
      const answer = await call(server.api, `/files?${query}`, { apiKey: key });
      expect(answer.status, query).to.equal(200);
    }
  });

  it('isolates accounts: another account’s file is 404 to get and delete, and absent from its list', async () => {
    const other = await signUpWithKey(server, 'other@example.com');
    const mine = (await upload(server, apiKey, makePng(), { name: 'mine.png' })).body.file;
    expectError(await call(server.api, `/files/${mine.file_id}`, { apiKey: other.apiKey }), 404, 'FILE_NOT_FOUND');
    expectError(await call(server.api, `/files/${mine.file_id}`, { method: 'DELETE', apiKey: other.apiKey }), 404, 'FILE_NOT_FOUND');
    const bulk = await call(server.api, '/files/bulk-delete', { method: 'POST', apiKey: other.apiKey, json: { ids: [mine.file_id] } });
    expect(bulk.body).to.deep.equal({ deleted: 0, errors: [{ id: mine.file_id, error: 'File not found' }] });
    expect((await call(server.api, '/files', { apiKey: other.apiKey })).body.total).to.equal(0);
    expect((await call(server.api, `/files/${mine.file_id}`, { apiKey })).status).to.equal(200);
    expect((await fetchBytes(local(mine.public_url))).status).to.equal(200);
  });

  it('deletes with 204: the record and the public bytes are gone', async () => {
    const file = (await upload(server, apiKey, makePng(), { name: 'gone.png' })).body.file;
    expect((await call(server.api, `/files/${file.file_id}`, { method: 'DELETE', apiKey })).status).to.equal(204);
    expectError(await call(server.api, `/files/${file.file_id}`, { apiKey }), 404, 'FILE_NOT_FOUND');
    expect((await fetchBytes(local(file.public_url))).status).to.equal(404);
    expectError(await call(server.api, `/files/${file.file_id}`, { method: 'DELETE', apiKey }), 404, 'FILE_NOT_FOUND');
  });

  it('bulk-deletes 1 to 100 ids, reporting the ones not found; an empty or oversized list is 400', async () => {
    const one = (await upload(server, apiKey, makePng())).body.file;
    const two = (await upload(server, apiKey, makePng())).body.file;
    const result = await call(server.api, '/files/bulk-delete', { method: 'POST', apiKey, json: { ids: [one.file_id, two.file_id, 'missing123'] } });
    expect(result.status).to.equal(200);
    expect(result.body).to.deep.equal({ deleted: 2, errors: [{ id: 'missing123', error: 'File not found' }] });
    expect((await fetchBytes(local(one.public_url))).status).to.equal(404);
    expectError(await call(server.api, '/files/bulk-delete', { method: 'POST', apiKey, json: { ids: [] } }), 400, 'VALIDATION_FAILED');
    const many = Array.from({ length: 101 }, (_, i) => `id${String(i).padStart(8, '0')}`);
    expectError(await call(server.api, '/files/bulk-delete', { method: 'POST', apiKey, json: { ids: many } }), 400, 'VALIDATION_FAILED');
  });

  it('answers a bulk delete without any body 400 VALIDATION_FAILED (a body of another type stays 415)', async () => {
    expectError(await call(server.api, '/files/bulk-delete', { method: 'POST', apiKey }), 400, 'VALIDATION_FAILED');
    expectError(
      await call(server.api, '/files/bulk-delete', { method: 'POST', apiKey, headers: { 'content-type': 'application/json' } }),
      400,
      'VALIDATION_FAILED',
    );
    expectError(
      await call(server.api, '/files/bulk-delete', { method: 'POST', apiKey, headers: { 'content-type': 'text/plain' }, body: 'ids' }),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    );
  });

  it('reads and changes max_upload_size_bytes through /settings, and uploads follow it', async () => {
    const account = await signUpWithKey(server, 'settings@example.com');
    const settings = await call(server.api, '/settings', { apiKey: account.apiKey });
    expect(settings.body).to.deep.equal({
      public_url_base: 'http://cdn.hangar.test',
      custom_domain: null,
      max_upload_size_bytes: 1024 * 1024,
      image_metadata: 'strip_location',
    });
    const patched = await call(server.api, '/settings', { method: 'PATCH', apiKey: account.apiKey, json: { max_upload_size_bytes: 100 } });
    expect(patched.status).to.equal(200);
    expect(patched.body.max_upload_size_bytes).to.equal(100);
    expectError(await upload(server, account.apiKey, randomBytesOf(101)), 413, 'FILE_TOO_LARGE');
    expect((await upload(server, account.apiKey, randomFileOf(100))).status).to.equal(201);
    expectError(await call(server.api, '/settings', { method: 'PATCH', apiKey: account.apiKey, json: { max_upload_size_bytes: 0 } }), 400, 'INVALID_SETTINGS');
    expectError(
      await call(server.api, '/settings', { method: 'PATCH', apiKey: account.apiKey, json: { max_upload_size_bytes: 'big' } }),
      400,
      'VALIDATION_FAILED',
    );
    const reset = await call(server.api, '/settings', { method: 'PATCH', apiKey: account.apiKey, json: { max_upload_size_bytes: null } });
    expect(reset.body.max_upload_size_bytes).to.equal(1024 * 1024);
  });

  it('answers /healthz on both servers with 200 while the database and blob store answer', async () => {
    for (const base of [server.api, server.content]) {
      const health = await call(base, '/healthz');
      expect(health.status).to.equal(200);
      expect(health.body).to.deep.equal({ status: 'ok', checks: { database: 'ok', blob_store: 'ok' } });
    }
  });
});
