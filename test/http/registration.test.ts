import { expect } from 'chai';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { call, expectError, mailedToken, startTestServer, type TestServer } from '../support/http-harness.js';
import { runCli } from '../support/cli-process.js';
import { freshServerDatabase, type ServerDatabase } from '../support/test-database.js';

const PLANS = {
  plans: [
    { name: 'trial', trial_days: 14, storage_limit_bytes: 10_000_000, file_count_limit: 50, max_upload_size_bytes: 5_000_000 },
    { name: 'pro', trial_days: null, storage_limit_bytes: 100_000_000, file_count_limit: 500, max_upload_size_bytes: 50_000_000 },
  ],
  default_plan: 'trial',
};

describe('REGISTRATION=invite over HTTP, with invites from the admin CLI', function () {
  this.timeout(180_000);
  let dataDir: string;
  let plansFile: string;
  let server: TestServer;
  let database: ServerDatabase;

  before(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'hangar-invites-'));
    plansFile = path.join(dataDir, 'plans.json');
    await writeFile(plansFile, JSON.stringify(PLANS));
    database = await freshServerDatabase(dataDir);
    server = await startTestServer({ ...database.env, PLANS_FILE: plansFile, REGISTRATION: 'invite' }, {}, { dataDir });
  });
  after(async () => {
    await server?.stop();
    await database?.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  /** The admin CLI as its own process, on the server's database and plans. */
  const cli = (args: string[]) =>
    runCli(args, { ...database.env, DATA_DIR: dataDir, PASSWORD_HASH_MEMORY_KIB: '1024', PLANS_FILE: plansFile, PUBLIC_API_URL: 'http://api.hangar.test' });

  /** `npm run cli -- invites create …` on the server's data; returns the invite token of the printed link. */
  async function createInvite(...args: string[]): Promise<string> {
    const result = await cli(['invites', 'create', ...args]);
    expect(result.code, result.stderr).to.equal(0);
    const match = /^http:\/\/api\.hangar\.test\/#\/register\?invite=([0-9A-Za-z]{40})\n$/.exec(result.stdout);
    expect(match, result.stdout).to.not.equal(null);
    return match![1];
  }

  const register = (email: string, invite?: string) =>
    call(server.api, '/auth/register', { method: 'POST', json: { email, password: 'correct horse', ...(invite === undefined ? {} : { invite }) } });

  it('tells the dashboard that registration is by invite', async () => {
    expect((await call(server.api, '/auth/providers')).body).to.deep.equal({ oidc: null, registration: 'invite' });
  });

  it('registers with an invite, on the invite’s plan, and refuses the invite a second time', async () => {
    const invite = await createInvite('--plan', 'pro', '--expires', '7d');
    const created = await register('invited@example.com', invite);
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    const token = await mailedToken(server, 'invited@example.com', '/auth/confirm');
    expect((await call(server.api, `/auth/confirm?token=${token}`)).status).to.equal(302);
    const login = await call(server.api, '/auth/login', { method: 'POST', json: { email: 'invited@example.com', password: 'correct horse' } });
    const profile = await call(server.api, '/profile', { token: login.body.session.access_token });
    expect(JSON.stringify(profile.body)).to.include('"pro"');

    expectError(await register('second@example.com', invite), 400, 'INVITE_INVALID');
  });

  it('refuses registration without an invite (403 INVITE_REQUIRED) and with a revoked one', async () => {
    expectError(await register('nobody@example.com'), 403, 'INVITE_REQUIRED');
    const invite = await createInvite();
    const listed = await cli(['invites', 'list', '--json']);
    const usable = (JSON.parse(listed.stdout) as { id: string; state: string }[]).filter((i) => i.state === 'usable');
    expect(usable).to.have.length(1);
    const revoked = await cli(['invites', 'revoke', usable[0].id]);
    expect(revoked.code, revoked.stderr).to.equal(0);
    expectError(await register('late@example.com', invite), 400, 'INVITE_INVALID');
  });
});

describe('REGISTRATION=closed over HTTP', () => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer({ REGISTRATION: 'closed' });
  });
  after(async () => {
    await server?.stop();
  });

  it('refuses every registration with 403 REGISTRATION_CLOSED', async () => {
    expectError(
      await call(server.api, '/auth/register', { method: 'POST', json: { email: 'a@example.com', password: 'correct horse' } }),
      403,
      'REGISTRATION_CLOSED',
    );
    expectError(
      await call(server.api, '/auth/register', { method: 'POST', json: { email: 'a@example.com', password: 'correct horse', invite: 'x'.repeat(40) } }),
      403,
      'REGISTRATION_CLOSED',
    );
  });
});
