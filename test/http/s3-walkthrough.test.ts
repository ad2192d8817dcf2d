import { expect } from 'chai';
import { S3BlobStore } from '../../adapters/blobs/s3-blob-store.js';
import { makePng, randomFileOf, sha256 } from '../support/bytes.js';
import { FakeS3Server, operationOf } from '../support/fake-s3-server.js';
import { call, expectError, signUpWithKey, startTestServer, type TestServer, upload } from '../support/http-harness.js';
import { S3RVER_CREDENTIALS, type S3TestServer, startS3TestServer } from '../support/s3-test-server.js';

const MiB = 1024 * 1024;

/** The environment that points a server at an S3-compatible test server (path-style, the s3rver keys). */
function s3Env(url: string, bucket: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    BLOB_STORE_URL: `s3://${bucket}/prefix`,
    S3_ENDPOINT: url,
    S3_FORCE_PATH_STYLE: 'true',
    S3_PART_SIZE_BYTES: String(5 * MiB),
    AWS_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
    DEFAULT_MAX_UPLOAD_SIZE_BYTES: String(32 * MiB),
    ...extra,
  };
}

describe('HTTP walkthrough with BLOB_STORE_URL=s3://… (s3rver)', () => {
  const bucket = 'hangar-test';
  let s3: S3TestServer;
  let server: TestServer;
  /** A view of the same bucket, to see what the server stored. */
  let objects: S3BlobStore;
  let apiKey: string;
  let userId: string;
  before(async () => {
    s3 = await startS3TestServer([bucket]);
    // s3rver ignores If-None-Match (docs/s3.md).
    server = await startTestServer(s3Env(s3.url, bucket, { S3_IF_NONE_MATCH: 'false' }));
    objects = new S3BlobStore({ bucket, prefix: 'prefix', endpoint: s3.url, forcePathStyle: true, credentials: S3RVER_CREDENTIALS });
    ({ apiKey, userId } = await signUpWithKey(server, 's3@example.com'));
  });
  after(async () => {
    await server.stop();
    await objects.close();
    await s3.close();
    expect(server.internalErrors).to.deep.equal([]);
  });

  const local = (publicUrl: string) => publicUrl.replace('http://cdn.hangar.test', server.content);
  const fetchBytes = async (url: string, headers: Record<string, string> = {}) => {
    const response = await fetch(url, { headers });
    return { status: response.status, headers: response.headers, bytes: new Uint8Array(await response.arrayBuffer()) };
  };
  const stored = async () => {
    const keys: string[] = [];
    for await (const entry of objects.list()) keys.push(entry.key);
    return keys.sort();
  };

  it('stores uploads (single PUT and multipart) as <prefix>/<account id>/<file id>, serves them whole and by range, keeps image variants, deletes them all, and fsck finds it clean', async function () {
    this.timeout(60_000);
    const png = makePng(64, 64);
    const large = randomFileOf(11 * MiB + 17, 'application/zip', 5);
    const first = await upload(server, apiKey, png, { name: 'pixel.png' });
    expect(first.status, JSON.stringify(first.body)).to.equal(201);
    const second = await upload(server, apiKey, large, { name: 'big.zip', contentType: 'application/zip' });
    expect(second.status, JSON.stringify(second.body)).to.equal(201);
    const [a, b] = [first.body.file, second.body.file];
    expect(await stored()).to.deep.equal([`${userId}/${a.file_id}`, `${userId}/${b.file_id}`].sort());
    expect((await objects.stat(`${userId}/${b.file_id}`))!.size).to.equal(large.length);

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
    const ranged = await fetchBytes(local(b.public_download_url), { range: 'bytes=5000000-6000000' });
    expect(ranged.status).to.equal(206);
    expect(ranged.headers.get('content-range')).to.equal(`bytes 5000000-6000000/${large.length}`);
    expect(sha256(ranged.bytes)).to.equal(sha256(large.subarray(5_000_000, 6_000_001)));
    const first0 = await fetchBytes(local(a.public_url), { range: 'bytes=0-0' });
    expect(first0.status).to.equal(206);
    expect([...first0.bytes]).to.deep.equal([png[0]]);
    const tail = await fetchBytes(local(a.public_url), { range: 'bytes=-10' });
    expect(tail.status).to.equal(206);
    expect(sha256(tail.bytes)).to.equal(sha256(png.subarray(png.length - 10)));

    // An image variant is a derived blob under the file's key, and goes with it.
    const variant = await fetchBytes(`${local(a.public_url)}?w=16&format=webp`);
    expect(variant.status).to.equal(200);
    expect(variant.headers.get('content-type')).to.equal('image/webp');
    const withVariant = await stored();
    expect(withVariant.filter((key) => key.startsWith(`${userId}/${a.file_id}/`))).to.have.length(1);

    const report = await server.running.hangar.checkStorage.execute({ repair: false, graceMs: 0 });
    expect(report.clean, JSON.stringify(report)).to.equal(true);
    expect(report.recordsChecked).to.equal(2);

    expect((await call(server.api, `/files/${a.file_id}`, { method: 'DELETE', apiKey })).status).to.equal(204);
    expect(await stored()).to.deep.equal([`${userId}/${b.file_id}`]);
    expect((await fetchBytes(local(a.public_url))).status).to.equal(404);

    const third = (await upload(server, apiKey, makePng(4, 4))).body.file;
    const bulk = await call(server.api, '/files/bulk-delete', { method: 'POST', apiKey, json: { ids: [b.file_id, third.file_id] } });
    expect(bulk.body).to.deep.equal({ deleted: 2, errors: [] });
    expect(await stored()).to.deep.equal([]);
  });
});

describe('HTTP with BLOB_STORE_URL=s3://… when the store fails (fake S3)', () => {
  const bucket = 'hangar-test';
  let fake: FakeS3Server;
  let server: TestServer;
  let apiKey: string;
  before(async () => {
    fake = await new FakeS3Server([bucket]).start();
    server = await startTestServer(s3Env(fake.url, bucket));
    ({ apiKey } = await signUpWithKey(server, 's3-down@example.com'));
  });
  after(async () => {
    await server.stop();
    await fake.close();
    expect(server.internalErrors).to.deep.equal([]);
  });

  it('answers /healthz 200 while the bucket answers HeadBucket, 503 with blob_store failing when it does not, and refuses uploads with BLOB_STORE_UNAVAILABLE', async function () {
    this.timeout(60_000);
    for (const base of [server.api, server.content]) expect((await call(base, '/healthz')).status).to.equal(200);
    expect(fake.operations()).to.include('HeadBucket');
    fake.failAlways({ status: 503, code: 'SlowDown' });
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
    expect(fake.objectKeys(bucket)).to.deep.equal([]);
    // Uploads through the server carry If-None-Match: * (the default).
    expect((await upload(server, apiKey, makePng())).status).to.equal(201);
    expect(fake.requests.filter((r) => operationOf(r) === 'PutObject').every((r) => r.headers['if-none-match'] === '*')).to.equal(true);
  });
});
