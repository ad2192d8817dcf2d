import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, realpath, rm, symlink, unlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** Node.js's own message for an addon built for another ABI (src/node_binding.cc), as the double below throws it. */
const OTHER_ABI_MESSAGE = (file: string) =>
  `The module '${file}'\nwas compiled against a different Node.js version using\nNODE_MODULE_VERSION 115. This version of Node.js requires\n` +
  'NODE_MODULE_VERSION 137. Please try re-compiling or re-installing\nthe module (for instance, using `npm rebuild` or `npm install`).';

/**
 * A project tree of its own: scripts/ensure-built.mjs and check-native-modules.mjs, the real native
 * modules (linked), one source file, a build stamp, and a `build` script that leaves a mark.
 */
async function tree(options: { devDependencies: boolean }): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'hangar-ensure-built-'));
  await mkdir(path.join(dir, 'scripts'));
  for (const script of ['ensure-built.mjs', 'check-native-modules.mjs']) await copyFile(path.join(ROOT, 'scripts', script), path.join(dir, 'scripts', script));
  await mkdir(path.join(dir, 'node_modules'));
  for (const module of ['better-sqlite3', 'argon2'])
    await symlink(await realpath(path.join(ROOT, 'node_modules', module)), path.join(dir, 'node_modules', module));
  await mkdir(path.join(dir, 'core'));
  await writeFile(path.join(dir, 'core', 'thing.ts'), 'export const a = 1;\n');
  await writeFile(
    path.join(dir, 'package.json'),
    JSON.stringify({
      name: 't',
      private: true,
      scripts: { build: "node -e \"require('fs').writeFileSync('built-again', ''); require('fs').writeFileSync('dist/build-info.json', '{}')\"" },
    }),
  );
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

  it('stops before building when a native module was built for another Node.js, printing the one npm rebuild that fixes it', async () => {
    const dir = await tree({ devDependencies: true });
    dirs.push(dir);
    // Sources changed: without the check, this run would build first and fail only when the server loads the addon.
    await writeFile(path.join(dir, 'core', 'thing.ts'), 'export const a = 3;\n');
    // A hand-written double of better-sqlite3 whose addon Node refuses, as after a move from Node 20 to 24.
    const addon = path.join(dir, 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node');
    await unlink(path.join(dir, 'node_modules', 'better-sqlite3'));
    await mkdir(path.join(dir, 'node_modules', 'better-sqlite3'));
    await writeFile(path.join(dir, 'node_modules', 'better-sqlite3', 'package.json'), JSON.stringify({ name: 'better-sqlite3', main: 'index.js' }));
    await writeFile(
      path.join(dir, 'node_modules', 'better-sqlite3', 'index.js'),
      `module.exports = function Database() { const e = new Error(${JSON.stringify(OTHER_ABI_MESSAGE(addon))}); e.code = 'ERR_DLOPEN_FAILED'; throw e; };\n`,
    );
    const result = run(dir);
    expect(result.status).to.equal(1);
    expect(result.stderr).to.equal(
      `hangar: better-sqlite3 was built for another Node.js version (NODE_MODULE_VERSION 115) than this one, ${process.version} (NODE_MODULE_VERSION ${process.versions.modules}).\n` +
        `Run this once in ${dir}, with this Node.js, then start again:\n  npm rebuild better-sqlite3\n`,
    );
    expect(existsSync(path.join(dir, 'built-again')), 'built before the check').to.equal(false);
  });

  // A real mismatch: this tree's addons (built for the Node.js running the tests) under another Node.js.
  // .ci/run sets HANGAR_OTHER_NODE to the Node 24 it installs.
  const otherNode = process.env.HANGAR_OTHER_NODE;
  (otherNode === undefined ? it.skip : it)('under another Node.js (HANGAR_OTHER_NODE), the real addons are refused with the npm rebuild to run', () => {
    const other = spawnSync(otherNode!, [path.join(ROOT, 'scripts', 'check-native-modules.mjs')], { cwd: ROOT, encoding: 'utf8' });
    const abi = spawnSync(otherNode!, ['-p', 'process.versions.modules'], { encoding: 'utf8' }).stdout.trim();
    if (abi === process.versions.modules) throw new Error(`HANGAR_OTHER_NODE (${otherNode}) has this Node's ABI ${abi}: it proves nothing`);
    expect(other.status, other.stderr).to.equal(1);
    expect(other.stderr).to.include(`built for another Node.js version (NODE_MODULE_VERSION ${process.versions.modules})`);
    expect(other.stderr).to.match(/\n {2}npm rebuild better-sqlite3( argon2)?\n$/);
  });
});
