import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import http from 'node:http';
import { makePng, randomFileOf } from '../support/bytes.js';
import { runCli } from '../support/cli-process.js';
import { call, expectError, mailedToken, outboxesUnder } from '../support/http-harness.js';
import { checkResponse } from '../support/openapi-check.js';
import { type ServerProcess, startServerProcess, startServerProcesses } from '../support/server-process.js';
import { TcpProxy } from '../support/tcp-proxy.js';
import { freshServerDatabase, httpTestDatabase, postgresServerDatabase, type ServerDatabase, testDatabaseUrl } from '../support/test-database.js';

const PASSWORD = 'correct horse';

/** How soon a change made through one process must be seen by every other one (docs/scale-out.md). */
const VISIBLE_WITHIN_MS = 1_000;

/**
 * Polls `probe` (every 20 ms) until it answers true; fails when that takes longer than `deadlineMs`.
 * @returns the time it took, in ms
 */
async function within(deadlineMs: number, what: string, probe: () => Promise<boolean>): Promise<number> {
  const start = Date.now();
  for (;;) {
    if (await probe()) return Date.now() - start;
    if (Date.now() - start > deadlineMs) throw new Error(`${what}: not seen by the other process within ${deadlineMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** GET on a content server with a chosen Host header (fetch may not override Host). */
function getWithHost(base: string, path: string, host: string): Promise<number> {
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    const request = http.get({ hostname: url.hostname, port: url.port, path: url.pathname, headers: { host } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const type = response.headers['content-type'] ?? null;
        const body = Buffer.concat(chunks);
        checkResponse(base, 'GET', path, response.statusCode!, type, type?.startsWith('application/json') ? JSON.parse(body.toString()) : undefined);
        resolve(response.statusCode!);
      });
    });
    request.on('error', reject);
  });
}

/**
 * Lets `email` be mailed again at once: an address gets one e-mail a minute, and its confirmation
 * was just sent (`users.last_email_sent_at` cleared, as a minute passing would allow).
 */
async function forgetLastEmail(database: ServerDatabase, email: string): Promise<void> {
  await database.execute('update users set last_email_sent_at = null where email = ?', [email]);
}

/** Registers, confirms and logs in `email` through `server`; the session's access token, user id and an API key. */
async function anAccount(
  server: ServerProcess,
  shared: string,
  email: string,
): Promise<{ token: string; refreshToken: string; apiKey: string; keyId: string }> {
  expect((await call(server.api, '/auth/register', { method: 'POST', json: { email, password: PASSWORD } })).status).to.equal(201);
  const confirm = await mailedToken(outboxesUnder(shared), email, '/auth/confirm');
  expect((await call(server.api, `/auth/confirm?token=${confirm}`)).status).to.equal(302);
  const login = await call(server.api, '/auth/login', { method: 'POST', json: { email, password: PASSWORD } });
  const token = login.body.session.access_token as string;
  const key = await call(server.api, '/auth/api-keys', { method: 'POST', token, json: { name: 'k' } });
  return { token, refreshToken: login.body.session.refresh_token, apiKey: key.body.key, keyId: key.body.id };
}

/**
 * Two server processes behind an imaginary load balancer: one database (the run's: a SQLite file,
 * or a Postgres schema with HANGAR_TEST_DB=postgres), one blob directory, and nothing else in
 * common (each has its own DATA_DIR and outbox; no JWT_SECRET: the generated one is kept in the
 * database, so both sign and accept the same session tokens).
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
    const token = await mailedToken(outboxesUnder(shared), email, '/auth/confirm');
    expect((await call(b.api, `/auth/confirm?token=${token}`)).status).to.equal(302);
    const login = await call(b.api, '/auth/login', { method: 'POST', json: { email, password: PASSWORD } });
    expect(login.status).to.equal(200);
    const key = await call(a.api, '/auth/api-keys', { method: 'POST', token: login.body.session.access_token, json: { name: 'a' } });
    expect(key.status).to.equal(201);
    expect((await call(b.api, '/files', { apiKey: key.body.key })).status).to.equal(200);
    // A refresh token rotated on one process is spent on the other: within the reuse interval (another
    // tab) the other process answers the same new refresh token, which the rotation kept sealed.
    const refreshed = await call(a.api, '/auth/refresh', { method: 'POST', json: { refresh_token: login.body.session.refresh_token } });
    expect(refreshed.status).to.equal(200);
    const again = await call(b.api, '/auth/refresh', { method: 'POST', json: { refresh_token: login.body.session.refresh_token } });
    expect(again.status).to.equal(200);
    expect(again.body.session.refresh_token).to.equal(refreshed.body.session.refresh_token);
    expect((await call(a.api, '/files', { token: again.body.session.access_token })).status).to.equal(200);
  });

  it('sees a setting changed, a key revoked and a session ended on one process within 1 s on the other', async () => {
    const [a, b] = servers;
    const email = 'fresh@example.com';
    expect((await call(a.api, '/auth/register', { method: 'POST', json: { email, password: PASSWORD } })).status).to.equal(201);
    const confirmToken = await mailedToken(outboxesUnder(shared), email, '/auth/confirm');
    expect((await call(a.api, `/auth/confirm?token=${confirmToken}`)).status).to.equal(302);
    const token = (await call(a.api, '/auth/login', { method: 'POST', json: { email, password: PASSWORD } })).body.session.access_token as string;
    const key = await call(a.api, '/auth/api-keys', { method: 'POST', token, json: { name: 'b' } });
    // b has answered with these credentials before (its lookups are cached while nothing changes).
    for (let i = 0; i < 3; i++) {
      expect((await call(b.api, '/settings', { apiKey: key.body.key })).body.max_upload_size_bytes).to.not.equal(4321);
      expect((await call(b.api, '/settings', { token })).status).to.equal(200);
    }
    expect((await call(a.api, '/settings', { method: 'PATCH', token, json: { max_upload_size_bytes: 4321 } })).status).to.equal(200);
    await within(VISIBLE_WITHIN_MS, 'the setting', async () => (await call(b.api, '/settings', { apiKey: key.body.key })).body.max_upload_size_bytes === 4321);
    expect((await call(a.api, `/auth/api-keys/${key.body.id}`, { method: 'DELETE', token })).status).to.equal(204);
    await within(VISIBLE_WITHIN_MS, 'the revoked key', async () => (await call(b.api, '/settings', { apiKey: key.body.key })).status === 401);
    expectError(await call(b.api, '/settings', { apiKey: key.body.key }), 401, 'UNAUTHORIZED');
    expect((await call(a.api, '/auth/logout', { method: 'POST', token })).status).to.equal(204);
    await within(VISIBLE_WITHIN_MS, 'the logout', async () => (await call(b.api, '/settings', { token })).status === 401);
    expectError(await call(b.api, '/settings', { token }), 401, 'UNAUTHORIZED');
  });

  it('refuses a signed URL on the other process within 1 s of the revocation of the API key that made it', async () => {
    const [a, b] = servers;
    const email = 'minter@example.com';
    expect((await call(a.api, '/auth/register', { method: 'POST', json: { email, password: PASSWORD } })).status).to.equal(201);
    expect((await call(a.api, `/auth/confirm?token=${await mailedToken(outboxesUnder(shared), email, '/auth/confirm')}`)).status).to.equal(302);
    const token = (await call(a.api, '/auth/login', { method: 'POST', json: { email, password: PASSWORD } })).body.session.access_token as string;
    const key = await call(a.api, '/auth/api-keys', { method: 'POST', token, json: { name: 'minter' } });
    const uploaded = await call(a.api, '/files?isPublic=false', {
      method: 'POST',
      apiKey: key.body.key,
      headers: { 'content-type': 'image/png' },
      body: makePng(),
    });
    const signed = await call(a.api, `/files/${uploaded.body.file.file_id}/signed-url`, { method: 'POST', apiKey: key.body.key, json: { expires_in: 600 } });
    const url = new URL(signed.body.signed_url);
    const onB = `${b.content}${url.pathname}${url.search}`;
    // b has served it before: the minting key's lookup is cached there while nothing changes.
    for (let i = 0; i < 3; i++) expect((await fetch(onB)).status).to.equal(200);
    expect((await call(a.api, `/auth/api-keys/${key.body.id}`, { method: 'DELETE', token })).status).to.equal(204);
    await within(VISIBLE_WITHIN_MS, 'the revoked minting key', async () => (await fetch(onB)).status === 403);
  });

  it('refuses a device signed out on one process (DELETE /auth/sessions/:id) within 1 s on the other', async () => {
    const [a, b] = servers;
    const email = 'devices@example.com';
    expect((await call(a.api, '/auth/register', { method: 'POST', json: { email, password: PASSWORD } })).status).to.equal(201);
    const confirmToken = await mailedToken(outboxesUnder(shared), email, '/auth/confirm');
    expect((await call(a.api, `/auth/confirm?token=${confirmToken}`)).status).to.equal(302);
    const laptop = (await call(a.api, '/auth/login', { method: 'POST', json: { email, password: PASSWORD } })).body.session.access_token as string;
    const phone = (await call(b.api, '/auth/login', { method: 'POST', json: { email, password: PASSWORD }, headers: { 'user-agent': 'Phone/1' } })).body.session
      .access_token as string;
    for (let i = 0; i < 3; i++) expect((await call(b.api, '/settings', { token: phone })).status).to.equal(200);
    const listed = (await call(a.api, '/auth/sessions', { token: laptop })).body.sessions as { id: string; user_agent: string | null }[];
    const phoneId = listed.find((s) => s.user_agent === 'Phone/1')!.id;
    expect((await call(a.api, `/auth/sessions/${phoneId}`, { method: 'DELETE', token: laptop })).status).to.equal(204);
    await within(VISIBLE_WITHIN_MS, 'the signed-out device', async () => (await call(b.api, '/settings', { token: phone })).status === 401);
    expect((await call(b.api, '/settings', { token: laptop })).status).to.equal(200);
  });

  it('stops serving a custom hostname on the other process within 1 s of its removal, and serves it within 1 s of its activation', async () => {
    const [a, b] = servers;
    const { apiKey } = await anAccount(a, shared, 'domain@example.com');
    const uploaded = await call(a.api, '/files', { method: 'POST', apiKey, headers: { 'content-type': 'image/png' }, body: makePng() });
    expect(uploaded.status).to.equal(201);
    const view = `/m/${uploaded.body.file.file_id}`;
    // b answers for the hostname before it is anybody's, and so has "unknown" in its caches.
    for (let i = 0; i < 3; i++) expect(await getWithHost(b.content, view, 'scale.example.com')).to.equal(404);

    expect((await call(a.api, '/settings', { method: 'PATCH', apiKey, json: { custom_domain: 'scale.example.com' } })).status).to.equal(200);
    // Set but not yet verified (mock provider: pending until refreshed): still nothing served.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await getWithHost(b.content, view, 'scale.example.com')).to.equal(404);
    const refreshed = await call(a.api, '/settings', { method: 'PATCH', apiKey, json: { refresh_custom_domain: true } });
    expect(refreshed.body.custom_domain.verification_status).to.equal('active');
    await within(VISIBLE_WITHIN_MS, 'the activated hostname', async () => (await getWithHost(b.content, view, 'scale.example.com')) === 200);
    await within(
      VISIBLE_WITHIN_MS,
      'the custom domain in File addresses',
      async () => (await call(b.api, `/files/${uploaded.body.file.file_id}`, { apiKey })).body.public_url?.startsWith('https://scale.example.com/') === true,
    );

    expect((await call(a.api, '/settings', { method: 'PATCH', apiKey, json: { custom_domain: null } })).status).to.equal(200);
    await within(VISIBLE_WITHIN_MS, 'the removed hostname', async () => (await getWithHost(b.content, view, 'scale.example.com')) === 404);
    // And stays gone.
    for (let i = 0; i < 5; i++) expect(await getWithHost(b.content, view, 'scale.example.com')).to.equal(404);
  });

  it('stops serving a file deleted through the other process within 1 s', async () => {
    const [a, b] = servers;
    const { apiKey } = await anAccount(a, shared, 'deleted@example.com');
    const uploaded = await call(b.api, '/files', { method: 'POST', apiKey, headers: { 'content-type': 'image/png' }, body: makePng() });
    const fileId = uploaded.body.file.file_id as string;
    for (let i = 0; i < 3; i++) {
      expect((await fetch(`${b.content}/m/${fileId}`)).status).to.equal(200);
      expect((await call(b.api, `/files/${fileId}`, { apiKey })).status).to.equal(200);
    }
    expect((await call(a.api, `/files/${fileId}`, { method: 'DELETE', apiKey })).status).to.equal(204);
    await within(VISIBLE_WITHIN_MS, 'the deleted file (content)', async () => (await fetch(`${b.content}/m/${fileId}`)).status === 404);
    await within(VISIBLE_WITHIN_MS, 'the deleted file (API)', async () => (await call(b.api, `/files/${fileId}`, { apiKey })).status === 404);
  });

  it('refuses the old session on the other process within 1 s of a password reset', async () => {
    const [a, b] = servers;
    const email = 'reset@example.com';
    const { token } = await anAccount(a, shared, email);
    for (let i = 0; i < 3; i++) expect((await call(b.api, '/settings', { token })).status).to.equal(200);
    await forgetLastEmail(database, email);
    expect((await call(a.api, '/auth/forgot-password', { method: 'POST', json: { email } })).status).to.be.oneOf([200, 202, 204]);
    const reset = await mailedToken(outboxesUnder(shared), email, '/auth/reset-password');
    expect((await call(a.api, '/auth/reset-password', { method: 'POST', json: { token: reset, password: 'a new correct horse' } })).status).to.be.oneOf([
      200, 204,
    ]);
    await within(VISIBLE_WITHIN_MS, 'the reset', async () => (await call(b.api, '/settings', { token })).status === 401);
  });

  it('shows a plan and a subscription changed by the admin CLI on both processes within 1 s', async () => {
    const [a, b] = servers;
    const email = 'admin-changed@example.com';
    const { apiKey } = await anAccount(a, shared, email);
    for (const server of [a, b]) {
      for (let i = 0; i < 3; i++) expect((await call(server.api, '/profile', { apiKey })).body.plan.trial_ends_at).to.not.equal(null);
    }
    const cliEnv = { DATA_DIR: path.join(shared, 'cli'), ...database.env };
    const setPlan = await runCli(['users', 'set-plan', email, 'default'], cliEnv);
    expect(setPlan.code, setPlan.stderr).to.equal(0);
    for (const server of [a, b]) {
      await within(VISIBLE_WITHIN_MS, 'the plan change', async () => (await call(server.api, '/profile', { apiKey })).body.plan.trial_ends_at === null);
    }
    const setAccess = await runCli(['users', 'set-access-until', email, '2031-01-01'], cliEnv);
    expect(setAccess.code, setAccess.stderr).to.equal(0);
    for (const server of [a, b]) {
      await within(
        VISIBLE_WITHIN_MS,
        'the subscription change',
        async () => (await call(server.api, '/profile', { apiKey })).body.subscription.access_until === '2031-01-01T00:00:00.000Z',
      );
    }
  });

  it('lets exactly 10 of 20 simultaneous uploads through, split across both processes, when 10 files are left', async () => {
    const [a, b] = servers;
    const email = 'quota@example.com';
    await call(b.api, '/auth/register', { method: 'POST', json: { email, password: PASSWORD } });
    const token = await mailedToken(outboxesUnder(shared), email, '/auth/confirm');
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

    // Full: refused through either process, however much each knew of the account; a file deleted
    // through one process makes room for an upload through the other at once.
    for (const server of [a, b, a, b]) expectError(await post(server, 5000), 403, 'FILE_COUNT_LIMIT_REACHED');
    expect((await call(a.api, `/files/${created[0].body.file.file_id}`, { method: 'DELETE', apiKey })).status).to.equal(204);
    expect((await post(b, 5001)).status).to.equal(201);
    expectError(await post(a, 5002), 403, 'FILE_COUNT_LIMIT_REACHED');
    expect((await call(a.api, '/usage', { apiKey })).body).to.include({ files_count: 15, storage_bytes: 1500 });
  });

  it('answers a search asked again on one process with every change made through the other at once (kept listings)', async () => {
    const [a, b] = servers;
    const { apiKey } = await anAccount(a, shared, 'kept-listings@example.com');
    const uploadAs = async (name: string, seed: number) => {
      const uploaded = await call(a.api, '/files', {
        method: 'POST',
        apiKey,
        headers: { 'content-type': 'image/png', 'x-file-name': name },
        body: randomFileOf(100, 'image/png', seed),
      });
      expect(uploaded.status, JSON.stringify(uploaded.body)).to.equal(201);
      return uploaded.body.file.file_id as string;
    };
    /** What process b answers for one search and the same search of public files, asked twice in a row: names newest first and totals. */
    const onB = async () => {
      const ask = async () =>
        Promise.all(
          ['/files?q=kept&limit=10', '/files?q=kept&isPublic=true&limit=10'].map(async (url) => {
            const listed = await call(b.api, url, { apiKey });
            expect(listed.status).to.equal(200);
            return {
              total: listed.body.total,
              names: listed.body.files.map((file: { name: string; expires_at: string | null }) => `${file.name} ${file.expires_at ?? '-'}`),
            };
          }),
        );
      const first = await ask();
      expect(await ask(), 'asked again').to.deep.equal(first);
      return first;
    };
    const lake = await uploadAs('kept-lake.png', 91);
    const fern = await uploadAs('kept-fern.png', 92);
    expect(await onB()).to.deep.equal([
      { total: 2, names: ['kept-fern.png -', 'kept-lake.png -'] },
      { total: 2, names: ['kept-fern.png -', 'kept-lake.png -'] },
    ]);
    // No waiting between a change on a and the next listing on b: a kept listing is answered only while its account is unchanged.
    const pine = await uploadAs('kept-pine.png', 93);
    expect((await onB())[0]).to.deep.equal({ total: 3, names: ['kept-pine.png -', 'kept-fern.png -', 'kept-lake.png -'] });
    expect((await call(a.api, `/files/${pine}`, { method: 'PATCH', apiKey, json: { name: 'birch.png' } })).status).to.equal(200);
    expect((await onB())[0]).to.deep.equal({ total: 2, names: ['kept-fern.png -', 'kept-lake.png -'] });
    const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
    expect((await call(a.api, `/files/${fern}`, { method: 'PATCH', apiKey, json: { is_public: false, expires_at: expiresAt } })).status).to.equal(200);
    expect(await onB()).to.deep.equal([
      { total: 2, names: [`kept-fern.png ${expiresAt}`, 'kept-lake.png -'] },
      { total: 1, names: ['kept-lake.png -'] },
    ]);
    expect((await call(a.api, `/files/${lake}`, { method: 'DELETE', apiKey })).status).to.equal(204);
    expect(await onB()).to.deep.equal([
      { total: 1, names: [`kept-fern.png ${expiresAt}`] },
      { total: 0, names: [] },
    ]);
  });

  it('stops serving a file made private on one process from the other within 1 s, and serves it again once public', async () => {
    const [a, b] = servers;
    const email = 'visibility@example.com';
    await call(a.api, '/auth/register', { method: 'POST', json: { email, password: PASSWORD } });
    const token = await mailedToken(outboxesUnder(shared), email, '/auth/confirm');
    await call(a.api, `/auth/confirm?token=${token}`);
    const login = await call(a.api, '/auth/login', { method: 'POST', json: { email, password: PASSWORD } });
    const apiKey = (await call(a.api, '/auth/api-keys', { method: 'POST', token: login.body.session.access_token, json: {} })).body.key;
    const uploaded = await call(a.api, '/files', {
      method: 'POST',
      apiKey,
      headers: { 'content-type': 'image/png' },
      body: randomFileOf(100, 'image/png', 77),
    });
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
    const token = await mailedToken(outboxesUnder(shared), email, '/auth/confirm');
    await call(a.api, `/auth/confirm?token=${token}`);
    const login = await call(a.api, '/auth/login', { method: 'POST', json: { email, password: PASSWORD } });
    const apiKey = (await call(a.api, '/auth/api-keys', { method: 'POST', token: login.body.session.access_token, json: {} })).body.key;
    const uploaded = await call(a.api, '/files', {
      method: 'POST',
      apiKey,
      headers: { 'content-type': 'image/png' },
      body: randomFileOf(5000, 'image/png', 78),
    });
    const share = await call(a.api, `/files/${uploaded.body.file.file_id}/shares`, { method: 'POST', apiKey, json: { max_downloads: 5 } });
    expect(share.status).to.equal(201);
    const statuses = await Promise.all(
      Array.from({ length: 24 }, async (_, i) => {
        const response = await fetch(`${servers[i % 2].content}/share/${share.body.share_id}/download`);
        await response.arrayBuffer();
        return response.status;
      }),
    );
    expect(
      statuses.filter((status) => status === 200),
      JSON.stringify(statuses),
    ).to.have.length(5);
    expect(statuses.filter((status) => status === 410)).to.have.length(19);
    expect((await call(b.api, `/files/${uploaded.body.file.file_id}/shares`, { apiKey })).body.shares[0].downloads).to.equal(5);
  });

  it('stores exactly one file from a signed upload URL raced on both processes; the others answer 409 UPLOAD_URL_USED', async () => {
    const { apiKey } = await anAccount(servers[0], shared, 'upload-url-race@example.com');
    const minted = await call(servers[0].api, '/files/upload-url', { method: 'POST', apiKey, json: { expires_in: 600 } });
    expect(minted.status, JSON.stringify(minted.body)).to.equal(201);
    const { pathname, search } = new URL(minted.body.upload_url);
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        call(servers[i % 2].api, `${pathname}${search}`, {
          method: 'PUT',
          headers: { 'content-type': 'image/png' },
          body: randomFileOf(20_000, 'image/png', 80 + i),
        }),
      ),
    );
    const statuses = answers.map((answer) => answer.status);
    expect(
      statuses.filter((status) => status === 201),
      JSON.stringify(statuses),
    ).to.have.length(1);
    for (const answer of answers.filter((a) => a.status !== 201)) expectError(answer, 409, 'UPLOAD_URL_USED');
    expect((await call(servers[1].api, '/files', { apiKey })).body.files).to.have.length(1);
    // The bundled server (npm start) reads a plain HTML form's multipart body too.
    const form = new FormData();
    form.append('file', new Blob([makePng(20, 20)], { type: 'image/png' }), 'form.png');
    const formUrl = new URL((await call(servers[0].api, '/files/upload-url', { method: 'POST', apiKey, json: {} })).body.upload_url);
    const sent = await call(servers[1].api, `${formUrl.pathname}${formUrl.search}`, { method: 'POST', body: form });
    expect(sent.status, JSON.stringify(sent.body)).to.equal(201);
    expect(sent.body.file.name).to.equal('form.png');
  });
});

const postgresRun = httpTestDatabase() === 'postgres';
if (!postgresRun) process.stdout.write('Notification loss (the LISTEN connection cut by a proxy): Postgres HTTP run only (HANGAR_TEST_DB=postgres)\n');

/**
 * The change feed's connection lost: the second process listens through a TCP proxy
 * (DATABASE_LISTEN_URL) that the test takes down, while its pool still reaches the database.
 */
(postgresRun ? describe : describe.skip)('HTTP: two server processes on Postgres, the LISTEN connection of one cut and restored', function () {
  this.timeout(90_000);
  let shared: string;
  let database: ServerDatabase;
  let proxy: TcpProxy;
  let servers: ServerProcess[] = [];

  before(async () => {
    shared = await mkdtemp(path.join(tmpdir(), 'hangar-feed-loss-'));
    const url = testDatabaseUrl()!;
    database = await postgresServerDatabase(url);
    const target = new URL(url);
    proxy = await TcpProxy.start(target.hostname, Number(target.port || 5432));
    const listenUrl = new URL(database.env.DATABASE_URL);
    listenUrl.hostname = '127.0.0.1';
    listenUrl.port = String(proxy.port);
    const env = (name: string, extra: Record<string, string> = {}) => ({
      HOST: '127.0.0.1',
      PORT: '0',
      CONTENT_PORT: '0',
      DATA_DIR: path.join(shared, name),
      ...database.env,
      BLOB_STORE_URL: `file:${path.join(shared, 'blobs')}`,
      PASSWORD_HASH_MEMORY_KIB: '1024',
      ...extra,
    });
    servers = [await startServerProcess(env('a')), await startServerProcess(env('b', { DATABASE_LISTEN_URL: listenUrl.toString() }))];
  });
  after(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await proxy?.close();
    await database?.drop();
    if (shared) await rm(shared, { recursive: true, force: true });
  });

  it('keeps answers correct within the fallback period (5 s) while the feed is down, and sees changes within 1 s again once it listens', async () => {
    const [a, b] = servers;
    const { token } = await anAccount(a, shared, 'loss@example.com');
    const keys = await Promise.all([1, 2].map(async (n) => (await call(a.api, '/auth/api-keys', { method: 'POST', token, json: { name: `k${n}` } })).body));
    for (const key of keys) for (let i = 0; i < 3; i++) expect((await call(b.api, '/settings', { apiKey: key.key })).status).to.equal(200);

    proxy.down();
    await within(5_000, 'the feed going down', async () => b.output().includes('change_feed_down'));
    // b answers from its caches again (it dropped them when the feed went down).
    for (let i = 0; i < 3; i++) expect((await call(b.api, '/settings', { apiKey: keys[0].key })).status).to.equal(200);
    expect((await call(a.api, `/auth/api-keys/${keys[0].id}`, { method: 'DELETE', token })).status).to.equal(204);
    // No notification reaches b now: the fallback drops its caches every 5 s.
    await within(
      5_000 + VISIBLE_WITHIN_MS,
      'the revoked key, through the fallback',
      async () => (await call(b.api, '/settings', { apiKey: keys[0].key })).status === 401,
    );
    expect((await call(b.api, '/settings', { apiKey: keys[1].key })).status).to.equal(200);

    proxy.up();
    await within(10_000, 'the feed listening again', async () => b.output().includes('change_feed_listening'));
    expect((await call(b.api, '/settings', { apiKey: keys[1].key })).status).to.equal(200);
    expect((await call(a.api, `/auth/api-keys/${keys[1].id}`, { method: 'DELETE', token })).status).to.equal(204);
    await within(
      VISIBLE_WITHIN_MS,
      'the revoked key, through the feed again',
      async () => (await call(b.api, '/settings', { apiKey: keys[1].key })).status === 401,
    );
  });
});
