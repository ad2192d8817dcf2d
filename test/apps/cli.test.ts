import { expect } from 'chai';
import { storedBlobs } from '../support/stored-blobs.js';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { makePng, sha256 } from '../support/bytes.js';
import { call, signUpWithKey, startTestServer, type TestServer, upload } from '../support/http-harness.js';
import { type CliResult, runCli } from '../support/cli-process.js';
import { LOADED_PACKAGES_NODE_OPTIONS, loadedPackages } from '../support/loaded-packages.js';

/** The compiled admin CLI, as `npm run cli` runs it. */

const PLANS = {
  plans: [
    { name: 'trial', trial_days: 14, storage_limit_bytes: 10_000_000, file_count_limit: 50, max_upload_size_bytes: 5_000_000 },
    { name: 'pro', trial_days: null, storage_limit_bytes: 100_000_000, file_count_limit: 500, max_upload_size_bytes: 50_000_000 },
  ],
  default_plan: 'trial',
};
const DAY_MS = 24 * 60 * 60 * 1000;
const PASSWORD = 'correct horse';

/** Every file under `dir` (recursively) with its SHA-256; empty when `dir` does not exist. */
describe('admin CLI (the bundled dist/apps/cli/main.js, as npm run cli runs it, as its own process)', function () {
  // Each test runs the CLI as a process several times; the bound allows for a machine the parallel run keeps busy.
  this.timeout(60_000);
  let dataDir: string;
  let plansFile: string;
  let server: TestServer;
  let alice: { userId: string; accessToken: string; apiKey: string; fileUrl: string; png: Uint8Array };
  let carol: { userId: string; accessToken: string; apiKey: string; fileUrl: string; png: Uint8Array };

  /** Runs the CLI with the server's DATA_DIR and plans; `env` adds or overrides variables. */
  const cli = (args: string[], env: Record<string, string> = {}): Promise<CliResult> =>
    runCli(args, { DATA_DIR: dataDir, PASSWORD_HASH_MEMORY_KIB: '1024', PLANS_FILE: plansFile, ...env });
  /** Runs the CLI and expects exit 0 with nothing on stderr; returns stdout. */
  const cliOk = async (args: string[]): Promise<string> => {
    const result = await cli(args);
    expect(result.code, result.stderr).to.equal(0);
    expect(result.stderr).to.equal('');
    expect(result.stdout.endsWith('\n')).to.equal(true);
    return result.stdout;
  };
  const logIn = (email: string) => call(server.api, '/auth/login', { method: 'POST', json: { email, password: PASSWORD } });
  const profile = async (token: string) => {
    const result = await call(server.api, '/profile', { token });
    expect(result.status, JSON.stringify(result.body)).to.equal(200);
    return result.body;
  };
  /** The file's public address on the running content server (PUBLIC_CONTENT_URL is a test name). */
  const local = (publicUrl: string) => publicUrl.replace('http://cdn.hangar.test', server.content);
  const withFile = async (email: string, png: Uint8Array) => {
    const account = await signUpWithKey(server, email);
    const uploaded = await upload(server, account.apiKey, png, { name: `${email}.png` });
    expect(uploaded.status, JSON.stringify(uploaded.body)).to.equal(201);
    return { ...account, fileUrl: local(uploaded.body.file.public_url), png };
  };

  before(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'hangar-cli-'));
    plansFile = path.join(dataDir, 'plans.json');
    await writeFile(plansFile, JSON.stringify(PLANS));
    server = await startTestServer({ PLANS_FILE: plansFile }, {}, { dataDir });
    alice = await withFile('alice@example.com', makePng(16, 16));
    carol = await withFile('carol@example.com', makePng(8, 8));
    const bob = await call(server.api, '/auth/register', { method: 'POST', json: { email: 'bob@example.com', password: PASSWORD } });
    expect(bob.status).to.equal(201);
  });
  after(async () => {
    await server?.stop();
    expect(server?.internalErrors).to.deep.equal([]);
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  describe('usage and configuration', () => {
    it('prints the usage with every command for help, --help and no command, exit 0', async () => {
      // Independent runs that change nothing: started together.
      const argLists = [['help'], ['--help'], [], ['users', 'show', '--help']];
      const outputs = await Promise.all(argLists.map((args) => cliOk(args)));
      for (const [i, args] of argLists.entries()) {
        const stdout = outputs[i];
        for (const command of [
          'users list',
          'users show <email>',
          'users confirm <email>',
          'users reset-mfa <email>',
          'users set-plan <email> <plan>',
          'users set-access-until <email> <ISO date|none>',
          'users set-canceled-at <email> <ISO date|none>',
          'users delete <email> [--yes]',
        ]) {
          expect(stdout, args.join(' ')).to.include(command);
        }
      }
    });

    it('exits 64 for an unknown command, an unknown option, a missing or extra argument', async () => {
      // Independent refusals that change nothing: started together.
      const argLists = [
        ['frobnicate'],
        ['users', 'frobnicate'],
        ['users'],
        ['users', 'list', '--bogus'],
        ['users', 'show'],
        ['users', 'set-plan', 'alice@example.com'],
        ['users', 'show', 'a@example.com', 'b@example.com'],
        ['users', 'list', '--limit', '0'],
      ];
      const results = await Promise.all(argLists.map((args) => cli(args)));
      for (const [i, args] of argLists.entries()) {
        const result = results[i];
        expect(result.code, args.join(' ')).to.equal(64);
        expect(result.stdout).to.equal('');
        expect(result.stderr).to.match(/^hangar: /);
      }
      expect(results[0].stderr).to.include('unknown command "frobnicate"');
      expect(results[5].stderr).to.include('missing <plan>');
    });

    it('invites: create prints a link to the dashboard registration, list shows it, revoke ends it; a bad --expires exits 64, an unknown plan 1', async function () {
      this.timeout(120_000);
      const link = await cliOk(['invites', 'create', '--plan', 'pro', '--expires', '12h']);
      expect(link).to.match(/^http:\/\/localhost:3000\/#\/register\?invite=[0-9A-Za-z]{40}\n$/);
      const listed = JSON.parse(await cliOk(['invites', 'list', '--json'])) as { id: string; state: string; plan: string; expires_at: string }[];
      expect(listed[0]).to.include({ state: 'usable', plan: 'pro' });
      expect(Date.parse(listed[0].expires_at) - Date.now()).to.be.within(11 * 3600_000, 12 * 3600_000);
      expect(await cliOk(['invites', 'revoke', listed[0].id])).to.equal(`invite ${listed[0].id} revoked\n`);
      expect(await cliOk(['invites', 'list'])).to.include(`${listed[0].id}  revoked`);
      expect((await cli(['invites', 'revoke', listed[0].id])).code).to.equal(1);
      for (const expires of ['7', '400d']) {
        expect((await cli(['invites', 'create', '--expires', expires])).code, expires).to.equal(64);
      }
      const unknown = await cli(['invites', 'create', '--plan', 'platinum']);
      expect(unknown.code).to.equal(1);
      expect(unknown.stderr).to.include('platinum');
    });

    it('exits 2 and names the variable when the configuration is invalid, like the server', async () => {
      const result = await cli(['users', 'list'], { PORT: 'abc' });
      expect(result.code).to.equal(2);
      expect(result.stderr).to.equal('hangar: invalid configuration: PORT: "abc" is not a whole number.\n');
      expect(result.stdout).to.equal('');
    });

    it('refuses a fresh DATA_DIR until an explicit init creates it; then the list is empty', async () => {
      const fresh = await mkdtemp(path.join(tmpdir(), 'hangar-cli-fresh-'));
      try {
        const refused = await cli(['users', 'list'], { DATA_DIR: path.join(fresh, 'data') });
        expect(refused.code).to.equal(1);
        expect(refused.stderr).to.include(`no Hangar database at ${path.join(fresh, 'data', 'hangar.db')}`);
        expect((await cli(['init'], { DATA_DIR: path.join(fresh, 'data') })).code).to.equal(0);
        const result = await cli(['users', 'list'], { DATA_DIR: path.join(fresh, 'data') });
        expect(result.code, result.stderr).to.equal(0);
        expect(result.stdout).to.equal('No accounts.\n');
        const json = await cli(['users', 'list', '--json'], { DATA_DIR: path.join(fresh, 'data') });
        expect(JSON.parse(json.stdout)).to.deep.equal({ items: [], total: 0, page: 1, limit: 30 });
      } finally {
        await rm(fresh, { recursive: true, force: true });
      }
    });
  });

  describe('users list and show', () => {
    it('lists every account, oldest first, as a table with plan, status, confirmation, files and bytes', async () => {
      const lines = (await cliOk(['users', 'list'])).trimEnd().split('\n');
      expect(lines[0].split(/\s+/)).to.deep.equal(['EMAIL', 'PLAN', 'STATUS', 'CONFIRMED', 'FILES', 'STORAGE_BYTES', 'CREATED_AT']);
      const rows = lines.slice(1, 4).map((line) => line.split(/\s+/));
      expect(rows.map((r) => r[0])).to.deep.equal(['alice@example.com', 'carol@example.com', 'bob@example.com']);
      expect(rows[0].slice(1, 6)).to.deep.equal(['trial', 'trialing', 'yes', '1', String(alice.png.length)]);
      expect(rows[2].slice(1, 6)).to.deep.equal(['trial', 'trialing', 'no', '0', '0']);
      expect(rows[0][6]).to.match(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      expect(lines.at(-1)).to.equal('1-3 of 3 accounts (page 1, limit 30).');
    });

    it('loads the SQLite driver and not the Postgres one (pg) on a SQLite DATA_DIR', async () => {
      const result = await cli(['users', 'list'], { NODE_OPTIONS: LOADED_PACKAGES_NODE_OPTIONS });
      expect(result.code, result.stderr).to.equal(0);
      const packages = loadedPackages(result.stderr);
      expect(packages).to.include('better-sqlite3');
      expect(packages).to.not.include('pg');
    });

    it('pages with --page and --limit, and prints JSON with --json', async () => {
      const page = JSON.parse(await cliOk(['users', 'list', '--page', '2', '--limit', '2', '--json']));
      expect(page).to.include({ total: 3, page: 2, limit: 2 });
      expect(page.items.map((a: { email: string }) => a.email)).to.deep.equal(['bob@example.com']);
      expect((await cliOk(['users', 'list', '--page', '9'])).trimEnd()).to.equal('No accounts on page 9 (3 accounts in all).');
    });

    it('shows one account as JSON: plan and trial from PLANS_FILE, subscription, totals', async () => {
      const shown = JSON.parse(await cliOk(['users', 'show', 'Alice@Example.com']));
      expect(shown).to.have.keys('id', 'email', 'created_at', 'email_confirmed_at', 'plan', 'subscription', 'upload_limit_bytes', 'totals');
      expect(shown).to.include({ id: alice.userId, email: 'alice@example.com' });
      expect(shown.email_confirmed_at).to.match(/Z$/);
      expect(Date.parse(shown.plan.trial_ends_at) - Date.parse(shown.created_at)).to.equal(14 * DAY_MS);
      expect(shown.plan).to.deep.equal({
        name: 'trial',
        trial_ends_at: shown.plan.trial_ends_at,
        trial_active: true,
        storage_limit_bytes: 10_000_000,
        file_count_limit: 50,
        max_upload_size_bytes: 5_000_000,
        image_ops_limit: null,
      });
      expect(shown.subscription).to.deep.equal({ status: 'trialing', access_until: null, subscription_canceled_at: null });
      expect(shown.totals).to.deep.equal({ storage_bytes: alice.png.length, files_count: 1 });
    });

    it('shows every field of the account GET /profile shows, with the same values', async () => {
      const shown = JSON.parse(await cliOk(['users', 'show', 'alice@example.com']));
      const { user, plan, subscription, upload_limit_bytes } = await profile(alice.accessToken);
      expect(shown).to.deep.include({ ...user, plan, subscription, upload_limit_bytes });
    });

    it('exits 1 for an unknown or invalid e-mail address', async () => {
      const unknown = await cli(['users', 'show', 'nobody@example.com']);
      expect(unknown.code).to.equal(1);
      expect(unknown.stdout).to.equal('');
      expect(unknown.stderr).to.equal('hangar: No account with the e-mail address nobody@example.com.\n');
      const invalid = await cli(['users', 'confirm', 'not-an-address']);
      expect(invalid.code).to.equal(1);
      expect(invalid.stderr).to.match(/^hangar: .*e-mail address is not valid/);
    });
  });

  describe('changing an account', () => {
    it('confirm lets an unconfirmed account log in', async () => {
      expect((await logIn('bob@example.com')).status).to.equal(403);
      const stdout = await cliOk(['users', 'confirm', 'bob@example.com']);
      expect(stdout).to.match(/^bob@example\.com: e-mail address confirmed \(\d{4}-.*Z\)\n$/);
      const login = await logIn('bob@example.com');
      expect(login.status, JSON.stringify(login.body)).to.equal(200);
    });

    it('set-plan moves the account to the plan and lifts its trial end, as GET /profile shows', async () => {
      expect(await cliOk(['users', 'set-plan', 'alice@example.com', 'pro'])).to.equal('alice@example.com: plan is now "pro" (trial end lifted)\n');
      const body = await profile(alice.accessToken);
      expect(body.plan).to.deep.equal({
        name: 'pro',
        trial_ends_at: null,
        trial_active: false,
        storage_limit_bytes: 100_000_000,
        file_count_limit: 500,
        max_upload_size_bytes: 50_000_000,
        image_ops_limit: null,
      });
      expect(body.subscription.status).to.equal('free');
    });

    it('set-plan with an unknown plan exits 1 and names the plans', async () => {
      const result = await cli(['users', 'set-plan', 'alice@example.com', 'gold']);
      expect(result.code).to.equal(1);
      expect(result.stdout).to.equal('');
      expect(result.stderr).to.equal('hangar: No plan named "gold". Plans: trial, pro.\n');
      expect((await profile(alice.accessToken)).plan.name).to.equal('pro');
    });

    it('set-access-until gives paid access (status active); set-canceled-at marks it canceled; none clears both', async () => {
      const until = new Date(Date.now() + 30 * DAY_MS);
      until.setUTCMilliseconds(0);
      expect(await cliOk(['users', 'set-access-until', 'alice@example.com', until.toISOString()])).to.equal(
        `alice@example.com: access_until is now ${until.toISOString()} (status active)\n`,
      );
      let body = await profile(alice.accessToken);
      expect(body.access_until).to.equal(until.toISOString());
      expect(body.subscription).to.deep.equal({ status: 'active', access_until: until.toISOString(), subscription_canceled_at: null });

      expect(await cliOk(['users', 'set-canceled-at', 'alice@example.com', '2025-06-01'])).to.equal(
        'alice@example.com: subscription_canceled_at is now 2025-06-01T00:00:00.000Z (status canceled)\n',
      );
      body = await profile(alice.accessToken);
      expect(body.subscription).to.include({ status: 'canceled', subscription_canceled_at: '2025-06-01T00:00:00.000Z' });
      expect(body.subscription_canceled_at).to.equal('2025-06-01T00:00:00.000Z');

      expect(await cliOk(['users', 'set-access-until', 'alice@example.com', 'none'])).to.equal('alice@example.com: access_until cleared (status free)\n');
      expect(await cliOk(['users', 'set-canceled-at', 'alice@example.com', 'none'])).to.equal(
        'alice@example.com: subscription_canceled_at cleared (status free)\n',
      );
      body = await profile(alice.accessToken);
      expect(body.access_until).to.equal(null);
      expect(body.subscription).to.deep.equal({ status: 'free', access_until: null, subscription_canceled_at: null });
    });

    it('accepts dates with an offset, and refuses anything else with exit 64 before touching the account', async () => {
      expect(await cliOk(['users', 'set-access-until', 'bob@example.com', '2031-01-01T02:30:00+02:00'])).to.equal(
        'bob@example.com: access_until is now 2031-01-01T00:30:00.000Z (status active)\n',
      );
      // Refusals that must not touch the account (checked below): started together.
      const values = ['tomorrow', '2031-02-30', '2031-01-01T10:00', '31/01/2031', '2031-13-01', ''];
      const results = await Promise.all(values.map((value) => cli(['users', 'set-access-until', 'bob@example.com', value])));
      for (const [i, value] of values.entries()) {
        const result = results[i];
        expect(result.code, value).to.equal(64);
        expect(result.stderr).to.include('must be an ISO 8601 date');
      }
      expect(JSON.parse(await cliOk(['users', 'show', 'bob@example.com'])).subscription.access_until).to.equal('2031-01-01T00:30:00.000Z');
    });

    it('records confirm, set-plan, set-access-until and set-canceled-at in the audit log as the CLI, and refusals or no-ops not', async () => {
      await cliOk(['users', 'confirm', 'bob@example.com']);
      type Entry = {
        actor: { id: string | null; email: string };
        action: string;
        target: { email: string } | null;
        before: Record<string, unknown> | null;
        after: Record<string, unknown> | null;
      };
      const { entries } = JSON.parse(await cliOk(['audit', 'list', '--limit', '100'])) as { entries: Entry[] };
      const on = (email: string, action: string) => entries.filter((e) => e.target?.email === email && e.action === action);
      const confirmed = on('bob@example.com', 'confirm_account');
      expect(confirmed).to.have.length(1);
      expect(confirmed[0]).to.deep.include({ actor: { id: null, email: 'cli' }, before: { email_confirmed: false }, after: { email_confirmed: true } });
      const alice = on('alice@example.com', 'update_account');
      expect(alice.map((e) => e.after)).to.deep.include({ plan: 'pro', trial_ends_at: null });
      expect(alice.map((e) => e.after)).to.deep.include({ subscription_canceled_at: '2025-06-01T00:00:00.000Z' });
      expect(alice.map((e) => e.before)).to.deep.include({ subscription_canceled_at: '2025-06-01T00:00:00.000Z' });
      expect(alice.every((e) => e.actor.email === 'cli')).to.equal(true);
      expect(entries.filter((e) => e.after?.plan === 'gold')).to.deep.equal([]);
      // Of bob's set-access-until commands only the valid one changed the account.
      expect(on('bob@example.com', 'update_account').map((e) => e.after)).to.deep.equal([{ access_until: '2031-01-01T00:30:00.000Z' }]);
    });
  });

  describe('users delete', () => {
    it('refuses without --yes (exit 1) and leaves the account as it was', async () => {
      const result = await cli(['users', 'delete', 'carol@example.com']);
      expect(result.code).to.equal(1);
      expect(result.stdout).to.equal('');
      expect(result.stderr).to.match(/^hangar: This would delete carol@example\.com with 1 file .*add --yes/);
      expect((await logIn('carol@example.com')).status).to.equal(200);
      expect((await fetch(carol.fileUrl)).status).to.equal(200);
    });

    it('exits 1 for an unknown account', async () => {
      const result = await cli(['users', 'delete', 'nobody@example.com', '--yes']);
      expect(result.code).to.equal(1);
      expect(result.stderr).to.equal('hangar: No account with the e-mail address nobody@example.com.\n');
    });

    it('with --yes removes the account, its keys, sessions, files and blobs; other accounts are untouched', async () => {
      const blobsBefore = await storedBlobs(path.join(dataDir, 'blobs'));
      expect(blobsBefore.map((b) => b.sha256)).to.include(sha256(carol.png));

      expect(await cliOk(['users', 'delete', 'carol@example.com', '--yes'])).to.equal('carol@example.com: account deleted, 1 file removed\n');

      expect((await logIn('carol@example.com')).status).to.equal(401);
      expect((await call(server.api, '/files', { apiKey: carol.apiKey })).status).to.equal(401);
      expect((await call(server.api, '/profile', { token: carol.accessToken })).status).to.equal(401);
      expect((await fetch(carol.fileUrl)).status).to.equal(404);
      const blobsAfter = await storedBlobs(path.join(dataDir, 'blobs'));
      expect(blobsAfter.map((b) => b.sha256)).not.to.include(sha256(carol.png));
      expect(blobsAfter.map((b) => b.sha256)).to.include(sha256(alice.png));
      expect((await cli(['users', 'show', 'carol@example.com'])).code).to.equal(1);

      expect((await logIn('alice@example.com')).status).to.equal(200);
      expect((await call(server.api, '/files', { apiKey: alice.apiKey })).status).to.equal(200);
      const view = await fetch(alice.fileUrl);
      expect(view.status).to.equal(200);
      expect(sha256(new Uint8Array(await view.arrayBuffer()))).to.equal(sha256(alice.png));
      const list = JSON.parse(await cliOk(['users', 'list', '--json']));
      expect(list.items.map((a: { email: string }) => a.email)).to.deep.equal(['alice@example.com', 'bob@example.com']);
    });
  });
});
