import { expect } from 'chai';
import { checkResponse } from '../support/openapi-check.js';
import { call, expectError, signUpWithKey, startTestServer, type TestServer, upload } from '../support/http-harness.js';
import { describeImage, exifJpeg, solidPng } from '../support/images.js';

/** GET of a thumbnail with the bytes kept (fetch, checked against the OpenAPI document). */
async function thumbnail(server: TestServer, fileId: string, init: { token?: string; apiKey?: string; etag?: string }) {
  const headers: Record<string, string> = {};
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  if (init.apiKey) headers['x-api-key'] = init.apiKey;
  if (init.etag) headers['if-none-match'] = init.etag;
  const response = await fetch(`${server.api}/files/${fileId}/thumbnail`, { headers });
  const bytes = Buffer.from(await response.arrayBuffer());
  const type = response.headers.get('content-type');
  checkResponse(
    server.api,
    'GET',
    `/files/${fileId}/thumbnail`,
    response.status,
    type,
    type?.startsWith('application/json') ? JSON.parse(bytes.toString()) : undefined,
  );
  return { status: response.status, headers: response.headers, bytes };
}

describe('HTTP: the owner’s thumbnails (GET /files/:id/thumbnail)', function () {
  this.timeout(30_000);
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ DEFAULT_MAX_UPLOAD_SIZE_BYTES: String(4 * 1024 * 1024), IMAGE_OPS_LIMIT: '1' });
  });
  after(async () => {
    await server.stop();
    expect(server.internalErrors).to.deep.equal([]);
  });

  it('serves a 320×320 WebP of a public or private image to its owner, leaving origin_reads and image_ops unchanged', async () => {
    const owner = await signUpWithKey(server, 'thumbs@example.com');
    const png = (await upload(server, owner.apiKey, await solidPng(800, 600), { name: 'public.png' })).body.file;
    const jpeg = (await upload(server, owner.apiKey, await exifJpeg(640, 480, 6), { contentType: 'image/jpeg', name: 'private.jpg', query: '?isPublic=false' }))
      .body.file;
    const usage = async () => (await call(server.api, '/usage', { apiKey: owner.apiKey })).body as { origin_reads: number; image_ops: number };
    const before = await usage();

    // Several times each, more than the plan's one image operation allows: none is refused or counted.
    for (let round = 0; round < 3; round++) {
      for (const file of [png, jpeg]) {
        const got = await thumbnail(server, file.file_id, { token: owner.accessToken });
        expect(got.status, got.bytes.toString()).to.equal(200);
        expect(got.headers.get('content-type')).to.equal('image/webp');
        expect(got.headers.get('cache-control')).to.equal('private, max-age=86400');
        expect(await describeImage(got.bytes)).to.include({ format: 'webp', width: 320, height: 320, exif: false });
      }
    }
    const first = await thumbnail(server, png.file_id, { apiKey: owner.apiKey });
    const revalidated = await thumbnail(server, png.file_id, { token: owner.accessToken, etag: first.headers.get('etag')! });
    expect(revalidated.status).to.equal(304);
    expect(await usage()).to.include({ origin_reads: before.origin_reads, image_ops: before.image_ops });
  });

  it('answers 404 for another account’s file, 400 NOT_AN_IMAGE for a text file, 401 without a credential', async () => {
    const owner = await signUpWithKey(server, 'thumbs-owner@example.com');
    const stranger = await signUpWithKey(server, 'thumbs-stranger@example.com');
    const png = (await upload(server, owner.apiKey, await solidPng(64, 64), { name: 'mine.png' })).body.file;
    const text = (await upload(server, owner.apiKey, Buffer.from('hello'), { contentType: 'text/plain', name: 'a.txt' })).body.file;
    expectError(await call(server.api, `/files/${png.file_id}/thumbnail`, { apiKey: stranger.apiKey }), 404, 'FILE_NOT_FOUND');
    expectError(await call(server.api, `/files/${text.file_id}/thumbnail`, { apiKey: owner.apiKey }), 400, 'NOT_AN_IMAGE');
    expectError(await call(server.api, `/files/${png.file_id}/thumbnail`), 401, 'UNAUTHORIZED');
  });
});
