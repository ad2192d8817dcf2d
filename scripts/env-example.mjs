#!/usr/bin/env node
// Writes .env.example from the README's configuration table (the one place each variable is
// described): for each row, its meaning and default as comments, then the variable, commented out.
// `--check` writes nothing and exits 1 when .env.example differs from what it would write
// (test/apps/env-file.test.ts runs it, so the two cannot drift apart).
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
const section = readme.slice(readme.indexOf('## Configuration'));
const table = section.slice(section.indexOf('| variable | default | meaning |'));
const rows = [];
for (const line of table.split('\n').slice(2)) {
  if (!line.startsWith('|')) break;
  // Cells are split on ` | ` (a pipe inside a cell is always written without spaces around it).
  const [name, fallback, ...meaning] = line.slice(1, -1).split(' | ').map((cell) => cell.trim());
  rows.push({ name: name.replace(/`/g, ''), fallback: plain(fallback), meaning: plain(meaning.join(' | ')) });
}

/** Markdown cell text as plain text: no backticks, no bold. */
function plain(text) {
  return text.replace(/`/g, '').replace(/\*\*/g, '');
}

/** `text` as `# ` comment lines of at most 100 characters. */
function comment(text) {
  const lines = [];
  let current = '#';
  for (const word of text.split(/\s+/)) {
    if (current.length + 1 + word.length > 100 && current !== '#') {
      lines.push(current);
      current = '#';
    }
    current += ` ${word}`;
  }
  lines.push(current);
  return lines.join('\n');
}

const text = [
  '# Hangar configuration: copy to .env (or point ENV_FILE at a copy) and uncomment what you change.',
  '# Variables set in the real environment win over this file. Generated from the README\'s',
  '# configuration table by `node scripts/env-example.mjs`; do not edit by hand.',
  '',
  ...rows.map(({ name, fallback, meaning }) => `${comment(meaning)}\n${comment(`Default: ${fallback}`)}\n#${name}=\n`),
].join('\n');

const target = path.join(root, '.env.example');
if (process.argv.includes('--check')) {
  let current = '';
  try {
    current = readFileSync(target, 'utf8');
  } catch {
    // Missing: differs.
  }
  if (current !== text) {
    process.stderr.write('.env.example is not what the README\'s configuration table says: run node scripts/env-example.mjs\n');
    process.exit(1);
  }
} else {
  writeFileSync(target, text);
}
