import { expect } from 'chai';
import { makePng, randomFileOf, sha256 } from '../support/bytes.js';
import { checkResponse } from '../support/openapi-check.js';
import { call, expectError, signUpWithKey, startTestServer, type TestServer, upload } from '../support/http-harness.js';
import { OffsetClock } from '../support/offset-clock.js';
import { describeImage, solidPng } from '../support/images.js';

describe('HTTP: signed URLs', () => {
  let server: TestServer;
  let apiKey: string;
  let otherKey: string;
  const clock = new OffsetClock();
  before(async () => {
    server = await startTestServer({}, {}, { clock });
    ({ apiKey } = await signUpWithKey(server, 'signer@example.com'));
    ({ apiKey: otherKey } = await signUpWithKey(server, 'stranger@example.com'));
  });
  after(async () => {
    await server.stop();
    expect(server.internalErrors).to.deep.equal([]);
  });

  /** GET (or HEAD) through fetch, checked against the OpenAPI document. */
  const fetchUrl = async (url: string, headers: Record<string, string> = {}, method = 'GET') => {
    const response = await fetch(url, { headers, method });
    const bytes = new Uint8Array(await response.arrayBuffer());
    const type = response.headers.get('content-type');
    const body = type?.startsWith('application/json') ? JSON.parse(Buffer.from(bytes).toString('utf8')) : undefined;
    checkResponse(new URL(url).origin, method, new URL(url).pathname, response.status, type, body);
    return { status: response.status, headers: response.headers, bytes, body };
  };
  /** The signed URL on the running content server (PUBLIC_CONTENT_URL is a test name). */
  const local = (signedUrl: string) => signedUrl.replace('http://cdn.hangar.test', server.content);
  const sign = (fileId: string, json: unknown, key = apiKey) => call(server.api, `/files/${fileId}/signed-url`, { method: 'POST', apiKey: key, json });

  it('serves a private file until expires_at, with Range, ETag and 304, then answers 403 SIGNED_URL_EXPIRED', async () => {
    const bytes = randomFileOf(4000, 'application/pdf', 21);
    const fileId = (await upload(server, apiKey, bytes, { contentType: 'application/pdf', name: 'secret.pdf', query: '?isPublic=false' })).body.file.file_id;
    const signed = await sign(fileId, { expires_in: 60 });
    expect(signed.status, JSON.stringify(signed.body)).to.equal(200);
    expect(signed.body.signed_url).to.match(
      new RegExp(`^http://cdn\\.hangar\\.test/s/${fileId}\\?expires=\\d+&kid=[0-9a-f-]{36}&signature=[A-Za-z0-9_-]{43}$`),
    );
    const expiresAt = Date.parse(signed.body.expires_at);
    expect(expiresAt - clock.now().getTime()).to.be.within(59_000, 61_000);

    const url = local(signed.body.signed_url);
    const whole = await fetchUrl(url);
    expect(whole.status).to.equal(200);
    expect(sha256(whole.bytes)).to.equal(sha256(bytes));
    expect(whole.headers.get('content-disposition')).to.match(/^inline; filename="secret.pdf"/);
    expect(whole.headers.get('cache-control')).to.match(/^private, max-age=(5\d|60)$/);
    const etag = `"${sha256(bytes)}"`;
    expect(whole.headers.get('etag')).to.equal(etag);
    const part = await fetchUrl(url, { range: 'bytes=10-19' });
    expect(part.status).to.equal(206);
    expect(Buffer.from(part.bytes).equals(Buffer.from(bytes.subarray(10, 20)))).to.equal(true);
    expect((await fetchUrl(url, { 'if-none-match': etag })).status).to.equal(304);
    expect((await fetchUrl(url, { range: 'bytes=5000-' })).status).to.equal(416);
    expect((await fetchUrl(url, {}, 'HEAD')).headers.get('content-length')).to.equal('4000');

    const download = await sign(fileId, { expires_in: 60, download: true });
    expect((await fetchUrl(local(download.body.signed_url))).headers.get('content-disposition')).to.match(/^attachment; filename="secret.pdf"/);

    clock.advance(61_000);
    const expired = await fetchUrl(url);
    expect(expired.status).to.equal(403);
    expect(expired.body.code).to.equal('SIGNED_URL_EXPIRED');
  });

  it('answers 403 SIGNED_URL_INVALID for a changed file id, expiry, disposition, transform or signature, and for a missing signature', async () => {
    const fileId = (await upload(server, apiKey, makePng(), { query: '?isPublic=false' })).body.file.file_id;
    const otherFile = (await upload(server, apiKey, randomFileOf(300, 'image/png', 22), { query: '?isPublic=false' })).body.file.file_id;
    const url = new URL(local((await sign(fileId, { expires_in: 600 })).body.signed_url));
    expect((await fetchUrl(url.href)).status).to.equal(200);
    const changed = (edit: (u: URL) => void) => {
      const copy = new URL(url.href);
      edit(copy);
      return copy.href;
    };
    const signature = url.searchParams.get('signature')!;
    const tampered = [
      changed((u) => u.searchParams.set('expires', String(Number(u.searchParams.get('expires')) + 3600))),
      changed((u) => u.searchParams.set('download', '1')),
      changed((u) => u.searchParams.set('w', '10')),
      changed((u) => u.searchParams.set('signature', (signature[0] === 'A' ? 'B' : 'A') + signature.slice(1))),
      changed((u) => u.searchParams.delete('signature')),
      changed((u) => u.searchParams.set('expires', 'soon')),
      changed((u) => (u.pathname = `/s/${otherFile}`)),
    ];
    for (const href of tampered) {
      const answer = await fetchUrl(href);
      expect(answer.status, href).to.equal(403);
      expect(answer.body.code, href).to.equal('SIGNED_URL_INVALID');
    }
  });

  it('answers 403 SIGNED_URL_INVALID for another spelling of the same signature or of a signed number', async () => {
    const fileId = (await upload(server, apiKey, makePng(), { query: '?isPublic=false' })).body.file.file_id;
    const url = new URL(local((await sign(fileId, { expires_in: 600, transform: { w: 37 } })).body.signed_url));
    expect((await fetchUrl(url.href)).status).to.equal(200);
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const signature = url.searchParams.get('signature')!;
    const variants: string[] = [];
    const edit = (change: (u: URL) => void) => {
      const copy = new URL(url.href);
      change(copy);
      variants.push(copy.href);
    };
    // The probe's reproduction: the last character's neighbour in its group of four (same digest bytes).
    edit((u) => u.searchParams.set('signature', signature.slice(0, 42) + alphabet[alphabet.indexOf(signature[42]) + 1]));
    edit((u) => u.searchParams.set('expires', `0${u.searchParams.get('expires')}`));
    edit((u) => u.searchParams.set('w', '037'));
    for (const href of [...variants, url.href.replace('expires=', 'expires=%2B')]) {
      const answer = await fetchUrl(href);
      expect(answer.status, href).to.equal(403);
      expect(answer.body.code, href).to.equal('SIGNED_URL_INVALID');
    }
  });

  it('stops every URL signed before when the signing key is rotated; URLs signed afterwards work', async () => {
    const fileId = (await upload(server, apiKey, makePng(), { query: '?isPublic=false' })).body.file.file_id;
    const before = local((await sign(fileId, { expires_in: 600 })).body.signed_url);
    expect((await fetchUrl(before)).status).to.equal(200);
    const rotated = await call(server.api, '/settings/rotate-signing-key', { method: 'POST', apiKey });
    expect(rotated.status).to.equal(200);
    const revoked = await fetchUrl(before);
    expect(revoked.status).to.equal(403);
    expect(revoked.body.code).to.equal('SIGNED_URL_INVALID');
    expect((await fetchUrl(local((await sign(fileId, { expires_in: 600 })).body.signed_url))).status).to.equal(200);
  });

  it('ends a file’s URLs when the file is deleted (404 FILE_NOT_FOUND)', async () => {
    const fileId = (await upload(server, apiKey, makePng())).body.file.file_id;
    const url = local((await sign(fileId, { expires_in: 600 })).body.signed_url);
    expect((await fetchUrl(url)).status).to.equal(200);
    expect((await call(server.api, `/files/${fileId}`, { method: 'DELETE', apiKey })).status).to.equal(204);
    const gone = await fetchUrl(url);
    expect(gone.status).to.equal(404);
    expect(gone.body.code).to.equal('FILE_NOT_FOUND');
  });

  it('serves a granted transform of a private image at exactly the granted size', async () => {
    const fileId = (await upload(server, apiKey, await solidPng(64, 48), { query: '?isPublic=false' })).body.file.file_id;
    const signed = await sign(fileId, { expires_in: 600, transform: { w: 37, h: 23, fit: 'fill', format: 'png' } });
    expect(signed.status, JSON.stringify(signed.body)).to.equal(200);
    expect(signed.body.signed_url).to.match(/[?&]w=37&h=23&fit=fill&format=png&kid=[0-9a-f-]{36}&signature=/);
    const image = await fetchUrl(local(signed.body.signed_url));
    expect(image.status).to.equal(200);
    expect(image.headers.get('content-type')).to.equal('image/png');
    expect(await describeImage(image.bytes)).to.include({ format: 'png', width: 37, height: 23 });
  });

  it('refuses bad requests with 400 (expires_in out of range, unknown members, a transform of a PDF) and another account’s file with 404', async () => {
    const fileId = (await upload(server, apiKey, makePng())).body.file.file_id;
    for (const json of [
      { expires_in: 0 },
      { expires_in: 604_801 },
      { expires_in: 1.5 },
      {},
      { expires_in: 60, colour: 'red' },
      { expires_in: 60, transform: { w: 0 } },
    ]) {
      expectError(await sign(fileId, json), 400, 'VALIDATION_FAILED');
    }
    const pdf = (await upload(server, apiKey, randomFileOf(100, 'application/pdf', 23), { contentType: 'application/pdf' })).body.file.file_id;
    expectError(await sign(pdf, { expires_in: 60, transform: { w: 10 } }), 400, 'NOT_AN_IMAGE');
    expectError(await sign(fileId, { expires_in: 60 }, otherKey), 404, 'FILE_NOT_FOUND');
    expect((await sign(fileId, { expires_in: 604_800 })).status).to.equal(200);
  });
});

