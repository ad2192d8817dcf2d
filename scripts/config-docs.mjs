#!/usr/bin/env node
// Renders the README's configuration table and .env.example from the configuration table
// (apps/server/config-variables.ts, built into dist/ by `npm run build` or `npx tsc -b`).
// `--check` writes nothing and exits 1 when either file differs from what it would write
// (test/apps/config-table.test.ts runs it, so neither can drift from the table).
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { renderEnvExample, renderReadmeTable } = await import(path.join(root, 'dist/apps/server/config-variables.js'));

const HEADER = '| variable | default | meaning |';

/** The README with its configuration table (the header line and every `|` line after it) replaced. */
function withTable(readme) {
  const section = readme.indexOf('## Configuration');
  const start = readme.indexOf(HEADER, section);
  if (section < 0 || start < 0) throw new Error('README.md: no configuration table under "## Configuration"');
  const lines = readme.slice(start).split('\n');
  let count = 0;
  while (count < lines.length && lines[count].startsWith('|')) count++;
  return readme.slice(0, start) + [renderReadmeTable(), ...lines.slice(count)].join('\n');
}

const targets = [
  { file: path.join(root, 'README.md'), render: (current) => withTable(current) },
  { file: path.join(root, '.env.example'), render: () => renderEnvExample() },
];
let stale = false;
for (const { file, render } of targets) {
  let current = '';
  try {
    current = readFileSync(file, 'utf8');
  } catch {
    // Missing: differs.
  }
  const wanted = render(current);
  if (current === wanted) continue;
  if (process.argv.includes('--check')) {
    process.stderr.write(`${path.relative(root, file)} is not what the configuration table (apps/server/config-variables.ts) says: run node scripts/config-docs.mjs\n`);
    stale = true;
  } else {
    writeFileSync(file, wanted);
  }
}
process.exit(stale ? 1 : 0);
