#!/usr/bin/env node
// `hangar`: the one executable of a Hangar install (package.json "bin"), the same in a checkout
// (./bin/hangar.mjs, or `hangar` after `npm link`), a production install (`npm ci --omit=dev` on a
// built tree) and the container image (on its PATH):
//   hangar start              the server (what `npm start` runs): API and content servers, WORKERS processes
//   hangar <command> …        the admin CLI (users list, users confirm <email>, backup <dir>, …)
//   hangar, hangar --help     the CLI's help, with every command
//   hangar --version          the version and commit of the build
// Before either, scripts/ensure-built.mjs checks that the native addons load with this Node.js
// (else one message with the `npm rebuild …` that fixes it) and, in a checkout with the
// development dependencies, builds dist/ when the sources are newer; a production install never builds.
// The entry point is imported, not spawned: signals reach the server itself, and node:cluster
// workers run this file again with the same arguments.
import cluster from 'node:cluster';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ensureBuilt } from '../scripts/ensure-built.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const [command] = process.argv.slice(2);
const server = command === 'start';

// A cluster worker runs this file again: its primary has checked and built already.
if (!cluster.isWorker) {
  const status = ensureBuilt();
  if (status !== 0) process.exit(status);
}
if (server) {
  // process.argv stays as it is: node:cluster starts each worker with the same arguments (`start`).
  await import(pathToFileURL(path.join(root, 'dist', 'apps', 'bundle', 'main.js')).href);
} else {
  await import(pathToFileURL(path.join(root, 'dist', 'apps', 'bundle', 'cli.js')).href);
}
