import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** A project tree of its own: scripts/ensure-built.mjs, one source file, a build stamp, and a `build` script that leaves a mark. */
async function tree(options: { devDependencies: boolean }): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'hangar-ensure-built-'));
  await mkdir(path.join(dir, 'scripts'));
  await copyFile(path.join(ROOT, 'scripts', 'ensure-built.mjs'), path.join(dir, 'scripts', 'ensure-built.mjs'));
  await mkdir(path.join(dir, 'core'));
  await writeFile(path.join(dir, 'core', 'thing.ts'), 'export const a = 1;\n');
  await writeFile(path.join(dir, 'package.json'), JSON.stringify({ name: 't', private: true, scripts: { build: 'node -e "require(\'fs\').writeFileSync(\'built-again\', \'\'); require(\'fs\').writeFileSync(\'dist/build-info.json\', \'{}\')"' } }));
  if (options.devDependencies) {
    await mkdir(path.join(dir, 'node_modules', 'typescript'), { recursive: true });
    await writeFile(path.join(dir, 'node_modules', 'typescript', 'package.json'), '{}');
  }
  await mkdir(path.join(dir, 'dist'));
  await writeFile(path.join(dir, 'dist', 'build-info.json'), '{}');
  // Sources an hour old, the stamp newer: a current build.
  const hourAgo = new Date(Date.now() - 3_600_000);
  for (const file of ['core/thing.ts', 'package.json', 'scripts/ensure-built.mjs']) await utimes(path.join(dir, file), hourAgo, hourAgo);
  const halfAnHourAgo = new Date(Date.now() - 1_800_000);
  await utimes(path.join(dir, 'dist', 'build-info.json'), halfAnHourAgo, halfAnHourAgo);
  return dir;
}

const run = (dir: string) => spawnSync(process.execPath, [path.join(dir, 'scripts', 'ensure-built.mjs')], { cwd: dir, encoding: 'utf8' });

describe('npm start / npm run cli: build once (scripts/ensure-built.mjs)', () => {
  const dirs: string[] = [];
  after(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

  it('does not build when the build is newer than every source', async () => {
    const dir = await tree({ devDependencies: true });
    dirs.push(dir);
    const result = run(dir);
    expect(result.status, result.stderr).to.equal(0);
    expect(result.stderr).to.equal('');
    expect(existsSync(path.join(dir, 'built-again'))).to.equal(false);
  });

  it('builds when a source changed since the last build, or there is no build, and the development dependencies are there', async () => {
    const dir = await tree({ devDependencies: true });
    dirs.push(dir);
    await writeFile(path.join(dir, 'core', 'thing.ts'), 'export const a = 2;\n');
    const result = run(dir);
    expect(result.status, result.stderr).to.equal(0);
    expect(result.stderr).to.include('sources changed since the last build');
    expect(existsSync(path.join(dir, 'built-again'))).to.equal(true);
  });

  it('never builds on a production install: a missing build is exit 1 with what to do, a stale one runs with a warning', async () => {
    const dir = await tree({ devDependencies: false });
    dirs.push(dir);
    await writeFile(path.join(dir, 'core', 'thing.ts'), 'export const a = 2;\n');
    const stale = run(dir);
    expect(stale.status).to.equal(0);
    expect(stale.stderr).to.include('running the build as it is');
    await rm(path.join(dir, 'dist', 'build-info.json'));
    const missing = run(dir);
    expect(missing.status).to.equal(1);
    expect(missing.stderr).to.include('there is no build in dist/');
    expect(existsSync(path.join(dir, 'built-again'))).to.equal(false);
  });
});
