import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { COPIED_TABLES } from '../../adapters/persistence/sql/copy-database.js';
import { openSqliteDatabase } from '../../adapters/persistence/sqlite/sqlite-database.js';
import { openPostgresDatabase } from '../../adapters/persistence/postgres/postgres-database.js';
import type { HangarDatabase } from '../../adapters/persistence/sql/schema.js';
import type { Kysely } from 'kysely';
import { makePng } from '../support/bytes.js';
import { call, signUpWithKey, startTestServer, upload } from '../support/http-harness.js';
import { createTestSchema, testDatabaseUrl } from '../support/test-database.js';
import { runCli } from '../support/cli-process.js';

/** The compiled admin CLI, as `npm run cli` runs it. */
const PASSWORD = 'correct horse';
/** Runs the CLI with nothing but PATH in its environment: `db copy` reads no configuration. */
const cli = (args: string[]) => runCli(args);

/** Rows per table, as the copy reports them. */
async function rowCounts(db: Kysely<HangarDatabase>): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of COPIED_TABLES) {
    const { rows } = await sql<{ count: number | string }>`select count(*) as count from ${sql.table(table)}`.execute(db);
    counts[table] = Number(rows[0].count);
  }
  return counts;
}

/** The table of a successful copy's stdout, as counts per table. */
function reported(stdout: string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const match of stdout.matchAll(/^ {2}(\w+) +(\d+)$/gm)) if (match[1] !== 'total') counts[match[1]] = Number(match[2]);
  return counts;
}

