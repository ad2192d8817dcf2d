#!/usr/bin/env node
// Last step of `npm run build`: writes dist/build-info.json, the build's stamp:
//   { "version": package.json's version, "commit": the git commit built (40 hex, or null outside a
//     git checkout; SOURCE_COMMIT overrides it, for builds from a tarball or a container context
//     without .git), "dirty": whether the working tree had uncommitted changes, "built_at": ISO 8601 }
// The server and the CLI report it (GET /version, --version); scripts/ensure-built.mjs compares
// its modification time with the sources' to decide whether `npm start` must build first.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const git = (args) => {
  try {
    return execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
};
const { version } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
const commit = process.env.SOURCE_COMMIT?.trim() || git(['rev-parse', 'HEAD']) || null;
const status = process.env.SOURCE_COMMIT ? '' : git(['status', '--porcelain', '--untracked-files=no']);
const info = { version, commit, dirty: status === undefined ? null : status !== '', built_at: new Date().toISOString() };
writeFileSync(path.join(root, 'dist', 'build-info.json'), `${JSON.stringify(info, null, 2)}\n`);
