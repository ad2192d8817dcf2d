import { expect } from 'chai';
import { makePng, randomFileOf, sha256 } from '../support/bytes.js';
import { FakeGcsServer } from '../support/fake-gcs-server.js';
import { call, expectError, signUpWithKey, startTestServer, type TestServer, upload } from '../support/http-harness.js';

describe('HTTP walkthrough with BLOB_STORE_URL=gs://… (fake GCS)', () => {
  const bucket = 'hangar-test';
  let fake: FakeGcsServer;
  let server: TestServer;
  let apiKey: string;
  let userId: string;
  before(async () => {
    fake = await new FakeGcsServer([bucket]).start();
    server = await startTestServer({
      BLOB_STORE_URL: `gs://${bucket}/prefix`,
      GCS_API_ENDPOINT: fake.url,
      GCS_RESUMABLE_THRESHOLD_BYTES: String(1024 * 1024),
      DEFAULT_MAX_UPLOAD_SIZE_BYTES: String(16 * 1024 * 1024),
    });
    ({ apiKey, userId } = await signUpWithKey(server, 'gcs@example.com'));
  });
  after(async () => {
    await server.stop();
    await fake.close();
    expect(server.internalErrors).to.deep.equal([]);
  });

  const local = (publicUrl: string) => publicUrl.replace('http://cdn.hangar.test', server.content);
  const fetchBytes = async (url: string, headers: Record<string, string> = {}) => {
    const response = await fetch(url, { headers });
    return { status: response.status, headers: response.headers, bytes: new Uint8Array(await response.arrayBuffer()) };
  };

  it('stores uploads as <prefix>/<account id>/<file id>, serves /m and /d whole and by range, and deletes the objects', async () => {
    const png = makePng();
    const large = randomFileOf(3 * 1024 * 1024 + 17, 'application/zip', 5);
    const first = await upload(server, apiKey, png, { name: 'pixel.png' });
    expect(first.status, JSON.stringify(first.body)).to.equal(201);
    const second = await upload(server, apiKey, large, { name: 'big.zip', contentType: 'application/zip' });
    expect(second.status, JSON.stringify(second.body)).to.equal(201);
    const [a, b] = [first.body.file, second.body.file];
    expect(fake.objectNames(bucket)).to.deep.equal([`prefix/${userId}/${a.file_id}`, `prefix/${userId}/${b.file_id}`].sort());
    expect(fake.uploadTypes()).to.deep.equal(['multipart', 'resumable']);
    expect(fake.objectMetadata(bucket, `prefix/${userId}/${b.file_id}`)).to.include({ size: String(large.length), contentType: 'application/zip' });

    const list = await call(server.api, '/files', { apiKey });
    expect(list.status).to.equal(200);
    expect(list.body.total).to.equal(2);

    for (const [file, bytes] of [
      [a, png],
      [b, large],
    ] as const) {
      for (const url of [file.public_url, file.public_download_url]) {
        const whole = await fetchBytes(local(url));
        expect(whole.status).to.equal(200);
        expect(sha256(whole.bytes)).to.equal(sha256(bytes));
      }
    }
    const ranged = await fetchBytes(local(b.public_download_url), { range: 'bytes=1000000-2500000' });
    expect(ranged.status).to.equal(206);
    expect(ranged.headers.get('content-range')).to.equal(`bytes 1000000-2500000/${large.length}`);
    expect(sha256(ranged.bytes)).to.equal(sha256(large.subarray(1_000_000, 2_500_001)));
    const tail = await fetchBytes(local(a.public_url), { range: 'bytes=-10' });
    expect(tail.status).to.equal(206);
    expect(sha256(tail.bytes)).to.equal(sha256(png.subarray(png.length - 10)));

    expect((await call(server.api, `/files/${a.file_id}`, { method: 'DELETE', apiKey })).status).to.equal(204);
    expect(fake.objectNames(bucket)).to.deep.equal([`prefix/${userId}/${b.file_id}`]);
    expect((await fetchBytes(local(a.public_url))).status).to.equal(404);

    const third = (await upload(server, apiKey, makePng(4, 4))).body.file;
    const bulk = await call(server.api, '/files/bulk-delete', { method: 'POST', apiKey, json: { ids: [b.file_id, third.file_id] } });
    expect(bulk.body).to.deep.equal({ deleted: 2, errors: [] });
    expect(fake.objectNames(bucket)).to.deep.equal([]);
  });

  it('answers /healthz 200 while GCS answers, 503 with blob_store failing when it does not, and refuses uploads with BLOB_STORE_UNAVAILABLE', async function () {
    this.timeout(60_000);
    for (const base of [server.api, server.content]) expect((await call(base, '/healthz')).status).to.equal(200);
    fake.failAlways();
    try {
      for (const base of [server.api, server.content]) {
        const health = await call(base, '/healthz');
        expect(health.status).to.equal(503);
        expect(health.body.checks).to.include({ blob_store: 'failing' });
      }
      const before = (await call(server.api, '/files', { apiKey })).body.total;
      expectError(await upload(server, apiKey, makePng()), 503, 'BLOB_STORE_UNAVAILABLE');
      expect((await call(server.api, '/files', { apiKey })).body.total).to.equal(before);
    } finally {
      fake.heal();
    }
    expect((await call(server.api, '/healthz')).status).to.equal(200);
    expect(fake.objectNames(bucket)).to.deep.equal([]);
  });
});
