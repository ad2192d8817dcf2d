#!/usr/bin/env node
// Renders the configuration reference's table (docs/configuration.md) and .env.example from the
// configuration table (apps/server/config-variables.ts, built into dist/ by `npm run build` or `npx tsc -b`).
// `--check` writes nothing and exits 1 when either file differs from what it would write
// (test/apps/config-table.test.ts runs it, so neither can drift from the table).
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { renderEnvExample, renderReadmeTable } = await import(path.join(root, 'dist/apps/server/config-variables.js'));

const HEADER = '| variable | default | meaning |';
const CONFIGURATION_DOC = 'docs/configuration.md';

/** The configuration reference with its table (the header line and every `|` line after it) replaced. */
function withTable(reference) {
  const start = reference.indexOf(`\n${HEADER}\n`) + 1;
  if (start <= 0) throw new Error(`${CONFIGURATION_DOC}: no line "${HEADER}" to start the configuration table`);
  const lines = reference.slice(start).split('\n');
  let count = 0;
  while (count < lines.length && lines[count].startsWith('|')) count++;
  return reference.slice(0, start) + [renderReadmeTable(), ...lines.slice(count)].join('\n');
}

const targets = [
  { file: path.join(root, CONFIGURATION_DOC), render: (current) => withTable(current) },
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
    process.stderr.write(
      `${path.relative(root, file)} is not what the configuration table (apps/server/config-variables.ts) says: run node scripts/config-docs.mjs\n`,
    );
    stale = true;
  } else {
    writeFileSync(file, wanted);
  }
}
process.exit(stale ? 1 : 0);
