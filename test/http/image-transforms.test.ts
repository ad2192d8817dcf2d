import { expect } from 'chai';
import { blobsUnder } from '../support/stored-blobs.js';
import http from 'node:http';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { sha256 } from '../support/bytes.js';
import { call, signUpWithKey, startTestServer, type TestServer, upload, localDiskIt } from '../support/http-harness.js';
import { corruptPng, describeImage, exifJpeg, pngBomb, solidPng } from '../support/images.js';
import { checkResponse } from '../support/openapi-check.js';

/** GET/HEAD on the content server, checked against the OpenAPI document; `host` overrides Host. */
function get(
  base: string,
  pathAndQuery: string,
  headers: Record<string, string> = {},
  method = 'GET',
): Promise<{ status: number; headers: http.IncomingHttpHeaders; bytes: Buffer; body: any }> {
  const url = new URL(pathAndQuery, base);
  return new Promise((resolve, reject) => {
    const request = http.request({ method, hostname: url.hostname, port: url.port, path: url.pathname + url.search, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const bytes = Buffer.concat(chunks);
        const type = response.headers['content-type'] ?? null;
        const body = type?.startsWith('application/json') ? JSON.parse(bytes.toString()) : undefined;
        checkResponse(base, method, url.pathname, response.statusCode!, type, body);
        resolve({ status: response.statusCode!, headers: response.headers, bytes, body });
      });
    });
    request.on('error', reject);
    request.end();
  });
}

function expectErrorBody(result: { status: number; headers: http.IncomingHttpHeaders; body: any }, status: number, code: string): void {
  expect(result.status, JSON.stringify(result.body)).to.equal(status);
  expect(result.body.code).to.equal(code);
  expect(result.body.message).to.be.a('string').and.not.equal('');
  expect(result.headers['cache-control'], 'an error is never cached for a year').to.equal(undefined);
}

