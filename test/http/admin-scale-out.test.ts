import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { call, expectError, mailedToken, outboxesUnder } from '../support/http-harness.js';
import { type ServerProcess, startServerProcesses } from '../support/server-process.js';
import { freshServerDatabase, httpTestDatabase, type ServerDatabase } from '../support/test-database.js';

const PASSWORD = 'correct horse';
/** How soon an administrator's change made through one process must hold on every other one (docs/admin.md). */
const VISIBLE_WITHIN_MS = 1_000;

/** Polls `probe` every 20 ms until it answers true; fails past `deadlineMs`. */
async function within(deadlineMs: number, what: string, probe: () => Promise<boolean>): Promise<void> {
  const start = Date.now();
  for (;;) {
    if (await probe()) return;
    if (Date.now() - start > deadlineMs) throw new Error(`${what}: not seen by the other process within ${deadlineMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Suspension and roles across two server processes on one database (the run's: SQLite file, or
 * Postgres with HANGAR_TEST_DB=postgres): a change made through one is enforced by the other within
 * 1 s, although the other has the account's lookups cached.
 */
describe(`HTTP: administrators' changes across two server processes (${httpTestDatabase()})`, function () {
  this.timeout(60_000);
  let shared: string;
  let database: ServerDatabase;
  let servers: ServerProcess[] = [];

  /** Registers, confirms and logs in `email` through `server`: its session token, id and an API key with `scopes`. */
  async function anAccount(server: ServerProcess, email: string, scopes?: string[]): Promise<{ token: string; userId: string; apiKey: string }> {
    expect((await call(server.api, '/auth/register', { method: 'POST', json: { email, password: PASSWORD } })).status).to.equal(201);
    const confirm = await mailedToken(outboxesUnder(shared), email, '/auth/confirm');
    expect((await call(server.api, `/auth/confirm?token=${confirm}`)).status).to.equal(302);
    const login = await call(server.api, '/auth/login', { method: 'POST', json: { email, password: PASSWORD } });
    const token = login.body.session.access_token as string;
    const key = await call(server.api, '/auth/api-keys', { method: 'POST', token, json: { name: 'k', ...(scopes && { scopes }) } });
    expect(key.status, JSON.stringify(key.body)).to.equal(201);
    return { token, userId: login.body.user.id, apiKey: key.body.key };
  }

  before(async () => {
    shared = await mkdtemp(path.join(tmpdir(), 'hangar-admin-scale-'));
    database = await freshServerDatabase(shared);
    const env = (name: string) => ({
      HOST: '127.0.0.1',
      PORT: '0',
      CONTENT_PORT: '0',
      DATA_DIR: path.join(shared, name),
      ...database.env,
      BLOB_STORE_URL: `file:${path.join(shared, 'blobs')}`,
      PASSWORD_HASH_MEMORY_KIB: '1024',
      ADMIN_EMAILS: 'root@example.com,deputy@example.com',
    });
    servers = await startServerProcesses([env('a'), env('b')]);
  });
  after(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await database?.drop();
    if (shared) await rm(shared, { recursive: true, force: true });
  });

  it('stops the other process accepting a suspended account and serving its files within 1 s, and resumes within 1 s of reinstatement', async () => {
    const [a, b] = servers;
    const root = await anAccount(a, 'root@example.com', ['admin']);
    const user = await anAccount(a, 'member@example.com');
    const uploaded = await call(a.api, '/files', { method: 'POST', apiKey: user.apiKey, headers: { 'content-type': 'text/plain' }, body: 'shared words' });
    expect(uploaded.status).to.equal(201);
    const view = `${b.content}/m/${uploaded.body.file.file_id}`;
    // b has answered for the account and its file before (its lookups are cached while nothing changes).
    for (let i = 0; i < 3; i++) {
      expect((await call(b.api, '/files', { apiKey: user.apiKey })).status).to.equal(200);
      expect((await call(b.api, '/profile', { token: user.token })).status).to.equal(200);
      expect((await fetch(view)).status).to.equal(200);
    }
    const suspended = await call(a.api, `/admin/users/${user.userId}`, { method: 'PATCH', apiKey: root.apiKey, json: { status: 'suspended' } });
    expect(suspended.status, JSON.stringify(suspended.body)).to.equal(200);
    await within(VISIBLE_WITHIN_MS, 'the suspended key', async () => (await call(b.api, '/files', { apiKey: user.apiKey })).status === 403);
    await within(VISIBLE_WITHIN_MS, 'the suspended session', async () => (await call(b.api, '/profile', { token: user.token })).status === 403);
    await within(VISIBLE_WITHIN_MS, 'the suspended file', async () => (await fetch(view)).status === 404);
    expectError(await call(b.api, '/files', { apiKey: user.apiKey }), 403, 'ACCOUNT_SUSPENDED');

    expect((await call(a.api, `/admin/users/${user.userId}`, { method: 'PATCH', apiKey: root.apiKey, json: { status: 'active' } })).status).to.equal(200);
    await within(VISIBLE_WITHIN_MS, 'the reinstated key', async () => (await call(b.api, '/files', { apiKey: user.apiKey })).status === 200);
    await within(VISIBLE_WITHIN_MS, 'the reinstated file', async () => (await fetch(view)).status === 200);
  });

  it("refuses a demoted administrator's admin key on the other process within 1 s", async () => {
    const [a, b] = servers;
    const deputy = await anAccount(a, 'deputy@example.com', ['admin']);
    const rootToken = (await call(a.api, '/auth/login', { method: 'POST', json: { email: 'root@example.com', password: PASSWORD } })).body.session
      .access_token as string;
    for (let i = 0; i < 3; i++) expect((await call(b.api, '/admin/users', { apiKey: deputy.apiKey })).status).to.equal(200);
    expect((await call(a.api, `/admin/users/${deputy.userId}`, { method: 'PATCH', token: rootToken, json: { role: 'user' } })).status).to.equal(200);
    await within(VISIBLE_WITHIN_MS, 'the demotion', async () => (await call(b.api, '/admin/users', { apiKey: deputy.apiKey })).status === 403);
    expectError(await call(b.api, '/admin/users', { apiKey: deputy.apiKey }), 403, 'ADMIN_REQUIRED');
  });

  it('applies a plan set through one process to the accounts on it on the other process within 1 s', async () => {
    const [a, b] = servers;
    const root = (await call(a.api, '/auth/login', { method: 'POST', json: { email: 'root@example.com', password: PASSWORD } })).body.session
      .access_token as string;
    const planner = await anAccount(a, 'planner@example.com');
    const profile = async () => (await call(b.api, '/profile', { apiKey: planner.apiKey })).body.plan as { name: string; file_count_limit: number };
    const before = await profile();
    for (let i = 0; i < 3; i++) expect((await profile()).file_count_limit).to.not.equal(7);
    const set = await call(a.api, `/admin/plans/${before.name}`, {
      method: 'PUT',
      token: root,
      json: { trial_days: null, storage_limit_bytes: 10 ** 9, file_count_limit: 7, max_upload_size_bytes: 10 ** 6 },
    });
    expect(set.status, JSON.stringify(set.body)).to.equal(200);
    await within(VISIBLE_WITHIN_MS, 'the plan', async () => (await profile()).file_count_limit === 7);
    // And again, once b has the plan cached from the first change.
    const again = await call(a.api, `/admin/plans/${before.name}`, {
      method: 'PUT',
      token: root,
      json: { trial_days: null, storage_limit_bytes: 10 ** 9, file_count_limit: 8, max_upload_size_bytes: 10 ** 6 },
    });
    expect(again.status, JSON.stringify(again.body)).to.equal(200);
    await within(VISIBLE_WITHIN_MS, 'the plan changed again', async () => (await profile()).file_count_limit === 8);
  });

  it('keeps one active administrator when two administrators demote or suspend each other through two processes at the same moment', async () => {
    const [a, b] = servers;
    const login = async (email: string) =>
      (await call(a.api, '/auth/login', { method: 'POST', json: { email, password: PASSWORD } })).body.session as { access_token: string };
    const root = (await login('root@example.com')).access_token;
    const deputy = (await login('deputy@example.com')).access_token;
    const ids = (await call(a.api, '/admin/users?limit=100', { token: root })).body.users as { id: string; email: string }[];
    const rootId = ids.find((u) => u.email === 'root@example.com')!.id;
    const deputyId = ids.find((u) => u.email === 'deputy@example.com')!.id;
    const patch = (server: ServerProcess, token: string, id: string, json: unknown) => call(server.api, `/admin/users/${id}`, { method: 'PATCH', token, json });
    const activeAdmins = async (token: string) => {
      const listed = (await call(a.api, '/admin/users?limit=100', { token })).body.users as { role: string; status: string }[];
      return listed.filter((u) => u.role === 'admin' && u.status === 'active').length;
    };
    for (const [rootDoes, deputyDoes] of [
      [{ role: 'user' }, { role: 'user' }],
      [{ status: 'suspended' }, { status: 'suspended' }],
      [{ role: 'user' }, { status: 'suspended' }],
      [{ status: 'suspended' }, { role: 'user' }],
    ]) {
      expect((await patch(a, root, deputyId, { role: 'admin', status: 'active' })).status).to.equal(200);
      expect(await activeAdmins(root)).to.equal(2);
      const [byRoot, byDeputy] = await Promise.all([patch(a, root, deputyId, rootDoes), patch(b, deputy, rootId, deputyDoes)]);
      // Exactly one goes through. The other is refused by the last-admin rule when both passed the
      // admin check together, or by that check when the first change was already in.
      expect(
        [byRoot.status, byDeputy.status].filter((status) => status === 200),
        JSON.stringify([byRoot.body, byDeputy.body]),
      ).to.have.length(1);
      const [refused, survivor, other] = byRoot.status === 200 ? [byDeputy, root, deputyId] : [byRoot, deputy, rootId];
      expect(`${refused.status} ${refused.body.code}`).to.be.oneOf(['409 LAST_ADMIN', '403 ADMIN_REQUIRED', '403 ACCOUNT_SUSPENDED']);
      expect(await activeAdmins(survivor)).to.equal(1);
      expect((await patch(a, survivor, other, { role: 'admin', status: 'active' })).status).to.equal(200);
    }
  });
});
