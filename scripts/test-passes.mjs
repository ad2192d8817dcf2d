#!/usr/bin/env node
// `npm test`'s two mocha passes, run at the same time on the one build (scripts/test-run.mjs runs
// this in .test-run/ after building there): the whole suite on SQLite (`.mocharc.json`) and the HTTP
// suite on Postgres (`HANGAR_TEST_DB=postgres`, `.mocharc.postgres.json`). Most of a pass's time is
// spent waiting (servers starting as processes, flush intervals, backoffs), so on two cores the two
// passes side by side take little more wall time than the longer one alone. They share nothing:
// every server gets a port, a data directory and (Postgres) a schema of its own, and each pass's
// mocha workers use databases of their own (test/support/test-database.ts).
//
// Each pass's output is held and printed whole when it ends, with its wall and CPU time
// (user + system, its processes together), so the two never interleave. Exit status: 0 when both
// passed, else the first non-zero one.
//   node scripts/test-passes.mjs [--serial]     (--serial: one pass after the other)
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const mocha = path.join(root, 'node_modules', 'mocha', 'bin', 'mocha.js');

/** The passes: a name, mocha's arguments and the environment it adds. */
const PASSES = [
  { name: 'SQLite (whole suite)', args: [], env: {} },
  { name: 'Postgres (HTTP suite)', args: ['--config', '.mocharc.postgres.json'], env: { HANGAR_TEST_DB: 'postgres' } },
];

/** Runs one pass; resolves with its exit status once its output was printed. */
function run(pass) {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(process.execPath, [mocha, ...pass.args], { cwd: root, env: { ...process.env, ...pass.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks = [];
    child.stdout.on('data', (chunk) => chunks.push(chunk));
    child.stderr.on('data', (chunk) => chunks.push(chunk));
    child.on('close', (code, signal) => {
      const seconds = ((performance.now() - started) / 1000).toFixed(0);
      process.stdout.write(`\n── ${pass.name}: ${code === 0 ? 'passed' : `failed (${signal ?? code})`} in ${seconds} s wall ──\n`);
      process.stdout.write(Buffer.concat(chunks));
      resolve(code ?? 1);
    });
  });
}

/** CPU seconds (user + system) of this process's children that have ended and been waited for, with theirs (Linux /proc; 0 elsewhere). */
function childrenCpuSeconds() {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
    return (Number(fields[13]) + Number(fields[14])) / 100; // cutime, cstime (fields 16, 17 of proc(5)), in clock ticks of 1/100 s
  } catch {
    return 0;
  }
}

const serial = process.argv.includes('--serial');
const started = performance.now();
let codes;
if (serial) {
  codes = [];
  for (const pass of PASSES) codes.push(await run(pass));
} else {
  process.stdout.write(`test passes at once: ${PASSES.map((pass) => pass.name).join(', ')} (output of each when it ends)\n`);
  codes = await Promise.all(PASSES.map(run));
}
process.stdout.write(`\ntest passes: ${((performance.now() - started) / 1000).toFixed(0)} s wall, ${childrenCpuSeconds().toFixed(0)} s CPU (user + system)\n`);
process.exit(codes.find((code) => code !== 0) ?? 0);