describe('HTTP: image transformations on /m/:file_id', function () {
  this.timeout(30_000);
  let server: TestServer;
  let apiKey: string;
  let jpeg: Buffer;
  let jpegId: string;

  before(async () => {
    server = await startTestServer({ DEFAULT_MAX_UPLOAD_SIZE_BYTES: String(4 * 1024 * 1024), IMAGE_OPS_LIMIT: '6' });
    ({ apiKey } = await signUpWithKey(server, 'images@example.com'));
    jpeg = await exifJpeg(640, 480, 6);
    const uploaded = await upload(server, apiKey, jpeg, { contentType: 'image/jpeg', name: 'photo.jpg' });
    expect(uploaded.status, JSON.stringify(uploaded.body)).to.equal(201);
    jpegId = uploaded.body.file.file_id;
  });
  after(async () => {
    await server.stop();
    expect(server.internalErrors).to.deep.equal([]);
  });

  const imageOps = async () => {
    const usage = await call(server.api, '/usage', { apiKey });
    expect(usage.status).to.equal(200);
    return usage.body.image_ops as number;
  };

  it('serves a 320×320 WebP thumbnail, upright and without metadata, then the same bytes from the cache with image_ops unchanged', async () => {
    const before = await imageOps();
    const first = await get(server.content, `/m/${jpegId}?w=320&h=320&fit=cover&format=webp`);
    expect(first.status).to.equal(200);
    expect(first.headers['content-type']).to.equal('image/webp');
    expect(await describeImage(first.bytes)).to.deep.equal({
      format: 'webp',
      width: 320,
      height: 320,
      pages: 1,
      orientation: undefined,
      exif: false,
      xmp: false,
      icc: false,
    });
    expect(first.headers.etag).to.match(/^"[0-9a-f]{64}-[0-9A-Za-z_-]+"$/);
    expect(first.headers.etag).to.not.equal(`"${sha256(jpeg)}"`);
    expect(first.headers['cache-control']).to.equal('public, max-age=31536000, immutable');
    expect(first.headers['x-content-type-options']).to.equal('nosniff');
    expect(first.headers.vary).to.equal(undefined);
    expect(await imageOps()).to.equal(before + 1);

    const second = await get(server.content, `/m/${jpegId}?fit=cover&format=webp&h=320&w=320&q=80`);
    expect(second.status).to.equal(200);
    expect(second.bytes.equals(first.bytes)).to.equal(true);
    expect(second.headers.etag).to.equal(first.headers.etag);
    expect(await imageOps()).to.equal(before + 1);

    const revalidated = await get(server.content, `/m/${jpegId}?w=320&h=320&fit=cover&format=webp`, { 'if-none-match': first.headers.etag! });
    expect(revalidated.status).to.equal(304);
    expect(revalidated.bytes.length).to.equal(0);
    expect(revalidated.headers.etag).to.equal(first.headers.etag);
    expect(await imageOps()).to.equal(before + 1);
  });

  it('serves the original exactly as before without parameters (and with unrelated ones)', async () => {
    for (const query of ['', '?v=2']) {
      const original = await get(server.content, `/m/${jpegId}${query}`);
      expect(original.status).to.equal(200);
      expect(sha256(original.bytes)).to.equal(sha256(jpeg));
      expect(original.headers.etag).to.equal(`"${sha256(jpeg)}"`);
    }
  });

  it('negotiates format=auto from Accept and says Vary: Accept', async () => {
    const avif = await get(server.content, `/m/${jpegId}?w=64&format=auto`, { accept: 'image/avif,image/webp,*/*' });
    expect(avif.status).to.equal(200);
    expect(avif.headers['content-type']).to.equal('image/avif');
    expect(avif.headers.vary).to.equal('Accept');
    const fallback = await get(server.content, `/m/${jpegId}?w=64&format=auto`, { accept: '*/*' });
    expect(fallback.headers['content-type']).to.equal('image/jpeg');
    expect(fallback.headers.vary).to.equal('Accept');
    expect(fallback.headers.etag).to.not.equal(avif.headers.etag);
    expect(await describeImage(fallback.bytes)).to.include({ format: 'jpeg', width: 64, height: 85 });
  });

  it('serves thumbnails on the account’s verified custom domain, and nothing on an unknown host', async () => {
    expect((await call(server.api, '/settings', { method: 'PATCH', apiKey, json: { custom_domain: 'img.example.com' } })).status).to.equal(200);
    expect((await call(server.api, '/settings', { method: 'PATCH', apiKey, json: { refresh_custom_domain: true } })).body.custom_domain).to.include({
      verification_status: 'active',
    });
    const served = await get(server.content, `/m/${jpegId}?w=320&h=320&fit=cover&format=webp`, { host: 'img.example.com' });
    expect(served.status).to.equal(200);
    expect(await describeImage(served.bytes)).to.include({ format: 'webp', width: 320, height: 320 });
    expectErrorBody(await get(server.content, `/m/${jpegId}?w=320&h=320&fit=cover&format=webp`, { host: 'elsewhere.example.net' }), 404, 'FILE_NOT_FOUND');
  });

  it('answers HEAD with the headers of the image and no body', async () => {
    const head = await get(server.content, `/m/${jpegId}?w=320&h=320&fit=cover&format=webp`, {}, 'HEAD');
    expect(head.status).to.equal(200);
    expect(head.headers['content-type']).to.equal('image/webp');
    expect(head.bytes.length).to.equal(0);
  });

  it('refuses unknown or out-of-range values with 400 INVALID_TRANSFORM, computing nothing', async () => {
    const before = await imageOps();
    for (const query of ['w=0', 'w=4097', 'h=abc', 'fit=stretch', 'format=bmp', 'q=0', 'q=101', 'w=', 'w=10&w=20']) {
      const refused = await get(server.content, `/m/${jpegId}?${query}`);
      expectErrorBody(refused, 400, 'INVALID_TRANSFORM');
    }
    expect(await imageOps()).to.equal(before);
  });

  it('refuses parameters on a file that is not an image with 400 NOT_AN_IMAGE, and serves it without them', async () => {
    const text = await upload(server, apiKey, Buffer.from('just words'), { contentType: 'text/plain' });
    const refused = await get(server.content, `/m/${text.body.file.file_id}?w=100`);
    expectErrorBody(refused, 400, 'NOT_AN_IMAGE');
    expect((await get(server.content, `/m/${text.body.file.file_id}`)).status).to.equal(200);
  });

  it('answers 422 for a decompression bomb and for a corrupt image, never a 500', async () => {
    const bomb = await upload(server, apiKey, pngBomb(), { contentType: 'image/png' });
    expectErrorBody(await get(server.content, `/m/${bomb.body.file.file_id}?w=100`), 422, 'IMAGE_TOO_LARGE');
    const corrupt = await upload(server, apiKey, corruptPng(), { contentType: 'image/png' });
    expectErrorBody(await get(server.content, `/m/${corrupt.body.file.file_id}?w=100`), 422, 'IMAGE_UNREADABLE');
  });

  localDiskIt('deletes the derived images with their file', async () => {
    const png = await upload(server, apiKey, await solidPng(300, 200), { contentType: 'image/png' });
    const id = png.body.file.file_id as string;
    expect((await get(server.content, `/m/${id}?w=50&format=webp`)).status).to.equal(200);
    const blobDir = path.join(server.dataDir, 'blobs');
    const stored = (await blobsUnder(blobDir)).filter((name) => name.includes(id));
    expect(stored, 'the original and one derived image').to.have.length(2);
    expect((await call(server.api, `/files/${id}`, { method: 'DELETE', apiKey })).status).to.equal(204);
    expect((await blobsUnder(blobDir)).filter((name) => name.includes(id))).to.deep.equal([]);
    expectErrorBody(await get(server.content, `/m/${id}?w=50&format=webp`), 404, 'FILE_NOT_FOUND');
  });

  it('stops new transformations at the plan’s IMAGE_OPS_LIMIT with 403 while originals and cached thumbnails are served', async () => {
    let used = await imageOps();
    // Distinct qualities: distinct widths would be snapped to one size of the ladder.
    for (let q = 50; used < 6; q++) {
      expect((await get(server.content, `/m/${jpegId}?w=100&format=webp&q=${q}`)).status).to.equal(200);
      used = await imageOps();
    }
    const refused = await get(server.content, `/m/${jpegId}?w=100&format=webp&q=99`);
    expectErrorBody(refused, 403, 'IMAGE_OPS_LIMIT_REACHED');
    expect((await get(server.content, `/m/${jpegId}`)).status).to.equal(200);
    expect((await get(server.content, `/m/${jpegId}?w=320&h=320&fit=cover&format=webp`)).status).to.equal(200);
    expect(await imageOps()).to.equal(6);
    const profile = await call(server.api, '/profile', { apiKey });
    expect(profile.body.plan.image_ops_limit).to.equal(6);
  });
});

