import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { TcpProxy } from '../support/tcp-proxy.js';
import { tmpdir } from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { call, expectError, signUpWithKey, startTestServer, type TestServer } from '../support/http-harness.js';
import { createTestSchema, testDatabaseUrl } from '../support/test-database.js';
import { blobsUnder } from '../support/stored-blobs.js';
import { aBody, sha256 } from './harness.js';

/**
 * Faults of the outside world give a clean answer with a stable code and change nothing
 * (docs/reliability.md): the blob volume full or failing, the database locked or
 * unreachable, the edge provider down. After each fault the same request succeeds once the fault
 * is gone. GCS 5xx and timeouts are proven by test/http/gcs-walkthrough.test.ts and the GCS blob
 * store tests (test/contracts/blob-store-cloud.test.ts).
 */
describe('faults of the outside world: a clean answer and nothing changed (docs/reliability.md)', function () {
  this.timeout(60_000);
  let server: TestServer | undefined;

  afterEach(async () => {
    if (server) {
      expect(server.internalErrors, 'unexpected (500) errors').to.deep.equal([]);
      await server.stop();
    }
    server = undefined;
  });

  /** Uploads as text/plain with the harness's helper (the answer checked against the OpenAPI document). */
  const uploadText = (apiKey: string, body: Buffer) =>
    call(server!.api, '/files', { method: 'POST', apiKey, headers: { 'content-type': 'text/plain', 'x-file-name': 'fault.txt' }, body });

  /** Nothing stored: no record, zero totals, no blob and no temp file left in `blobDirectory`. */
  async function expectNothingStored(apiKey: string, blobDirectory: string): Promise<void> {
    const listed = await call(server!.api, '/files', { apiKey });
    expect(listed.status).to.equal(200);
    expect(listed.body.total).to.equal(0);
    const usage = await call(server!.api, '/usage', { apiKey });
    expect(usage.body.storage_bytes ?? usage.body.storage?.used_bytes ?? 0).to.equal(0);
    expect(await blobsUnder(blobDirectory)).to.deep.equal([]);
  }

  /** Uploads and reads back byte-identical: the service works again. */
  async function expectUploadsWork(apiKey: string): Promise<void> {
    const body = aBody(10_000);
    const stored = await uploadText(apiKey, body);
    expect(stored.status, JSON.stringify(stored.body)).to.equal(201);
    const read = await fetch(`${server!.content}/d/${stored.body.file.file_id}`);
    expect(sha256(Buffer.from(await read.arrayBuffer()))).to.equal(sha256(body));
  }

  it('answers 507 STORAGE_FULL when the blob volume is full (a 1 MiB tmpfs), stores nothing, and takes uploads again when there is room', async function () {
    const mountPoint = await mkdtemp(path.join(tmpdir(), 'hangar-full-'));
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', mountPoint], { stdio: 'ignore' });
    } catch {
      process.stdout.write('      (mounting a tmpfs needs root: the real ENOSPC run is skipped; the blob_write=ENOSPC failpoint test below still runs)\n');
      await rm(mountPoint, { recursive: true, force: true });
      this.skip();
    }
    try {
      server = await startTestServer({ BLOB_STORE_URL: `file:${mountPoint}`, RATE_LIMIT_UPLOADS_PER_MINUTE: '0' });
      const { apiKey } = await signUpWithKey(server, 'full@example.com');
      expectError(await uploadText(apiKey, aBody(2 * 1024 * 1024)), 507, 'STORAGE_FULL');
      await expectNothingStored(apiKey, mountPoint);
      await expectUploadsWork(apiKey);
    } finally {
      await server?.stop();
      server = undefined;
      execFileSync('umount', [mountPoint]);
      await rm(mountPoint, { recursive: true, force: true });
    }
  });

  for (const [errno, status, code] of [
    ['ENOSPC', 507, 'STORAGE_FULL'],
    ['EIO', 503, 'BLOB_STORE_UNAVAILABLE'],
  ] as const) {
    it(`answers ${status} ${code} when writing a blob fails with ${errno} (failpoint blob_write=${errno}), and stores nothing`, async () => {
      server = await startTestServer({ HANGAR_FAILPOINTS: `blob_write=${errno}`, RATE_LIMIT_UPLOADS_PER_MINUTE: '0' });
      const { apiKey } = await signUpWithKey(server, `${errno.toLowerCase()}@example.com`);
      for (const size of [100, 600_000]) expectError(await uploadText(apiKey, aBody(size)), status, code);
      await expectNothingStored(apiKey, path.join(server.dataDir, 'blobs'));
    });
  }

  it('answers 503 DATABASE_UNAVAILABLE when another process holds the SQLite write lock for over 5 s, stays responsive meanwhile, removes the blob, and works once the lock is released', async () => {
    server = await startTestServer({ RATE_LIMIT_UPLOADS_PER_MINUTE: '0' });
    const { apiKey } = await signUpWithKey(server, 'locked@example.com');
    // Use the key once (its last_used_at is written on first use), so the lock meets the upload's own writes.
    expect((await call(server.api, '/files', { apiKey })).status).to.equal(200);
    // And let the 2-second flush write the buffered activity log first: a flush blocked by the lock would delay the upload.
    await new Promise((resolve) => setTimeout(resolve, 2_200));
    const holder = new BetterSqlite3(path.join(server.dataDir, 'hangar.db'));
    holder.exec('BEGIN IMMEDIATE');
    holder.prepare("update account_totals set files_count = files_count where user_id = 'none'").run();
    let released = false;
    try {
      const started = Date.now();
      const uploading = uploadText(apiKey, aBody(50_000));
      // While the upload waits for the lock, the process is not frozen: a request that needs no
      // database is answered long before the wait ends. (The server runs in this process: a
      // blocked event loop would hold this test's timers and fetch too.)
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expectError(await call(server.api, '/no-such-route'), 404, 'NOT_FOUND');
      expect(Date.now() - started, 'when a request without database work was answered during the wait').to.be.below(2_500);
      expectError(await uploading, 503, 'DATABASE_UNAVAILABLE');
      // It waited out the 5 s busy timeout rather than failing at once.
      expect(Date.now() - started).to.be.within(4_000, 30_000);
      holder.exec('ROLLBACK');
      released = true;
    } finally {
      if (!released) holder.exec('ROLLBACK');
      holder.close();
    }
    await expectNothingStored(apiKey, path.join(server.dataDir, 'blobs'));
    await expectUploadsWork(apiKey);
  });

  it('answers 503 DATABASE_UNAVAILABLE when Postgres cannot be reached, changes nothing, and recovers when it is back', async function () {
    const url = testDatabaseUrl();
    if (url === undefined) this.skip();
    const schema = await createTestSchema(url);
    const target = new URL(url);
    const proxy = await TcpProxy.start(target.hostname, Number(target.port || 5432));
    try {
      const proxied = new URL(schema.url);
      proxied.hostname = '127.0.0.1';
      proxied.port = String(proxy.port);
      server = await startTestServer({ DATABASE_URL: proxied.toString(), RATE_LIMIT_UPLOADS_PER_MINUTE: '0' });
      const { apiKey } = await signUpWithKey(server, 'pg-down@example.com');
      proxy.down();
      const started = Date.now();
      expectError(await uploadText(apiKey, aBody(20_000)), 503, 'DATABASE_UNAVAILABLE');
      expectError(await call(server.api, '/files', { apiKey }), 503, 'DATABASE_UNAVAILABLE');
      expect(Date.now() - started).to.be.below(25_000);
      proxy.up();
      await expectNothingStored(apiKey, path.join(server.dataDir, 'blobs'));
      await expectUploadsWork(apiKey);
    } finally {
      await server?.stop();
      server = undefined;
      await proxy.close();
      await schema.drop();
    }
  });

  it('answers 502 EDGE_PROVIDER_ERROR when Cloudflare cannot be reached, and keeps the settings as they were', async () => {
    const closed = await TcpProxy.start('127.0.0.1', 9);
    closed.down();
    server = await startTestServer({
      EDGE_PROVIDER: 'cloudflare',
      CLOUDFLARE_API_TOKEN: 'token',
      CLOUDFLARE_ZONE_ID: 'zone',
      CUSTOM_DOMAIN_CNAME_TARGET: 'edge.hangar.test',
      CLOUDFLARE_API_BASE_URL: `http://127.0.0.1:${closed.port}/client/v4`,
    });
    try {
      const { apiKey } = await signUpWithKey(server, 'edge@example.com');
      const before = await call(server.api, '/settings', { apiKey });
      expectError(await call(server.api, '/settings', { method: 'PATCH', apiKey, json: { custom_domain: 'files.example.com' } }), 502, 'EDGE_PROVIDER_ERROR');
      const after = await call(server.api, '/settings', { apiKey });
      expect(after.body).to.deep.equal(before.body);
    } finally {
      await closed.close();
    }
  });
});
