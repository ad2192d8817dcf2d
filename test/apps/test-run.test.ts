import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/**
 * `npm test` (scripts/test-run.mjs) builds and tests in .test-run/, so a server started from the
 * checkout keeps its dist/ (issue #61: the in-place build emptied dist/apps/bundle/ under it).
 * A checkout of its own whose `build` script writes a marker into dist/, as the real one would.
 */
describe("npm test: builds in a tree of its own, never in the checkout's dist/ (scripts/test-run.mjs)", function () {
  this.timeout(30_000);
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'hangar-test-run-'));
    await mkdir(path.join(dir, 'scripts'));
    await copyFile(path.join(ROOT, 'scripts', 'test-run.mjs'), path.join(dir, 'scripts', 'test-run.mjs'));
    await mkdir(path.join(dir, 'node_modules'));
    await mkdir(path.join(dir, 'core'));
    await writeFile(path.join(dir, 'core', 'a.ts'), 'export const a = 1;\n');
    await mkdir(path.join(dir, 'dist', 'apps', 'bundle'), { recursive: true });
    await writeFile(path.join(dir, 'dist', 'apps', 'bundle', 'main.js'), '// the running server\n');
    await mkdir(path.join(dir, 'bench', 'results'), { recursive: true });
    await writeFile(path.join(dir, 'bench', 'results', 'big.json'), '{}');
    await writeFile(
      path.join(dir, 'package.json'),
      JSON.stringify({
        name: 't',
        private: true,
        type: 'module',
        scripts: {
          build:
            "node -e \"const fs=require('fs'); fs.rmSync('dist',{recursive:true,force:true}); fs.mkdirSync('dist'); fs.writeFileSync('dist/built-from', fs.readFileSync('core/a.ts'))\"",
        },
      }),
    );
  });
  after(() => rm(dir, { recursive: true, force: true }));

  const run = (command: string) => spawnSync(process.execPath, [path.join(dir, 'scripts', 'test-run.mjs'), command], { cwd: dir, encoding: 'utf8' });

  it("builds into .test-run/dist and runs the command there, leaving the checkout's dist/ as it was", async () => {
    const result = run('cat dist/built-from > ran-in-tree');
    expect(result.status, result.stderr).to.equal(0);
    expect(await readFile(path.join(dir, 'dist', 'apps', 'bundle', 'main.js'), 'utf8')).to.equal('// the running server\n');
    expect(existsSync(path.join(dir, 'dist', 'built-from'))).to.equal(false);
    expect(readFileSync(path.join(dir, '.test-run', 'ran-in-tree'), 'utf8')).to.equal('export const a = 1;\n');
    expect(existsSync(path.join(dir, '.test-run', 'bench', 'results')), 'results are not copied').to.equal(false);
  });

  it("follows the checkout on the next run: changed files copied, removed ones gone; the exit status is the command's", async () => {
    await writeFile(path.join(dir, 'core', 'a.ts'), 'export const a = 2;\n');
    await writeFile(path.join(dir, 'core', 'b.ts'), 'export const b = 1;\n');
    expect(run('true').status).to.equal(0);
    expect(readFileSync(path.join(dir, '.test-run', 'dist', 'built-from'), 'utf8')).to.equal('export const a = 2;\n');
    await rm(path.join(dir, 'core', 'b.ts'));
    expect(run('test ! -e core/b.ts').status, 'a removed test file would still run').to.equal(0);
    expect(run('exit 3').status).to.equal(3);
  });
});