describe('HTTP: image transformations under load', function () {
  this.timeout(30_000);
  let server: TestServer;
  let apiKey: string;
  before(async () => {
    server = await startTestServer({ DEFAULT_MAX_UPLOAD_SIZE_BYTES: String(4 * 1024 * 1024), IMAGE_CONCURRENCY: '1', IMAGE_QUEUE_TIMEOUT_MS: '0' });
    ({ apiKey } = await signUpWithKey(server, 'busy@example.com'));
  });
  after(async () => {
    await server.stop();
    expect(server.internalErrors).to.deep.equal([]);
  });

  it('computes a new variant once for 6 simultaneous requests (image_ops 1), all of them served', async () => {
    const uploaded = await upload(server, apiKey, await exifJpeg(800, 600, 1), { contentType: 'image/jpeg' });
    const id = uploaded.body.file.file_id;
    const results = await Promise.all(Array.from({ length: 6 }, () => get(server.content, `/m/${id}?w=120&format=webp`)));
    expect(results.map((r) => r.status)).to.deep.equal(Array(6).fill(200));
    expect(new Set(results.map((r) => sha256(r.bytes))).size).to.equal(1);
    expect((await call(server.api, '/usage', { apiKey })).body.image_ops).to.equal(1);
  });

  it('answers 503 IMAGE_BUSY with Retry-After when the only slot is taken and no wait is allowed', async () => {
    const uploaded = await upload(server, apiKey, await exifJpeg(1600, 1200, 1), { contentType: 'image/jpeg' });
    const id = uploaded.body.file.file_id;
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => get(server.content, `/m/${id}?w=256&format=webp&q=${50 + i}`)));
    const busy = results.filter((r) => r.status === 503);
    expect(busy.length, 'at least one request found the slot taken').to.be.at.least(1);
    for (const refused of busy) {
      expectErrorBody(refused, 503, 'IMAGE_BUSY');
      expect(refused.headers['retry-after']).to.equal('1');
    }
    expect(results.filter((r) => r.status === 200).length + busy.length).to.equal(6);
  });
});

