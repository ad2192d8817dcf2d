// Preloaded into a process a test starts (`NODE_OPTIONS=--import=<this file's URL>`): when the
// process exits, it writes one line to stderr naming the npm packages it loaded through require
// (CommonJS: node-postgres, better-sqlite3 and the native addons among them), so a test can check
// that a library is loaded only when the configuration selects it. loaded-packages.ts reads the line.
import { createRequire } from 'node:module';
import { writeSync } from 'node:fs';
import { LOADED_PACKAGES_PREFIX } from './loaded-packages.js';

const cache = createRequire(import.meta.url).cache;
process.on('exit', () => {
  const names = new Set<string>();
  for (const file of Object.keys(cache)) {
    const match = /[\\/]node_modules[\\/]((?:@[^\\/]+[\\/])?[^\\/]+)/.exec(file.slice(file.lastIndexOf('node_modules') - 1));
    if (match) names.add(match[1].replace('\\', '/'));
  }
  writeSync(2, `${LOADED_PACKAGES_PREFIX} ${[...names].sort().join(' ')}\n`);
});
