import { expect } from 'chai';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import * as tus from 'tus-js-client';
import { randomFileOf, sha256 } from '../support/bytes.js';
import { call, expectError, RELAXED_RATE_LIMITS, signUpWithKey, startTestServer, type TestServer } from '../support/http-harness.js';
import { LARGE_UPLOADS, RESUMABLE_SIZE, tusOptions, uploadWithCuts } from '../support/tus-client.js';
import { OffsetClock } from '../support/offset-clock.js';

const MiB = 1024 * 1024;
const LONG = process.env.HANGAR_LONG === '1';

describe('HTTP: resumable uploads (tus 1.0.0)', function () {
  this.timeout(LONG ? 600_000 : 120_000);
  let server: TestServer;
  let apiKey: string;
  const clock = new OffsetClock();
  before(async () => {
    server = await startTestServer({ ...LARGE_UPLOADS, EXPIRY_SWEEP_INTERVAL_SECONDS: '1', RESUMABLE_UPLOAD_EXPIRY_HOURS: '2' }, {}, { clock });
    ({ apiKey } = await signUpWithKey(server, 'tus@example.com'));
  });
  after(async () => {
    await server.stop();
  });

  const partials = async () => readdir(path.join(server.dataDir, 'blobs', '.partial')).catch(() => [] as string[]);
  const usage = async (key = apiKey) => (await call(server.api, '/usage', { apiKey: key })).body;
  const create = (headers: Record<string, string>, key = apiKey) =>
    call(server.api, '/files/resumable', { method: 'POST', apiKey: key, headers: { 'tus-resumable': '1.0.0', ...headers } });
  const metadata = (entries: Record<string, string>) =>
    Object.entries(entries)
      .map(([k, v]) => `${k} ${Buffer.from(v).toString('base64')}`)
      .join(',');

  it('answers OPTIONS with the tus version, extensions and largest size', async () => {
    const response = await fetch(`${server.api}/files/resumable`, { method: 'OPTIONS' });
    expect(response.status).to.equal(204);
    expect(response.headers.get('tus-version')).to.equal('1.0.0');
    expect(response.headers.get('tus-extension')).to.equal('creation,creation-with-upload,termination,expiration');
    expect(Number(response.headers.get('tus-max-size'))).to.be.greaterThan(0);
  });

  it('uploads with tus-js-client, cut at 30 %, 60 % and 90 % and resumed, to a byte-identical file that appears only once complete', async () => {
    const bytes = randomFileOf(RESUMABLE_SIZE, 'video/mp4', 7);
    const before = await usage();
    let listedWhileUploading: number | undefined;
    const { fileId, url } = await uploadWithCuts(
      (handlers) => new tus.Upload(Buffer.from(bytes), tusOptions(server.api, apiKey, handlers)),
      [0.3, 0.6, 0.9],
      async (fraction) => {
        if (fraction === 0.6) listedWhileUploading = (await call(server.api, '/files', { apiKey })).body.total;
      },
    );
    expect(listedWhileUploading).to.equal(before.files_count);
    const content = await fetch(`${server.api}/files/${fileId}/content`, { headers: { 'x-api-key': apiKey } });
    expect(content.status).to.equal(200);
    expect(sha256(new Uint8Array(await content.arrayBuffer()))).to.equal(sha256(bytes));
    const status = await call(server.api, new URL(url).pathname, { apiKey });
    expect(status.status).to.equal(200);
    expect(status.body).to.include({ status: 'complete', offset: bytes.length, length: bytes.length, file_id: fileId });
    expect(status.body.file).to.include({ file_id: fileId, size: bytes.length, content_type: 'video/mp4', name: 'clip.mp4' });
    const files = (await call(server.api, '/files', { apiKey })).body.files.map((f: any) => f.file_id);
    expect(files).to.include(fileId);
    expect(await usage()).to.include({ storage_bytes: before.storage_bytes + bytes.length, files_count: before.files_count + 1 });
    expect(await partials()).to.deep.equal([]);
  });

  it('answers HEAD with the offset, and 409 with the right offset to a PATCH at another one', async () => {
    const created = await create({ 'upload-length': '100', 'upload-metadata': metadata({ filetype: 'text/plain', filename: 'a.txt' }) });
    expect(created.status).to.equal(201);
    const location = new URL(created.headers.get('location')!, server.api).href;
    expect(created.headers.get('upload-expires')).to.match(/GMT$/);
    const patch = (offset: number, body: string) =>
      fetch(location, {
        method: 'PATCH',
        headers: { 'x-api-key': apiKey, 'tus-resumable': '1.0.0', 'upload-offset': String(offset), 'content-type': 'application/offset+octet-stream' },
        body,
      });
    expect((await patch(0, 'x'.repeat(40))).headers.get('upload-offset')).to.equal('40');
    const mismatch = await patch(10, 'y');
    expect(mismatch.status).to.equal(409);
    expect(((await mismatch.json()) as { code: string }).code).to.equal('UPLOAD_OFFSET_MISMATCH');
    const head = await fetch(location, { method: 'HEAD', headers: { 'x-api-key': apiKey, 'tus-resumable': '1.0.0' } });
    expect(head.status).to.equal(200);
    expect(head.headers.get('upload-offset')).to.equal('40');
    expect(head.headers.get('upload-length')).to.equal('100');
    expect(head.headers.get('cache-control')).to.equal('no-store');
    const last = await patch(40, 'z'.repeat(60));
    expect(last.status).to.equal(204);
    const fileId = last.headers.get('hangar-file-id')!;
    expect(fileId).to.be.a('string');
    expect((await call(server.api, `/files/${fileId}`, { apiKey })).body).to.include({ size: 100, name: 'a.txt' });
    // Another account sees no such upload.
    const other = await signUpWithKey(server, 'tus-other@example.com');
    expect((await fetch(location, { method: 'HEAD', headers: { 'x-api-key': other.apiKey, 'tus-resumable': '1.0.0' } })).status).to.equal(404);
  });

  it('refuses at creation, before any byte, what POST /files would refuse, with the same codes, reserving nothing', async () => {
    const before = await usage();
    expectError(
      await create({ 'upload-length': '100', 'upload-metadata': metadata({ filetype: 'application/x-msdownload' }) }),
      400,
      'CONTENT_TYPE_NOT_ALLOWED',
    );
    expectError(await create({ 'upload-length': String(2048 * MiB), 'upload-metadata': metadata({ filetype: 'video/mp4' }) }), 413, 'FILE_TOO_LARGE');
    expectError(await create({ 'upload-length': '0', 'upload-metadata': metadata({ filetype: 'video/mp4' }) }), 400, 'EMPTY_FILE');
    // Past Number.MAX_SAFE_INTEGER: still a file too large, not an empty one.
    expectError(await create({ 'upload-length': '9999999999999999', 'upload-metadata': metadata({ filetype: 'video/mp4' }) }), 413, 'FILE_TOO_LARGE');
    expectError(
      await create({ 'upload-length': '10', 'upload-metadata': metadata({ filetype: 'video/mp4' }), 'tus-resumable': '0.2.2' }),
      412,
      'TUS_VERSION_NOT_SUPPORTED',
    );
    expect(await usage()).to.deep.equal(before);
    expect(await partials()).to.deep.equal([]);
  });

  it('terminates an upload: its bytes and reservation go, and it answers 404 after', async () => {
    const created = await create({ 'upload-length': '1000', 'upload-metadata': metadata({ filetype: 'text/plain' }) });
    const location = new URL(created.headers.get('location')!, server.api).href;
    expect(await partials()).to.have.length(1);
    const deleted = await fetch(location, { method: 'DELETE', headers: { 'x-api-key': apiKey, 'tus-resumable': '1.0.0' } });
    expect(deleted.status).to.equal(204);
    expect(await partials()).to.deep.equal([]);
    expect((await fetch(location, { method: 'HEAD', headers: { 'x-api-key': apiKey, 'tus-resumable': '1.0.0' } })).status).to.equal(404);
  });

  it('sweeps an unfinished upload once expired: bytes removed, reservation released, upload gone', async () => {
    const created = await create({ 'upload-length': '1000', 'upload-metadata': metadata({ filetype: 'text/plain' }) });
    const location = new URL(created.headers.get('location')!, server.api).href;
    await fetch(location, {
      method: 'PATCH',
      headers: { 'x-api-key': apiKey, 'tus-resumable': '1.0.0', 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' },
      body: 'x'.repeat(500),
    });
    expect(await partials()).to.have.length(1);
    clock.advance(2 * 3_600_000 + 1000);
    const deadline = Date.now() + 5000;
    // The sweep deletes the row, then the bytes: both within a few seconds.
    while (
      (await fetch(location, { method: 'HEAD', headers: { 'x-api-key': apiKey, 'tus-resumable': '1.0.0' } })).status !== 404 ||
      (await partials()).length > 0
    ) {
      if (Date.now() > deadline) throw new Error('the upload was not swept within 5 s');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });
});

describe('HTTP: resumable uploads against a nearly full quota', () => {
  let server: TestServer;
  let apiKey: string;
  before(async () => {
    server = await startTestServer({ ...RELAXED_RATE_LIMITS, FILE_COUNT_LIMIT: '50', STORAGE_LIMIT_BYTES: '100000', MAX_UPLOAD_SIZE_LIMIT_BYTES: '50000' });
    ({ apiKey } = await signUpWithKey(server, 'tus-quota@example.com'));
  });
  after(async () => {
    await server.stop();
  });

  it('of 10 parallel 20 000-byte tus uploads with 40 000 bytes stored, exactly 3 are stored, and a plain upload finds no room left', async () => {
    const stored = await call(server.api, '/files', { method: 'POST', apiKey, headers: { 'content-type': 'text/plain' }, body: 'x'.repeat(40_000) });
    expect(stored.status).to.equal(201);
    const outcomes = await Promise.all(
      Array.from(
        { length: 10 },
        (_, i) =>
          new Promise<string>((resolve) => {
            const upload = new tus.Upload(Buffer.alloc(20_000, 97 + i), {
              endpoint: `${server.api}/files/resumable`,
              headers: { 'X-Api-Key': apiKey },
              metadata: { filetype: 'text/plain', filename: `part-${i}.txt` },
              chunkSize: 7_000,
              retryDelays: [],
              onSuccess: () => resolve('stored'),
              onError: (error) => resolve(String((error as tus.DetailedError).originalResponse?.getBody?.() ?? error)),
            });
            upload.start();
          }),
      ),
    );
    expect(outcomes.filter((o) => o === 'stored')).to.have.length(3);
    for (const refused of outcomes.filter((o) => o !== 'stored')) expect(refused).to.contain('STORAGE_LIMIT_REACHED');
    const usage = (await call(server.api, '/usage', { apiKey })).body;
    expect(usage).to.include({ storage_bytes: 100_000, files_count: 4 });
    const plain = await call(server.api, '/files', { method: 'POST', apiKey, headers: { 'content-type': 'text/plain' }, body: 'y' });
    expectError(plain, 403, 'STORAGE_LIMIT_REACHED');
  });

  it('counts an unfinished upload’s reservation against plain uploads until it is terminated', async () => {
    // The account is full from the test before: free 20 000 bytes.
    const files = (await call(server.api, '/files', { apiKey })).body.files;
    const small = files.find((f: any) => f.size === 20_000);
    expect((await call(server.api, `/files/${small.file_id}`, { method: 'DELETE', apiKey })).status).to.equal(204);
    const created = await call(server.api, '/files/resumable', {
      method: 'POST',
      apiKey,
      headers: { 'tus-resumable': '1.0.0', 'upload-length': '20000', 'upload-metadata': `filetype ${Buffer.from('text/plain').toString('base64')}` },
    });
    expect(created.status).to.equal(201);
    expectError(
      await call(server.api, '/files', { method: 'POST', apiKey, headers: { 'content-type': 'text/plain' }, body: 'z' }),
      403,
      'STORAGE_LIMIT_REACHED',
    );
    await fetch(new URL(created.headers.get('location')!, server.api), { method: 'DELETE', headers: { 'x-api-key': apiKey, 'tus-resumable': '1.0.0' } });
    expect((await call(server.api, '/files', { method: 'POST', apiKey, headers: { 'content-type': 'text/plain' }, body: 'z' })).status).to.equal(201);
  });
});