describe('HTTP: variant floods are bounded (docs/images.md, "Bounds")', function () {
  this.timeout(60_000);
  let server: TestServer;
  let apiKey: string;

  before(async () => {
    // Every blob a file, so that the stored variants' sizes can be read from the disk.
    server = await startTestServer({
      DEFAULT_MAX_UPLOAD_SIZE_BYTES: String(4 * 1024 * 1024),
      SMALL_BLOB_MAX_BYTES: '0',
      RATE_LIMIT_IMAGE_TRANSFORMS_PER_MINUTE: '100',
    });
    ({ apiKey } = await signUpWithKey(server, 'flood@example.com'));
  });
  after(async () => {
    await server.stop();
    expect(server.internalErrors).to.deep.equal([]);
  });

  const usage = async () => (await call(server.api, '/usage', { apiKey })).body as { storage_bytes: number; image_ops: number };
  /** Bytes of every blob stored under the file's key (its variants), read from the disk. */
  const variantBytes = async (id: string) => {
    const blobDir = path.join(server.dataDir, 'blobs');
    const names = (await blobsUnder(blobDir)).filter((name) => name.includes(`${id}~`) && name.startsWith('file:'));
    let total = 0;
    for (const name of names) total += (await stat(path.join(blobDir, name.slice('file:'.length)))).size;
    return { count: names.length, total };
  };

  it('stores at most 20 variants of a file for 60 anonymous requests of distinct variants, counts them in storage_bytes, and releases them on delete', async () => {
    const source = await exifJpeg(640, 480, 1);
    const uploaded = await upload(server, apiKey, source, { contentType: 'image/jpeg' });
    const id = uploaded.body.file.file_id as string;
    const before = await usage();
    for (let q = 1; q <= 60; q++) {
      const response = await get(server.content, `/m/${id}?w=64&format=webp&q=${q}`);
      expect(response.status, `q=${q}`).to.equal(200);
    }
    const stored = await variantBytes(id);
    expect(stored.count, 'stored variants').to.equal(20);
    const after = await usage();
    expect(after.image_ops - before.image_ops, 'each computation still counts').to.equal(60);
    expect(after.storage_bytes).to.equal(source.length + stored.total);
    // Beyond the cap a variant is computed again on each request (and counted), not stored.
    expect((await get(server.content, `/m/${id}?w=64&format=webp&q=60`)).status).to.equal(200);
    expect((await variantBytes(id)).count).to.equal(20);

    expect((await call(server.api, `/files/${id}`, { method: 'DELETE', apiKey })).status).to.equal(204);
    expect((await usage()).storage_bytes).to.equal(0);
    expect((await variantBytes(id)).count).to.equal(0);
  });

  it('snaps w and h up to the size ladder: w=100 is served 128 px wide, as the same stored variant as w=128', async () => {
    const uploaded = await upload(server, apiKey, await exifJpeg(640, 480, 1), { contentType: 'image/jpeg' });
    const id = uploaded.body.file.file_id as string;
    const a = await get(server.content, `/m/${id}?w=100&h=70&fit=fill&format=png`);
    expect(a.status).to.equal(200);
    expect(await describeImage(a.bytes)).to.include({ width: 128, height: 128 });
    const b = await get(server.content, `/m/${id}?w=128&h=128&fit=fill&format=png`);
    expect(b.headers.etag).to.equal(a.headers.etag);
    expect((await variantBytes(id)).count).to.equal(1);
  });
});

describe('HTTP: new image variants are rate-limited per client address', function () {
  this.timeout(30_000);
  let server: TestServer;
  let apiKey: string;

  before(async () => {
    server = await startTestServer({ DEFAULT_MAX_UPLOAD_SIZE_BYTES: String(4 * 1024 * 1024), RATE_LIMIT_IMAGE_TRANSFORMS_PER_MINUTE: '3' });
    ({ apiKey } = await signUpWithKey(server, 'limited@example.com'));
  });
  after(async () => {
    await server.stop();
    expect(server.internalErrors).to.deep.equal([]);
  });

  it('answers 429 RATE_LIMITED with Retry-After past RATE_LIMIT_IMAGE_TRANSFORMS_PER_MINUTE, while stored variants and originals are still served', async () => {
    const uploaded = await upload(server, apiKey, await exifJpeg(320, 240, 1), { contentType: 'image/jpeg' });
    const id = uploaded.body.file.file_id as string;
    for (const q of [50, 51, 52]) expect((await get(server.content, `/m/${id}?w=64&format=webp&q=${q}`)).status).to.equal(200);
    const refused = await get(server.content, `/m/${id}?w=64&format=webp&q=53`);
    expectErrorBody(refused, 429, 'RATE_LIMITED');
    expect(Number(refused.headers['retry-after'])).to.be.within(1, 60);
    expect((await get(server.content, `/m/${id}?w=64&format=webp&q=50`)).status, 'a stored variant').to.equal(200);
    expect((await get(server.content, `/m/${id}`)).status, 'the original').to.equal(200);
    expect((await call(server.api, '/usage', { apiKey })).body.image_ops).to.equal(3);
  });
});
