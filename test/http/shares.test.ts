import { expect } from 'chai';
import { makePng, randomFileOf, sha256 } from '../support/bytes.js';
import { checkResponse } from '../support/openapi-check.js';
import { call, expectError, signUpWithKey, startTestServer, type TestServer, upload } from '../support/http-harness.js';
import { OffsetClock } from '../support/offset-clock.js';

describe('HTTP: share links', () => {
  let server: TestServer;
  let apiKey: string;
  let otherKey: string;
  const clock = new OffsetClock();
  before(async () => {
    server = await startTestServer({}, {}, { clock });
    ({ apiKey } = await signUpWithKey(server, 'sharer@example.com'));
    ({ apiKey: otherKey } = await signUpWithKey(server, 'other-sharer@example.com'));
  });
  after(async () => {
    await server.stop();
    expect(server.internalErrors).to.deep.equal([]);
  });

  /** A request to the content server, checked against the OpenAPI document. */
  const request = async (url: string, init: RequestInit = {}) => {
    const response = await fetch(url, { redirect: 'manual', ...init });
    const bytes = new Uint8Array(await response.arrayBuffer());
    const type = response.headers.get('content-type');
    const text = Buffer.from(bytes).toString('utf8');
    const body = type?.startsWith('application/json') ? JSON.parse(text) : type?.startsWith('text/html') ? text : undefined;
    checkResponse(new URL(url).origin, init.method ?? 'GET', new URL(url).pathname, response.status, type, body);
    return { status: response.status, headers: response.headers, bytes, text, body };
  };
  const local = (url: string) => url.replace('http://cdn.hangar.test', server.content);
  const share = (fileId: string, json: unknown, key = apiKey) => call(server.api, `/files/${fileId}/shares`, { method: 'POST', apiKey: key, json });
  const withPassword = (url: string, password: string) =>
    request(`${local(url)}/download`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ password }).toString(),
    });

  it('shares a private file: a page without script and a download link; listed with its count; revoked → 404', async () => {
    const bytes = randomFileOf(3000, 'application/pdf', 41);
    const file = (await upload(server, apiKey, bytes, { contentType: 'application/pdf', name: 'report <1>.pdf', query: '?isPublic=false' })).body.file;
    const created = await share(file.file_id, {});
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    expect(created.body).to.include({ file_id: file.file_id, has_password: false, expires_at: null, max_downloads: null, downloads: 0 });
    expect(created.body.url).to.equal(`http://cdn.hangar.test/share/${created.body.share_id}`);

    const page = await request(local(created.body.url));
    expect(page.status).to.equal(200);
    expect(page.text).to.include('report &#60;1&#62;.pdf').and.include(`href="/share/${created.body.share_id}/download"`).and.not.include('<script');
    const download = await request(`${local(created.body.url)}/download`);
    expect(download.status).to.equal(200);
    expect(sha256(download.bytes)).to.equal(sha256(bytes));
    expect(download.headers.get('content-disposition')).to.match(/^attachment; filename="report <1>.pdf"/);

    const listed = await call(server.api, `/files/${file.file_id}/shares`, { apiKey });
    expect(listed.status).to.equal(200);
    expect(listed.body.shares).to.have.length(1);
    expect(listed.body.shares[0]).to.include({ share_id: created.body.share_id, downloads: 1 });
    expect((await call(server.api, `/files/${file.file_id}`, { apiKey })).body.download_count).to.equal(1);

    expectError(await call(server.api, `/shares/${created.body.share_id}`, { method: 'DELETE', apiKey: otherKey }), 404, 'SHARE_NOT_FOUND');
    expect((await call(server.api, `/shares/${created.body.share_id}`, { method: 'DELETE', apiKey })).status).to.equal(204);
    expect((await request(local(created.body.url))).status).to.equal(404);
    expect((await request(`${local(created.body.url)}/download`)).body.code).to.equal('SHARE_NOT_FOUND');
    expectError(await call(server.api, `/shares/${created.body.share_id}`, { method: 'DELETE', apiKey }), 404, 'SHARE_NOT_FOUND');
  });

  it('asks for the password with a form; a wrong one shows the form again (403), the right one downloads; attempts are rate-limited', async () => {
    const file = (await upload(server, apiKey, makePng(), { query: '?isPublic=false' })).body.file;
    const created = (await share(file.file_id, { password: 'open sesame' })).body;
    expect(created.has_password).to.equal(true);
    const page = await request(local(created.url));
    expect(page.text).to.include('<form method="post"').and.include('type="password"').and.not.include('<script');
    expectError({ ...(await call(server.content, `/share/${created.share_id}/download`)) }, 401, 'SHARE_PASSWORD_REQUIRED');
    const wrong = await withPassword(created.url, 'open sesame!');
    expect(wrong.status).to.equal(403);
    expect(wrong.text).to.include('type="password"');
    const right = await withPassword(created.url, 'open sesame');
    expect(right.status).to.equal(200);
    expect(sha256(right.bytes)).to.equal(sha256(makePng()));
    // 10 attempts per link and client in 10 minutes: 2 made, 8 more, then 429.
    for (let i = 0; i < 8; i++) expect((await withPassword(created.url, `guess ${i}`)).status).to.equal(403);
    const limited = await withPassword(created.url, 'open sesame');
    expect(limited.status).to.equal(429);
  });

  it('lets exactly max_downloads of 12 concurrent downloads through, then answers 410 SHARE_EXPIRED (page and download)', async () => {
    const file = (await upload(server, apiKey, randomFileOf(2000, 'image/png', 42))).body.file;
    const created = (await share(file.file_id, { max_downloads: 3 })).body;
    const results = await Promise.all(Array.from({ length: 12 }, () => request(`${local(created.url)}/download`)));
    const statuses = results.map((r) => r.status).sort();
    expect(
      statuses.filter((s) => s === 200),
      JSON.stringify(statuses),
    ).to.have.length(3);
    expect(statuses.filter((s) => s === 410)).to.have.length(9);
    expect(results.find((r) => r.status === 410)!.body.code).to.equal('SHARE_EXPIRED');
    expect((await request(local(created.url))).status).to.equal(410);
    expect((await call(server.api, `/files/${file.file_id}/shares`, { apiKey })).body.shares[0].downloads).to.equal(3);
  });

  it('expires at expires_at (410), and ends with its file (404)', async () => {
    const file = (await upload(server, apiKey, makePng())).body.file;
    const created = (await share(file.file_id, { expires_at: new Date(clock.now().getTime() + 60_000).toISOString() })).body;
    expect((await request(local(created.url))).status).to.equal(200);
    clock.advance(61_000);
    expect((await request(local(created.url))).status).to.equal(410);
    expect((await request(`${local(created.url)}/download`)).status).to.equal(410);
    const other = (await share(file.file_id, {})).body;
    expect((await call(server.api, `/files/${file.file_id}`, { method: 'DELETE', apiKey })).status).to.equal(204);
    expect((await request(local(other.url))).status).to.equal(404);
  });

  it('refuses bad input with 400 and stores nothing: a password over 1 KiB, unknown members, a past expiry, max_downloads 0; another account’s file 404', async () => {
    const file = (await upload(server, apiKey, makePng())).body.file;
    for (const json of [
      { password: 'x'.repeat(1025) },
      { password: 'é'.repeat(600) },
      { colour: 'red' },
      { max_downloads: 0 },
      { password: '' },
      { expires_at: 'soon' },
    ]) {
      expectError(await share(file.file_id, json), 400, 'VALIDATION_FAILED');
    }
    expectError(await share(file.file_id, { expires_at: '2001-01-01T00:00:00Z' }), 400, 'INVALID_EXPIRY');
    expectError(await share(file.file_id, {}, otherKey), 404, 'FILE_NOT_FOUND');
    expectError(await call(server.api, `/files/${file.file_id}/shares`, { apiKey: otherKey }), 404, 'FILE_NOT_FOUND');
    expect((await call(server.api, `/files/${file.file_id}/shares`, { apiKey })).body.shares).to.deep.equal([]);
  });
});
