import { expect } from 'chai';
import BetterSqlite3 from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type CliResult, runCli } from '../support/cli-process.js';
import { signUpWithKey, startTestServer, upload } from '../support/http-harness.js';
import { createTestSchema, testDatabaseUrl } from '../support/test-database.js';

/**
 * The admin CLI refuses to guess (issue #61): a wrong DATA_DIR or DATABASE_URL must never become a
 * new, empty instance that `backup` then "successfully" copies. Run as its own process, as an operator would.
 */
describe('admin CLI: refuses a database that is not a Hangar instance, and an empty backup', function () {
  this.timeout(60_000);
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'hangar-cli-refusals-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  const cli = (args: string[], env: Record<string, string>): Promise<CliResult> => runCli(args, { PASSWORD_HASH_MEMORY_KIB: '1024', ...env });
  const expectRefused = (result: CliResult, where: string, why: string) => {
    expect(result.code, result.stderr).to.equal(1);
    expect(result.stdout).to.equal('');
    expect(result.stderr).to.equal(
      `hangar: no Hangar database at ${where} (${why}); set DATA_DIR or DATABASE_URL to the instance's, or run "hangar init" to create a new one there.\n`,
    );
  };

  it('refuses every command on a DATA_DIR that does not exist, and creates nothing there', async () => {
    const missing = path.join(dir, 'typo');
    const commands = [['users', 'list'], ['users', 'confirm', 'a@example.com'], ['invites', 'list'], ['fsck'], ['backup', path.join(dir, 'bk-typo')]];
    const results = await Promise.all(commands.map((args) => cli(args, { DATA_DIR: missing })));
    for (const [i, result] of results.entries()) {
      expect(result.code, commands[i].join(' ')).to.equal(1);
      expectRefused(result, path.join(missing, 'hangar.db'), 'the file does not exist');
    }
    expect(existsSync(missing), 'DATA_DIR created').to.equal(false);
    expect(existsSync(path.join(dir, 'bk-typo')), 'backup directory created').to.equal(false);
  });

  it('refuses a file that is not a Hangar database: empty, another SQLite database, not SQLite at all', async () => {
    const empty = path.join(dir, 'empty.db');
    await writeFile(empty, '');
    expectRefused(await cli(['users', 'list'], { DATABASE_URL: `sqlite:${empty}` }), empty, 'it holds no Hangar tables');
    const other = path.join(dir, 'other.db');
    const database = new BetterSqlite3(other);
    database.exec('create table notes (id integer primary key, text text)');
    database.close();
    expectRefused(await cli(['users', 'list'], { DATABASE_URL: `sqlite:${other}` }), other, 'it holds no Hangar tables');
    const text = path.join(dir, 'notes.txt');
    await writeFile(text, 'not a database, but long enough to have a header of sorts: '.repeat(10));
    const notSqlite = await cli(['users', 'list'], { DATABASE_URL: `sqlite:${text}` });
    expect(notSqlite.code).to.equal(1);
    expect(notSqlite.stderr).to.match(/^hangar: no Hangar database at .*notes\.txt \(it is not a readable SQLite database \(file is not a database\)\)/);
    const inMemory = await cli(['users', 'list'], { DATABASE_URL: 'sqlite::memory:' });
    expectRefused(inMemory, 'sqlite::memory:', 'an in-memory database is empty and belongs to one process');
  });

  it('creates the database only on an explicit init; then the other commands work on it', async () => {
    const dataDir = path.join(dir, 'fresh');
    const init = await cli(['init'], { DATA_DIR: dataDir });
    expect(init.code, init.stderr).to.equal(0);
    expect(init.stdout).to.equal(`Hangar database ready at ${path.join(dataDir, 'hangar.db')}.\n`);
    const listed = await cli(['users', 'list'], { DATA_DIR: dataDir });
    expect(listed.code, listed.stderr).to.equal(0);
    expect(listed.stdout).to.equal('No accounts.\n');
    // Again on an existing one: nothing lost, nothing refused.
    expect((await cli(['init'], { DATA_DIR: dataDir })).code).to.equal(0);
  });

  it('backup refuses an instance without accounts or files unless --allow-empty, writing nothing', async () => {
    const dataDir = path.join(dir, 'empty-instance');
    expect((await cli(['init'], { DATA_DIR: dataDir })).code).to.equal(0);
    const target = path.join(dir, 'bk-empty');
    const refused = await cli(['backup', target], { DATA_DIR: dataDir });
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.equal(
      `hangar: the database at ${path.join(dataDir, 'hangar.db')} holds no account and no file: is DATA_DIR (or DATABASE_URL) the instance's? Add --allow-empty to back up an empty instance on purpose.\n`,
    );
    expect(existsSync(target)).to.equal(false);
    const allowed = await cli(['backup', target, '--allow-empty'], { DATA_DIR: dataDir });
    expect(allowed.code, allowed.stderr).to.equal(0);
    expect(allowed.stdout).to.match(/^Backed up 0 accounts and 0 files \(0 bytes of file contents\) from /);
    expect(await readdir(target)).to.include('manifest.json');
  });

  it('backup prints the accounts, files and bytes it holds', async () => {
    const dataDir = path.join(dir, 'used');
    // SQLite in DATA_DIR, also in the Postgres pass: backup is for the embedded database.
    const server = await startTestServer({ DATABASE_URL: `sqlite:${path.join(dataDir, 'hangar.db')}` }, {}, { dataDir });
    let sizes: number[];
    try {
      const { apiKey } = await signUpWithKey(server, 'counted@example.com');
      sizes = [1_000, 70_000];
      for (const size of sizes) {
        expect((await upload(server, apiKey, new Uint8Array(size).fill(65), { contentType: 'text/plain' })).status).to.equal(201);
      }
    } finally {
      await server.stop();
    }
    const target = path.join(dir, 'bk-used');
    const result = await cli(['backup', target], { DATA_DIR: dataDir });
    expect(result.code, result.stderr).to.equal(0);
    expect(result.stdout).to.match(
      new RegExp(
        `^Backed up 1 account and 2 files \\(${sizes.reduce((a, b) => a + b)} bytes of file contents\\) from ${path.join(dataDir, 'hangar.db').replace(/[.]/g, '\\.')}\\ninto ${target.replace(/[.]/g, '\\.')}: \\d+ backup files, \\d+ bytes;`,
      ),
    );
  });

  const url = testDatabaseUrl();
  (url === undefined ? it.skip : it)('on Postgres too: refuses a schema without Hangar tables, and init creates them', async () => {
    const schema = await createTestSchema(url!);
    try {
      const refused = await cli(['users', 'list'], { DATABASE_URL: schema.url });
      expect(refused.code, refused.stderr).to.equal(1);
      expect(refused.stderr).to.match(
        /^hangar: no Hangar database at postgres:\/\/.* \(its search_path holds no Hangar tables\); set DATA_DIR or DATABASE_URL/,
      );
      const init = await cli(['init'], { DATABASE_URL: schema.url, DATA_DIR: path.join(dir, 'pg-data') });
      expect(init.code, init.stderr).to.equal(0);
      const listed = await cli(['users', 'list'], { DATABASE_URL: schema.url, DATA_DIR: path.join(dir, 'pg-data') });
      expect(listed.code, listed.stderr).to.equal(0);
    } finally {
      await schema.drop();
    }
  });
});
