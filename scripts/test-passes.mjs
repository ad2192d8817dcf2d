#!/usr/bin/env node
// `npm test`'s two mocha passes, run at the same time on the one build (scripts/test-run.mjs runs
// this in .test-run/ after building there): the whole suite on SQLite (`.mocharc.json`) and the HTTP
// suite on Postgres (`HANGAR_TEST_DB=postgres`, `.mocharc.postgres.json`). Most of a pass's time is
// spent waiting (servers starting as processes, flush intervals, backoffs), so on two cores the two
// passes side by side take little more wall time than the longer one alone. They share nothing:
// every server gets a port, a data directory and (Postgres) a schema of its own, and each pass's
// mocha workers use databases of their own (test/support/test-database.ts).
//
// Each pass runs its config's files longest first (LONGEST_FIRST, then the rest in path order):
// mocha's parallel mode hands files to its workers in the order given, and a long file taken
// last leaves the other workers idle while it runs alone.
//
// The first pass's output comes as it goes; the second's is held and written once the first has
// ended, so the two never interleave; each ends with its wall time, the whole with the wall and CPU
// time (user + system) of every process of both passes. Exit status: 0 when both
// passed, else the first non-zero one.
//   node scripts/test-passes.mjs [--serial]     (--serial: one pass after the other)
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
// Run after the build (scripts/test-run.mjs), so the compiled test support is there.
import { childrenCpuSeconds } from '../dist/test/support/process-cpu.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const mocha = path.join(root, 'node_modules', 'mocha', 'bin', 'mocha.js');

/** The passes: a name, mocha's config file and the environment it adds. */
const PASSES = [
  { name: 'SQLite (whole suite)', config: '.mocharc.json', env: {} },
  { name: 'Postgres (HTTP suite)', config: '.mocharc.postgres.json', env: { HANGAR_TEST_DB: 'postgres' } },
];

/**
 * Test files that take longest (20 s of wall time or more in a pass on the 2-CPU machine, the
 * longest first; `HANGAR_TEST_TIMES` and scripts/test-times.mjs measure them): each pass starts
 * with those it runs. A file missing here only runs later; a name here that no pass runs is ignored.
 */
const LONGEST_FIRST = [
  'dist/test/contracts/file-repository-postgres.test.js',
  'dist/test/reliability/crash.test.js',
  'dist/test/apps/heap-growth.test.js',
  'dist/test/security/fuzz.test.js',
  'dist/test/contracts/file-repository.test.js',
  'dist/test/contracts/blob-store-cloud.test.js',
  'dist/test/http/workers.test.js',
  'dist/test/http/workers-failures.test.js',
  'dist/test/contracts/file-repository-ways.test.js',
  'dist/test/http/scale-out-images.test.js',
  'dist/test/apps/cli.test.js',
  'dist/test/e2e/dashboard.test.js',
  'dist/test/http/scale-out.test.js',
  'dist/test/reliability/soak.test.js',
  'dist/test/http/webhooks.test.js',
  'dist/test/http/server-process.test.js',
  'dist/test/e2e/dashboard-resumable.test.js',
  'dist/test/adapters/s3-blob-store.test.js',
  'dist/test/http/resumable-server-process.test.js',
];

/**
 * `config` (a mocha config file whose `spec` entries are `<folder>/**\/*.test.js` globs and whose
 * `ignore` entries are file paths) as a config of its own in `folder`, its `spec` the files
 * themselves, longest first. @returns the new config's path
 */
