#!/usr/bin/env node
// `npm test` (and `npm run test:long`): builds and runs the tests in a tree of their own,
// .test-run/ (git-ignored), never in this checkout's dist/. A server started from this checkout
// (`npm start`, `hangar start`) keeps its dist/ while the tests run: the build's rolldown step
// empties dist/apps/bundle/ before writing it, so a build in place made a running supervisor's new
// workers fail with "Cannot find module dist/apps/bundle/main.js" (issue #61).
//
//   node scripts/test-run.mjs '<shell command run in the tree after the build>'
//
// HANGAR_TEST_TREE names another tree (relative to the checkout; .ci/run's Node 24 pass uses
// .test-run-node24), and HANGAR_TEST_NODE_MODULES another node_modules to link there (one whose
// native modules were rebuilt for the Node.js on the PATH).
//
// The tree holds a copy of every file of the checkout except node_modules (a link to this one's),
// dist/ (its own, kept between runs so the TypeScript build stays incremental), .git, .test-run,
// and the data and results directories; files are copied only when their size or modification
// time differ, and files gone from the checkout are removed from the copy. Tests find everything
// (README.md, docs/, Dockerfile, scripts/) relative to their compiled file, so they read the copy.
// The developer commands that build in place stay as they are: `npm run build`, then mocha on
// dist/test/…, `npm run test:core`, `test:contracts`, `test:file`.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, lstatSync, mkdirSync, readdirSync, realpathSync, rmSync, statSync, symlinkSync, utimesSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const treeName = process.env.HANGAR_TEST_TREE || '.test-run';
if (!/^\.test-run[\w-]*$/.test(treeName)) {
  process.stderr.write(`test-run: HANGAR_TEST_TREE must be .test-run or .test-run-<name> (git-ignored), not ${treeName}\n`);
  process.exit(64);
}
const tree = path.join(root, treeName);
/** Top-level entries never copied: dependencies, build output, version control, the test trees, and run-time data. */
const SKIPPED_TOP = new Set(['node_modules', 'dist', '.git', 'data']);
const isTestTree = (name) => /^\.test-run/.test(name);
/** Entries skipped at any depth (relative paths): results and artifacts of earlier runs. */
const SKIPPED_PATHS = new Set(['bench/results', 'test/artifacts']);

/** Makes `to` hold what `from` holds (recursively), copying only files whose size or mtime differ. @returns files copied */
function mirror(from, to, relative = '') {
  let copied = 0;
  mkdirSync(to, { recursive: true });
  const wanted = new Set();
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const rel = relative === '' ? entry.name : `${relative}/${entry.name}`;
    if ((relative === '' && (SKIPPED_TOP.has(entry.name) || isTestTree(entry.name))) || SKIPPED_PATHS.has(rel)) continue;
    wanted.add(entry.name);
    const source = path.join(from, entry.name);
    const target = path.join(to, entry.name);
    if (entry.isDirectory()) {
      if (existsSync(target) && !lstatSync(target).isDirectory()) rmSync(target, { recursive: true, force: true });
      copied += mirror(source, target, rel);
    } else if (entry.isFile()) {
      const have = existsSync(target) ? lstatSync(target) : undefined;
      const want = statSync(source);
      if (have?.isDirectory()) rmSync(target, { recursive: true, force: true });
      if (!have || !have.isFile() || have.size !== want.size || Math.abs(have.mtimeMs - want.mtimeMs) >= 1) {
        copyFileSync(source, target);
        // utimes keeps about a millisecond: the comparison above allows for that.
        utimesSync(target, want.atime, want.mtime);
        copied += 1;
      }
    }
  }
  for (const name of readdirSync(to)) {
    if (relative === '' && (name === 'node_modules' || name === 'dist')) continue;
    if (!wanted.has(name)) rmSync(path.join(to, name), { recursive: true, force: true });
  }
  return copied;
}

const command = process.argv[2];
if (!command) {
  process.stderr.write("usage: node scripts/test-run.mjs '<shell command run in .test-run after the build>'\n");
  process.exit(64);
}
const copied = mirror(root, tree);
const modules = path.join(tree, 'node_modules');
const wantedModules = realpathSync(process.env.HANGAR_TEST_NODE_MODULES || path.join(root, 'node_modules'));
if (existsSync(modules) || lstatSync(modules, { throwIfNoEntry: false })) {
  if (!lstatSync(modules).isSymbolicLink() || realpathSync(modules) !== wantedModules) rmSync(modules, { recursive: false, force: true });
}
if (!lstatSync(modules, { throwIfNoEntry: false })) symlinkSync(wantedModules, modules, 'dir');
process.stderr.write(`test-run: building and testing in ${path.relative(root, tree)}/ (${copied} files updated); this checkout's dist/ is left alone\n`);
const run = (shell) =>
  spawnSync('sh', ['-c', shell], {
    cwd: tree,
    stdio: 'inherit',
    env: { ...process.env, PATH: `${path.join(modules, '.bin')}${path.delimiter}${process.env.PATH}` },
  });
const built = run('npm run -s build');
if (built.status !== 0) process.exit(built.status ?? 1);
const tested = run(command);
process.exit(tested.status ?? 1);