describe('admin CLI: db copy', function () {
  this.timeout(60_000);
  let dir: string;
  let source: string;
  let sourceCounts: Record<string, number>;
  /** An access token the source's server issued to ada, signed with the key it generated and kept in the database. */
  let sourceToken: string;

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'hangar-db-copy-'));
    source = path.join(dir, 'data', 'hangar.db');
    // A SQLite database with a bit of everything: accounts, keys, sessions, files, logs, usage, a reset token.
    const server = await startTestServer({ DATABASE_URL: `sqlite:${source}` }, {}, { dataDir: path.join(dir, 'data') });
    try {
      for (const email of ['ada@example.com', 'bob@example.com']) {
        const account = await signUpWithKey(server, email);
        const uploaded = await upload(server, account.apiKey, makePng(4, 4), { name: `${email}.png` });
        expect(uploaded.status).to.equal(201);
        await upload(server, account.apiKey, makePng(2, 2), { name: 'private.png', query: '?isPublic=false' });
        expect((await fetch(uploaded.body.file.public_url.replace('http://cdn.hangar.test', server.content))).status).to.equal(200);
      }
      const login = await call(server.api, '/auth/login', { method: 'POST', json: { email: 'ada@example.com', password: PASSWORD } });
      expect(login.status, JSON.stringify(login.body)).to.equal(200);
      sourceToken = login.body.session.access_token;
      await call(server.api, '/auth/register', { method: 'POST', json: { email: 'unconfirmed@example.com', password: PASSWORD } });
      await call(server.api, '/auth/forgot-password', { method: 'POST', json: { email: 'ada@example.com' } });
    } finally {
      // Stopping writes the buffered activity log and usage counts.
      await server.stop();
    }
    const opened = await openSqliteDatabase({ path: source });
    sourceCounts = await rowCounts(opened.db);
    await opened.close();
    for (const table of [
      'users',
      'api_keys',
      'sessions',
      'refresh_tokens',
      'files',
      'account_totals',
      'usage_periods',
      'activity_logs',
      'activity_log_totals',
      'one_time_tokens',
      'service_secrets',
    ]) {
      expect(sourceCounts[table], table).to.be.above(0);
    }
  });
  after(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('copies every table from SQLite into a new SQLite file, reports the rows, and refuses to copy into it again', async () => {
    const copy = path.join(dir, 'copy', 'hangar.db');
    const result = await cli(['db', 'copy', '--from', `sqlite:${source}`, '--to', `sqlite:${copy}`]);
    expect(result.code, result.stderr).to.equal(0);
    expect(result.stdout).to.match(/^Copied sqlite:.+ to sqlite:.+:\n/);
    expect(reported(result.stdout)).to.deep.equal(sourceCounts);
    const opened = await openSqliteDatabase({ path: copy });
    try {
      expect(await rowCounts(opened.db)).to.deep.equal(sourceCounts);
      // The trigram index of `q` (migration 0042) is filled by the copy's own triggers, one entry per file.
      const { rows } = await sql<{
        keys: number;
        files: number;
      }>`select (select count(*) from files_trigram_keys) as keys, (select count(*) from files) as files`.execute(opened.db);
      expect(rows[0].keys).to.equal(sourceCounts.files);
      const found = await sql<{ n: number }>`select count(*) as n from files_trigram where files_trigram match '".png"'`.execute(opened.db);
      expect(found.rows[0].n).to.equal(sourceCounts.files);
    } finally {
      await opened.close();
    }

    const again = await cli(['db', 'copy', '--from', `sqlite:${source}`, '--to', `sqlite:${copy}`]);
    expect(again.code).to.equal(1);
    expect(again.stderr).to.equal(`hangar: the destination database already holds ${sourceCounts.users} accounts; copy into an empty database.\n`);
    expect(again.stdout).to.equal('');
  });

  it('refuses a SQLite source that does not exist (exit 1), and wrong options (exit 64)', async () => {
    const missing = await cli(['db', 'copy', '--from', `sqlite:${path.join(dir, 'nope.db')}`, '--to', `sqlite:${path.join(dir, 'x.db')}`]);
    expect(missing.code).to.equal(1);
    expect(missing.stderr).to.include(`--from: no Hangar database at ${path.join(dir, 'nope.db')} (the file does not exist)`);
    for (const [args, message] of [
      [['db', 'copy', '--from', `sqlite:${source}`], '--to <sqlite:path|postgres://…> is required'],
      [['db', 'copy', '--from', `sqlite:${source}`, '--to', 'mysql://db/hangar'], '--to: unsupported "mysql:"'],
    ] as const) {
      const result = await cli([...args]);
      expect(result.code, args.join(' ')).to.equal(64);
      expect(result.stderr, args.join(' ')).to.include(message);
    }
  });

  it('lists db copy in the help', async () => {
    const help = await cli(['help']);
    expect(help.stdout).to.include('db copy --from <sqlite:path|postgres://…> --to <sqlite:path|postgres://…>');
  });

  const postgres = testDatabaseUrl();
  if (postgres !== undefined) {
    it('copies SQLite into a fresh Postgres schema, where the copied account logs in and finds its files; and back again', async () => {
      const schema = await createTestSchema(postgres);
      try {
        const result = await cli(['db', 'copy', '--from', `sqlite:${source}`, '--to', schema.url]);
        expect(result.code, result.stderr).to.equal(0);
        expect(reported(result.stdout)).to.deep.equal(sourceCounts);
        const opened = await openPostgresDatabase({ url: schema.url, poolSize: 1 });
        try {
          expect(await rowCounts(opened.db)).to.deep.equal(sourceCounts);
        } finally {
          await opened.close();
        }

        // A server on the copy, with the original blobs: the account logs in with its password and sees its files.
        const server = await startTestServer({ DATABASE_URL: schema.url, BLOB_STORE_URL: `file:${path.join(dir, 'data', 'blobs')}` });
        try {
          // The generated session-token key came along: a token the old server issued is still good.
          const before = await call(server.api, '/settings', { token: sourceToken });
          expect(before.status, JSON.stringify(before.body)).to.equal(200);
          const login = await call(server.api, '/auth/login', { method: 'POST', json: { email: 'ada@example.com', password: PASSWORD } });
          expect(login.status, JSON.stringify(login.body)).to.equal(200);
          const files = await call(server.api, '/files', { token: login.body.session.access_token });
          expect(files.body.total).to.equal(2);
          expect(files.body.files.map((file: any) => file.name).sort()).to.deep.equal(['ada@example.com.png', 'private.png']);
          expect((await call(server.api, '/files?isPublic=true', { token: login.body.session.access_token })).body.total).to.equal(1);
          // `q` short (walked) and long (the trigram index), with characters no file id holds, so a random id
          // cannot match them.
          for (const [q, total] of [
            ['e.p', 1],
            ['p', 2],
            ['.png', 2],
            ['@example', 1],
            ['@z', 0],
          ] as const) {
            expect((await call(server.api, `/files?q=${encodeURIComponent(q)}`, { token: login.body.session.access_token })).body.total, q).to.equal(total);
          }
          // Range totals counted over the copied files.
          const token = login.body.session.access_token;
          expect((await call(server.api, '/files?createdAfter=2000-01-01T00:00:00Z', { token })).body.total).to.equal(2);
          expect((await call(server.api, '/files?createdBefore=2000-01-01T00:00:00Z', { token })).body.total).to.equal(0);
          expect((await call(server.api, '/files?sizeMin=0&isPublic=false', { token })).body.total).to.equal(1);
          const [small, large] = files.body.files.map((file: any) => file.size).sort((a: number, b: number) => a - b);
          expect((await call(server.api, `/files?sizeMin=${small + 1}&sizeMax=${large}`, { token })).body.total).to.equal(small === large ? 0 : 1);
          const shown = files.body.files.find((file: any) => file.is_public);
          expect((await fetch(shown.public_url.replace('http://cdn.hangar.test', server.content))).status).to.equal(200);
        } finally {
          await server.stop();
        }

        const again = await cli(['db', 'copy', '--from', `sqlite:${source}`, '--to', schema.url]);
        expect(again.code).to.equal(1);
        expect(again.stderr).to.include('already holds');

        // And back: Postgres to a new SQLite file gives the same rows (the server above added a session and log entries).
        const back = path.join(dir, 'back', 'hangar.db');
        const returned = await cli(['db', 'copy', '--from', schema.url, '--to', `sqlite:${back}`]);
        expect(returned.code, returned.stderr).to.equal(0);
        const reopened = await openPostgresDatabase({ url: schema.url, poolSize: 1 });
        const copiedBack = await openSqliteDatabase({ path: back });
        try {
          expect(await rowCounts(copiedBack.db)).to.deep.equal(await rowCounts(reopened.db));
        } finally {
          await reopened.close();
          await copiedBack.close();
        }
      } finally {
        await schema.drop();
      }
    });
  }
});