function orderedConfig(config, folder) {
  // The configs' comments are whole lines (`//`), which JSON.parse does not take.
  const options = JSON.parse(
    readFileSync(path.join(root, config), 'utf8')
      .split('\n')
      .filter((line) => !/^\s*\/\//.test(line))
      .join('\n'),
  );
  const ignored = new Set(options.ignore ?? []);
  const files = [];
  for (const pattern of options.spec) {
    const folderOf = /^(.+)\/\*\*\/\*\.test\.js$/.exec(pattern)?.[1];
    if (!folderOf) throw new Error(`test-passes: ${config}: spec ${pattern} is not <folder>/**/*.test.js`);
    for (const entry of readdirSync(path.join(root, folderOf), { recursive: true, withFileTypes: true })) {
      const file = path
        .relative(root, path.join(entry.parentPath ?? entry.path, entry.name))
        .split(path.sep)
        .join('/');
      if (entry.isFile() && file.endsWith('.test.js') && !ignored.has(file)) files.push(file);
    }
  }
  const rank = (file) => {
    const place = LONGEST_FIRST.indexOf(file);
    return place === -1 ? LONGEST_FIRST.length : place;
  };
  files.sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
  const ordered = path.join(folder, path.basename(config));
  writeFileSync(ordered, JSON.stringify({ ...options, spec: [...new Set(files)], ignore: undefined }));
  return ordered;
}
const configs = mkdtempSync(path.join(tmpdir(), 'hangar-test-passes-'));
for (const pass of PASSES) pass.args = ['--config', orderedConfig(pass.config, configs)];

/**
 * Runs one pass; resolves with its exit status. Its output goes straight to ours when `live()` says
 * so, else it is held, and written whole at the first `live()` that says so (checked at each chunk and at the end).
 */
function run(pass, live) {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(process.execPath, [mocha, ...pass.args], { cwd: root, env: { ...process.env, ...pass.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let held = [];
    const write = (chunk) => {
      if (held && live()) {
        process.stdout.write(Buffer.concat(held));
        held = undefined;
      }
      if (held) held.push(chunk);
      else process.stdout.write(chunk);
    };
    child.stdout.on('data', write);
    child.stderr.on('data', write);
    child.on('close', (code, signal) => {
      const seconds = ((performance.now() - started) / 1000).toFixed(0);
      const done = () => {
        if (held) process.stdout.write(Buffer.concat(held));
        process.stdout.write(`\n── ${pass.name}: ${code === 0 ? 'passed' : `failed (${signal ?? code})`} in ${seconds} s wall ──\n`);
        resolve(code ?? 1);
      };
      if (live()) done();
      else waiting.push(done);
    });
  });
}

/** Passes that ended while another one was writing: each finishes once the one before it has. */
const waiting = [];

/** Busy CPU seconds of the whole machine so far (every process, Postgres's too; Linux /proc/stat; 0 elsewhere). */
function machineBusySeconds() {
  try {
    const [, user, nice, system, , , irq, softirq, steal] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).map(Number);
    return (user + nice + system + irq + softirq + steal) / 100; // clock ticks of 1/100 s (proc(5))
  } catch {
    return 0;
  }
}

const serial = process.argv.includes('--serial');
const started = performance.now();
const machineBefore = machineBusySeconds();
let codes;
if (serial) {
  codes = [];
  for (const pass of PASSES) codes.push(await run(pass, () => true));
} else {
  // The first pass writes as it goes; each later one is held until the one before it has ended.
  process.stdout.write(`test passes at once: ${PASSES.map((pass) => pass.name).join(', ')} (the first one's output as it comes, each other one's after it)\n`);
  let writing = 0;
  codes = await Promise.all(
    PASSES.map((pass, index) =>
      run(pass, () => writing === index).then((code) => {
        writing = index + 1;
        while (waiting.length > 0) waiting.shift()();
        return code;
      }),
    ),
  );
}
rmSync(configs, { recursive: true, force: true });
const machine = machineBusySeconds() - machineBefore;
process.stdout.write(
  `\ntest passes: ${((performance.now() - started) / 1000).toFixed(0)} s wall, ${childrenCpuSeconds().toFixed(0)} s CPU (user + system)` +
    `${machine > 0 ? `; the whole machine was busy ${machine.toFixed(0)} CPU s meanwhile (Postgres and anything else running included)` : ''}\n`,
);
// exitCode rather than process.exit(): when our output is a pipe whose reader is slower than the
// held pass is written (`npm test | tee log`), the last writes are still queued, and exit() would
// drop them; the process ends once they are written.
process.exitCode = codes.find((code) => code !== 0) ?? 0;