describe('HTTP: view and download counts', () => {
  let server: TestServer;
  let apiKey: string;
  before(async () => {
    server = await startTestServer();
    ({ apiKey } = await signUpWithKey(server, 'counts@example.com'));
  });
  after(async () => {
    await server.stop();
    expect(server.internalErrors).to.deep.equal([]);
  });

  it('counts views at /m and inline signed URLs, downloads at /d and download signed URLs, shown at once and the same once written', async () => {
    const file = (await upload(server, apiKey, makePng())).body.file;
    expect(file).to.include({ view_count: 0, download_count: 0 });
    for (let i = 0; i < 3; i++) expect((await fetch(`${server.content}/m/${file.file_id}`)).status).to.equal(200);
    for (let i = 0; i < 2; i++) expect((await fetch(`${server.content}/d/${file.file_id}`)).status).to.equal(200);
    const local = (url: string) => url.replace('http://cdn.hangar.test', server.content);
    const inline = (await call(server.api, `/files/${file.file_id}/signed-url`, { method: 'POST', apiKey, json: { expires_in: 60 } })).body.signed_url;
    const download = (await call(server.api, `/files/${file.file_id}/signed-url`, { method: 'POST', apiKey, json: { expires_in: 60, download: true } })).body
      .signed_url;
    expect((await fetch(local(inline))).status).to.equal(200);
    expect((await fetch(local(download))).status).to.equal(200);
    // The owner's own download through the API is not a view or a download by someone.
    expect((await call(server.api, `/files/${file.file_id}/content`, { apiKey })).status).to.equal(200);
    const counts = async () => {
      const got = (await call(server.api, `/files/${file.file_id}`, { apiKey })).body;
      const listed = (await call(server.api, '/files', { apiKey })).body.files.find((f: any) => f.file_id === file.file_id);
      expect(listed).to.include({ view_count: got.view_count, download_count: got.download_count });
      return [got.view_count, got.download_count];
    };
    expect(await counts()).to.deep.equal([4, 3]);
    await server.running.hangar.fileReadCounts.flush();
    expect(await counts()).to.deep.equal([4, 3]);
    expect((await fetch(`${server.content}/d/${file.file_id}`)).status).to.equal(200);
    expect(await counts()).to.deep.equal([4, 4]);
  });
});

