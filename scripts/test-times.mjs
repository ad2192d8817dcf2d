#!/usr/bin/env node
// Where a test run's time went, from the lines HANGAR_TEST_TIMES collected (test/support/root-hooks.ts):
//   HANGAR_TEST_TIMES=/tmp/times.jsonl npm test; node scripts/test-times.mjs /tmp/times.jsonl [rows]
// Prints each pass's totals (files, wall seconds summed over files, CPU of the mocha workers and of
// the processes the tests started), then the files costing the most CPU (default 30 rows), slowest first.
import { readFileSync } from 'node:fs';

const [file, rowsArg] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: node scripts/test-times.mjs <times.jsonl> [rows]\n');
  process.exit(64);
}
const lines = readFileSync(file, 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => JSON.parse(line));
const sum = (rows, key) => rows.reduce((total, row) => total + row[key], 0);
for (const pass of [...new Set(lines.map((line) => line.pass))]) {
  const rows = lines.filter((line) => line.pass === pass);
  process.stdout.write(
    `${pass}: ${rows.length} files, ${sum(rows, 'wallS').toFixed(0)} s wall summed, ${sum(rows, 'cpuS').toFixed(0)} s CPU in mocha, ${sum(rows, 'childCpuS').toFixed(0)} s CPU in processes the tests started\n`,
  );
}
const cost = (row) => row.cpuS + row.childCpuS;
process.stdout.write('\npass       wall s   CPU s  child s  file\n');
for (const row of [...lines].sort((a, b) => cost(b) - cost(a)).slice(0, Number(rowsArg ?? 30))) {
  process.stdout.write(
    `${row.pass.padEnd(9)} ${row.wallS.toFixed(1).padStart(7)} ${row.cpuS.toFixed(1).padStart(7)} ${row.childCpuS.toFixed(1).padStart(8)}  ${row.file}\n`,
  );
}
