import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomFileOf } from '../support/bytes.js';
import { call, expectError, mailedToken } from '../support/http-harness.js';
import { type ServerProcess, startServerProcesses } from '../support/server-process.js';
import { freshServerDatabase, httpTestDatabase, type ServerDatabase } from '../support/test-database.js';

const PASSWORD = 'correct horse';

/**
 * Two server processes behind an imaginary load balancer: one database (the run's: a SQLite file,
 * or a Postgres schema with HANGAR_TEST_DB=postgres), one blob directory, one JWT_SECRET, and
 * nothing else in common (each has its own DATA_DIR and outbox).
 */
describe(`HTTP: two server processes on one database (${httpTestDatabase()}) and one blob store`, function () {
  this.timeout(60_000);
  let shared: string;
  let database: ServerDatabase;
  let servers: ServerProcess[] = [];

  before(async () => {
    shared = await mkdtemp(path.join(tmpdir(), 'hangar-scale-'));
    database = await freshServerDatabase(shared);
    const env = (name: string) => ({
      HOST: '127.0.0.1',
      PORT: '0',
      CONTENT_PORT: '0',
      DATA_DIR: path.join(shared, name),
      ...database.env,
      BLOB_STORE_URL: `file:${path.join(shared, 'blobs')}`,
      JWT_SECRET: 'a shared secret of at least thirty-two bytes',
      PASSWORD_HASH_MEMORY_KIB: '1024',
      FILE_COUNT_LIMIT: '15',
    });
    // One after the other would hide a migration race; both at once is how a deployment starts.
    servers = await startServerProcesses([env('a'), env('b')]);
  });
  after(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await database?.drop();
    if (shared) await rm(shared, { recursive: true, force: true });
  });

  it('serves one account from either process: confirm on one, log in on the other, and their tokens work on both', async () => {
    const [a, b] = servers;
    const email = 'both@example.com';
    expect((await call(a.api, '/auth/register', { method: 'POST', json: { email, password: PASSWORD } })).status).to.equal(201);
    const token = await mailedToken({ dataDir: path.join(shared, 'a') }, email, '/auth/confirm');
    expect((await call(b.api, `/auth/confirm?token=${token}`)).status).to.equal(302);
    const login = await call(b.api, '/auth/login', { method: 'POST', json: { email, password: PASSWORD } });
    expect(login.status).to.equal(200);
    const key = await call(a.api, '/auth/api-keys', { method: 'POST', token: login.body.session.access_token, json: { name: 'a' } });
    expect(key.status).to.equal(201);
    expect((await call(b.api, '/files', { apiKey: key.body.key })).status).to.equal(200);
    // A refresh token rotated on one process is spent on the other.
    const refreshed = await call(a.api, '/auth/refresh', { method: 'POST', json: { refresh_token: login.body.session.refresh_token } });
    expect(refreshed.status).to.equal(200);
    expectError(await call(b.api, '/auth/refresh', { method: 'POST', json: { refresh_token: login.body.session.refresh_token } }), 401, 'INVALID_REFRESH_TOKEN');
  });

  it('sees a setting changed, a key revoked and a session ended on one process on the very next request to the other', async () => {
    const [a, b] = servers;
    const email = 'fresh@example.com';
    expect((await call(a.api, '/auth/register', { method: 'POST', json: { email, password: PASSWORD } })).status).to.equal(201);
    const confirmToken = await mailedToken({ dataDir: path.join(shared, 'a') }, email, '/auth/confirm');
    expect((await call(a.api, `/auth/confirm?token=${confirmToken}`)).status).to.equal(302);
    const token = (await call(a.api, '/auth/login', { method: 'POST', json: { email, password: PASSWORD } })).body.session.access_token as string;
    const key = await call(a.api, '/auth/api-keys', { method: 'POST', token, json: { name: 'b' } });
    // b has answered with these credentials before (its lookups are cached while nothing changes).
    for (let i = 0; i < 3; i++) {
      expect((await call(b.api, '/settings', { apiKey: key.body.key })).body.max_upload_size_bytes).to.not.equal(4321);
      expect((await call(b.api, '/settings', { token })).status).to.equal(200);
    }
    expect((await call(a.api, '/settings', { method: 'PATCH', token, json: { max_upload_size_bytes: 4321 } })).status).to.equal(200);
    expect((await call(b.api, '/settings', { apiKey: key.body.key })).body.max_upload_size_bytes).to.equal(4321);
    expect((await call(a.api, `/auth/api-keys/${key.body.id}`, { method: 'DELETE', token })).status).to.equal(204);
    expectError(await call(b.api, '/settings', { apiKey: key.body.key }), 401, 'UNAUTHORIZED');
    expect((await call(a.api, '/auth/logout', { method: 'POST', token })).status).to.equal(204);
    expectError(await call(b.api, '/settings', { token }), 401, 'UNAUTHORIZED');
  });

  it('lets exactly 10 of 20 simultaneous uploads through, split across both processes, when 10 files are left', async () => {
    const [a, b] = servers;
    const email = 'quota@example.com';
    await call(b.api, '/auth/register', { method: 'POST', json: { email, password: PASSWORD } });
    const token = await mailedToken({ dataDir: path.join(shared, 'b') }, email, '/auth/confirm');
    await call(a.api, `/auth/confirm?token=${token}`);
    const login = await call(a.api, '/auth/login', { method: 'POST', json: { email, password: PASSWORD } });
    const apiKey = (await call(a.api, '/auth/api-keys', { method: 'POST', token: login.body.session.access_token, json: {} })).body.key;
    const post = (server: ServerProcess, seed: number) =>
      call(server.api, '/files', { method: 'POST', apiKey, headers: { 'content-type': 'image/png' }, body: randomFileOf(100, 'image/png', seed) });
    // 5 of the plan's 15 files are taken first: 10 are left.
    for (let i = 0; i < 5; i++) expect((await post(servers[i % 2], 1000 + i)).status).to.equal(201);

    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => post(servers[i % 2], i + 1)));
    const created = results.filter((r) => r.status === 201);
    expect(created, JSON.stringify(results.map((r) => r.status))).to.have.length(10);
    results.filter((r) => r.status !== 201).forEach((r) => expectError(r, 403, 'FILE_COUNT_LIMIT_REACHED'));

    for (const server of [a, b]) {
      const list = await call(server.api, '/files?limit=100', { apiKey });
      expect(list.body.total).to.equal(15);
      expect(list.body.files).to.have.length(15);
      expect((await call(server.api, '/usage', { apiKey })).body).to.include({ files_count: 15, storage_bytes: 1500 });
    }
    // Whichever process stored a file, both serve its bytes from the shared blob store.
    for (const result of created) {
      for (const server of [a, b]) {
        const response = await fetch(`${server.content}/d/${result.body.file.file_id}`);
        expect(response.status).to.equal(200);
        expect((await response.arrayBuffer()).byteLength).to.equal(100);
      }
    }
  });

  it('stops serving a file made private on one process from the other within 1 s, and serves it again once public', async () => {
    const [a, b] = servers;
    const email = 'visibility@example.com';
    await call(a.api, '/auth/register', { method: 'POST', json: { email, password: PASSWORD } });
    const token = await mailedToken({ dataDir: path.join(shared, 'a') }, email, '/auth/confirm');
    await call(a.api, `/auth/confirm?token=${token}`);
    const login = await call(a.api, '/auth/login', { method: 'POST', json: { email, password: PASSWORD } });
    const apiKey = (await call(a.api, '/auth/api-keys', { method: 'POST', token: login.body.session.access_token, json: {} })).body.key;
    const uploaded = await call(a.api, '/files', { method: 'POST', apiKey, headers: { 'content-type': 'image/png' }, body: randomFileOf(100, 'image/png', 77) });
    const fileId = uploaded.body.file.file_id as string;
    /** Milliseconds until b's view address answers `status` (polled), or fails past 1 s. */
    const untilB = async (status: number): Promise<number> => {
      const started = Date.now();
      for (;;) {
        const response = await fetch(`${b.content}/m/${fileId}`);
        await response.arrayBuffer();
        if (response.status === status) return Date.now() - started;
        if (Date.now() - started > 1_000) throw new Error(`b still answered ${response.status} after 1 s`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    // b has served it (and may have kept its lookup) before the change.
    for (let i = 0; i < 3; i++) expect(await untilB(200)).to.be.below(1_000);
    expect((await call(a.api, `/files/${fileId}`, { method: 'PATCH', apiKey, json: { is_public: false } })).status).to.equal(200);
    expect(await untilB(404)).to.be.below(1_000);
    expect((await call(b.api, `/files/${fileId}/content`, { apiKey })).status).to.equal(200);
    expect((await call(a.api, `/files/${fileId}`, { method: 'PATCH', apiKey, json: { is_public: true } })).status).to.equal(200);
    expect(await untilB(200)).to.be.below(1_000);
  });

  it('serves exactly max_downloads of a share link’s downloads raced on both processes', async () => {
    const [a, b] = servers;
    const email = 'share-race@example.com';
    await call(a.api, '/auth/register', { method: 'POST', json: { email, password: PASSWORD } });
    const token = await mailedToken({ dataDir: path.join(shared, 'a') }, email, '/auth/confirm');
    await call(a.api, `/auth/confirm?token=${token}`);
    const login = await call(a.api, '/auth/login', { method: 'POST', json: { email, password: PASSWORD } });
    const apiKey = (await call(a.api, '/auth/api-keys', { method: 'POST', token: login.body.session.access_token, json: {} })).body.key;
    const uploaded = await call(a.api, '/files', { method: 'POST', apiKey, headers: { 'content-type': 'image/png' }, body: randomFileOf(5000, 'image/png', 78) });
    const share = await call(a.api, `/files/${uploaded.body.file.file_id}/shares`, { method: 'POST', apiKey, json: { max_downloads: 5 } });
    expect(share.status).to.equal(201);
    const statuses = await Promise.all(
      Array.from({ length: 24 }, async (_, i) => {
        const response = await fetch(`${servers[i % 2].content}/share/${share.body.share_id}/download`);
        await response.arrayBuffer();
        return response.status;
      }),
    );
    expect(statuses.filter((status) => status === 200), JSON.stringify(statuses)).to.have.length(5);
    expect(statuses.filter((status) => status === 410)).to.have.length(19);
    expect((await call(b.api, `/files/${uploaded.body.file.file_id}/shares`, { apiKey })).body.shares[0].downloads).to.equal(5);
  });
});
