import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomFileOf } from '../support/bytes.js';
import { call, mailedToken } from '../support/http-harness.js';
import { type ServerProcess, startServerProcess } from '../support/server-process.js';

const MiB = 1024 * 1024;
/** Size of the streamed upload: far above the 64 MiB memory bound (HANGAR_TEST_UPLOAD_MIB to change). */
const UPLOAD_MIB = Number(process.env.HANGAR_TEST_UPLOAD_MIB ?? 512);

describe('the server as its own process (npm start)', function () {
  this.timeout(180_000);
  let dataDir: string;
  let server: ServerProcess;

  before(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'hangar-proc-'));
    server = await startServerProcess({
      HOST: '127.0.0.1',
      PORT: '0',
      CONTENT_PORT: '0',
      DATA_DIR: dataDir,
      PASSWORD_HASH_MEMORY_KIB: '1024',
      DEFAULT_MAX_UPLOAD_SIZE_BYTES: String(UPLOAD_MIB * MiB),
    });
  });
  after(async () => {
    await server?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it(`streams a ${UPLOAD_MIB} MiB upload and download with server memory growing by at most 64 MiB`, async () => {
    const email = 'big@example.com';
    await call(server.api, '/auth/register', { method: 'POST', json: { email, password: 'secret1' } });
    const token = await mailedToken({ dataDir }, email, '/auth/confirm');
    await call(server.api, `/auth/confirm?token=${token}`);
    const login = await call(server.api, '/auth/login', { method: 'POST', json: { email, password: 'secret1' } });
    const key = (await call(server.api, '/auth/api-keys', { method: 'POST', token: login.body.session.access_token, json: {} })).body.key;
    // Warm up the upload path so lazily loaded code, and V8's young generation grown to its size
    // under a streaming load (up to 3 × 16 MiB semi-spaces, whatever the file size), are counted in
    // the baseline, not as growth: what is bounded is memory that grows with the body (as in the bench).
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
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === UPLOAD_MIB) return controller.close();
        sent++;
        expected.update(chunk);
        controller.enqueue(chunk);
      },
    });
    let sent = 0;
    const uploaded = await fetch(`${server.api}/files`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'video/mp4', 'x-file-name': 'big.mp4', 'content-length': String(UPLOAD_MIB * MiB) },
      body,
      duplex: 'half',
    });
    const result = (await uploaded.json()) as any;
    expect(uploaded.status, JSON.stringify(result)).to.equal(201);
    expect(result.file.size).to.equal(UPLOAD_MIB * MiB);
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

    const growth = Math.max(afterUpload.hwm, afterDownload.hwm) - baseline.rss;
    expect(growth, `peak RSS grew by ${(growth / MiB).toFixed(1)} MiB`).to.be.at.most(64 * MiB);
  });

  it('stops cleanly on SIGTERM', async () => {
    expect(await server.stop()).to.equal(0);
    expect(server.output()).to.include('SIGTERM received');
  });
});
