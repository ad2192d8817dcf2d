import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigError, loadConfig, withEnvFile } from '../../apps/server/config.js';
import { CLI_MAIN as CLI } from '../support/cli-process.js';

describe('configuration: .env files', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'hangar-env-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('reads .env in the working directory, the real environment winning', async () => {
    await writeFile(path.join(dir, '.env'), '# comment\nPORT=4100\nexport LOG_LEVEL=warn\nMAIL_FROM="Hangar <hi@example.com>"\nCONTENT_PORT=4101\n');
    const config = loadConfig(withEnvFile({ CONTENT_PORT: '4200' }, dir));
    expect(config.port).to.equal(4100);
    expect(config.log.level).to.equal('warn');
    expect(config.mailFrom).to.equal('Hangar <hi@example.com>');
    expect(config.contentPort).to.equal(4200);
  });

  it('reads the file ENV_FILE names instead, and refuses one that does not exist', async () => {
    await writeFile(path.join(dir, '.env'), 'PORT=4100\n');
    await writeFile(path.join(dir, 'hangar.env'), 'PORT=4300\n');
    expect(loadConfig(withEnvFile({ ENV_FILE: 'hangar.env' }, dir)).port).to.equal(4300);
    expect(() => withEnvFile({ ENV_FILE: 'missing.env' }, dir)).to.throw(ConfigError, /^ENV_FILE: cannot read .*missing\.env \(ENOENT\)/);
  });

  it('changes nothing without a .env', () => {
    const env = { PORT: '4400' };
    expect(withEnvFile(env, dir)).to.equal(env);
  });

  it('the admin CLI reads .env from its working directory too (DATA_DIR from the file, the environment winning)', async function () {
    // Two runs of the CLI as processes, one after the other, on a machine the parallel run keeps busy.
    this.timeout(60_000);
    await writeFile(path.join(dir, '.env'), 'DATA_DIR=./from-env-file\nPASSWORD_HASH_MEMORY_KIB=1024\n');
    const base = { PATH: process.env.PATH ?? '' };
    // init is the one command that creates the database: where it does shows which DATA_DIR won.
    const fromFile = spawnSync(process.execPath, [CLI, 'init'], { cwd: dir, env: base, encoding: 'utf8' });
    expect(fromFile.status, fromFile.stderr).to.equal(0);
    expect(existsSync(path.join(dir, 'from-env-file', 'hangar.db'))).to.equal(true);
    expect(spawnSync(process.execPath, [CLI, 'users', 'list', '--json'], { cwd: dir, env: base, encoding: 'utf8' }).status).to.equal(0);
    const fromEnvironment = spawnSync(process.execPath, [CLI, 'init'], { cwd: dir, env: { ...base, DATA_DIR: './from-environment' }, encoding: 'utf8' });
    expect(fromEnvironment.status, fromEnvironment.stderr).to.equal(0);
    expect(existsSync(path.join(dir, 'from-environment', 'hangar.db'))).to.equal(true);
  });
});
