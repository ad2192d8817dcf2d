import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomFileOf } from '../support/bytes.js';
import { call, mailedToken } from '../support/http-harness.js';
import { S3RVER_CREDENTIALS, type S3TestServer, startS3TestServer } from '../support/s3-test-server.js';
import { type ServerProcess, startServerProcess } from '../support/server-process.js';

const MiB = 1024 * 1024;
/** Size of the streamed upload: many parts of the default 8 MiB (HANGAR_TEST_S3_UPLOAD_MIB to change). */
const UPLOAD_MIB = Number(process.env.HANGAR_TEST_S3_UPLOAD_MIB ?? 96);

describe('the server as its own process with BLOB_STORE_URL=s3://… (s3rver)', function () {
  this.timeout(180_000);
  let dataDir: string;
  let s3: S3TestServer;
  let server: ServerProcess;

  before(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'hangar-proc-s3-'));
    s3 = await startS3TestServer(['hangar-big']);
    server = await startServerProcess({
      HOST: '127.0.0.1',
      PORT: '0',
      CONTENT_PORT: '0',
      DATA_DIR: dataDir,
      PASSWORD_HASH_MEMORY_KIB: '1024',
      DEFAULT_MAX_UPLOAD_SIZE_BYTES: String(UPLOAD_MIB * MiB),
      // The defaults for part size and queue size: what is measured is what an operator gets.
      BLOB_STORE_URL: 's3://hangar-big/blobs',
      S3_ENDPOINT: s3.url,
      S3_FORCE_PATH_STYLE: 'true',
      S3_IF_NONE_MATCH: 'false',
      AWS_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
    });
  });
  after(async () => {
    await server?.stop();
    await s3?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it(`streams a ${UPLOAD_MIB} MiB upload (a multipart upload) and its download with server memory growing by at most 64 MiB`, async () => {
    const email = 'big-s3@example.com';
    await call(server.api, '/auth/register', { method: 'POST', json: { email, password: 'secret1' } });
    const token = await mailedToken({ dataDir }, email, '/auth/confirm');
    await call(server.api, `/auth/confirm?token=${token}`);
    const login = await call(server.api, '/auth/login', { method: 'POST', json: { email, password: 'secret1' } });
    const key = (await call(server.api, '/auth/api-keys', { method: 'POST', token: login.body.session.access_token, json: {} })).body.key;
    // Warm up as the local-disk test does (server-process.test.ts): lazily loaded code and V8's
    // grown young generation belong to the baseline; what is bounded is growth with the body.
    const warmUp = await call(server.api, '/files', {
      method: 'POST',
      apiKey: key,
      headers: { 'content-type': 'video/mp4' },
      body: randomFileOf(32 * MiB, 'video/mp4'),
    });
    expect(warmUp.status).to.equal(201);
    await (await fetch(`${server.content}/d/${warmUp.body.file.file_id}`)).arrayBuffer();
    const baseline = await server.memory();

    const chunk = randomFileOf(MiB, 'video/mp4', 7);
    const expected = createHash('sha256');
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === UPLOAD_MIB) return controller.close();
        sent++;
        expected.update(chunk);
        controller.enqueue(chunk);
      },
    });
    const uploaded = await fetch(`${server.api}/files`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'video/mp4', 'x-file-name': 'big.mp4', 'content-length': String(UPLOAD_MIB * MiB) },
      body,
      duplex: 'half',
    });
    const result = (await uploaded.json()) as any;
    expect(uploaded.status, JSON.stringify(result)).to.equal(201);
    const afterUpload = await server.memory();

    const downloaded = await fetch(`${server.content}/d/${result.file.file_id}`);
    expect(downloaded.status).to.equal(200);
    const actual = createHash('sha256');
    let received = 0;
    for await (const part of downloaded.body as unknown as AsyncIterable<Uint8Array>) {
      actual.update(part);
      received += part.length;
    }
    expect(received).to.equal(UPLOAD_MIB * MiB);
    expect(actual.digest('hex')).to.equal(expected.digest('hex'));
    const afterDownload = await server.memory();

    const uploadGrowth = afterUpload.hwm - baseline.rss;
    const growth = Math.max(afterUpload.hwm, afterDownload.hwm) - baseline.rss;
    process.stdout.write(`      peak RSS growth: ${(uploadGrowth / MiB).toFixed(1)} MiB during the upload, ${(growth / MiB).toFixed(1)} MiB overall\n`);
    expect(growth, `peak RSS grew by ${(growth / MiB).toFixed(1)} MiB`).to.be.at.most(64 * MiB);
  });
});