describe('HTTP: signed deletion links (ShareX DeletionURL)', () => {
  let server: TestServer;
  let apiKey: string;
  before(async () => {
    server = await startTestServer();
    ({ apiKey } = await signUpWithKey(server, 'deleter@example.com'));
  });
  after(async () => {
    await server.stop();
    expect(server.internalErrors).to.deep.equal([]);
  });

  /** A page request, checked against the OpenAPI document. */
  const pageAt = async (url: string, method = 'GET') => {
    const response = await fetch(url, { method });
    const text = await response.text();
    checkResponse(new URL(url).origin, method, new URL(url).pathname, response.status, response.headers.get('content-type'), text);
    return { status: response.status, text };
  };
  const local = (url: string) => url.replace('http://api.hangar.test', server.api);

  it('adds deletion_url to an upload asked with deletionUrl=true: its page deletes nothing, its form’s POST deletes the file', async () => {
    const plain = await upload(server, apiKey, makePng());
    expect(plain.body).to.not.have.property('deletion_url');
    const uploaded = await upload(server, apiKey, makePng(), { name: 'gone.png', query: '?deletionUrl=true' });
    const fileId = uploaded.body.file.file_id;
    expect(uploaded.body.deletion_url).to.match(
      new RegExp(`^http://api\\.hangar\\.test/files/${fileId}/delete\\?signature=[A-Za-z0-9_-]{43}&kid=[0-9a-f-]{36}$`),
    );
    const url = local(uploaded.body.deletion_url);
    const page = await pageAt(url);
    expect(page.status).to.equal(200);
    expect(page.text).to.include('Delete gone.png?').and.include('<form method="post">');
    expect((await call(server.api, `/files/${fileId}`, { apiKey })).status).to.equal(200);
    // Another first character than the real one (a fixed 'A' was the real one once in 64 runs).
    const forged = url.replace(/signature=(.)/, (_match, first: string) => `signature=${first === 'A' ? 'B' : 'A'}`);
    expect((await pageAt(forged, 'POST')).status).to.equal(403);
    expect((await call(server.api, `/files/${fileId}`, { apiKey })).status).to.equal(200);
    expect((await pageAt(url, 'POST')).status).to.equal(200);
    expectError(await call(server.api, `/files/${fileId}`, { apiKey }), 404, 'FILE_NOT_FOUND');
    expect((await pageAt(url)).status).to.equal(404);
  });

  it('stops working once the signing key is rotated', async () => {
    const uploaded = await upload(server, apiKey, makePng(), { query: '?deletionUrl=true' });
    await call(server.api, '/settings/rotate-signing-key', { method: 'POST', apiKey });
    expect((await pageAt(local(uploaded.body.deletion_url), 'POST')).status).to.equal(403);
    expect((await call(server.api, `/files/${uploaded.body.file.file_id}`, { apiKey })).status).to.equal(200);
  });
});
