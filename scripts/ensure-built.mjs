#!/usr/bin/env node
// Run by `npm start`, `npm run cli` and `hangar` (bin/hangar.mjs) before the server or the CLI:
// first checks that the native addons load with this Node.js (scripts/check-native-modules.mjs:
// a changed Node version is one message with the `npm rebuild …` that fixes it, before any
// build), then builds only when needed.
// - dist/build-info.json (the stamp `npm run build` writes last) is there and newer than every
//   source file (core/, adapters/, apps/, package.json, package-lock.json, tsconfig*.json): nothing
//   to do, in a few milliseconds.
// - Missing or older, and the development dependencies are installed (TypeScript): `npm run build`.
// - Without them (a production install, `npm ci --omit=dev`), never builds: a missing build is an
//   error with what to do; a stale one is run as it is, with a warning.
// Plain JavaScript with no dependencies, so it runs before anything is built or on a production install.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { checkNativeModules } from './check-native-modules.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const stamp = path.join(root, 'dist', 'build-info.json');
const SOURCE_DIRECTORIES = ['core', 'adapters', 'apps'];
const SOURCE_FILES = ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.base.json'];

/** The newest modification time (ms) of a source file under `dir`, skipping build output and dependencies. */
function newest(dir) {
  let latest = 0;
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const entry of entries) {
    if (entry.name === 'node_modules' || entry.name === 'dist') continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) latest = Math.max(latest, newest(full));
    else latest = Math.max(latest, statSync(full).mtimeMs);
  }
  return latest;
}

function sourcesNewerThan(time) {
  for (const dir of SOURCE_DIRECTORIES) if (newest(path.join(root, dir)) > time) return true;
  return SOURCE_FILES.some((file) => existsSync(path.join(root, file)) && statSync(path.join(root, file)).mtimeMs > time);
}

/**
 * Checks the native addons, then builds when the build is missing or older than the sources and
 * the development dependencies are installed (see the comment at the top). Messages go to stderr.
 * @returns the exit status: 0 to go on, 1 to stop (an addon for another Node.js, no build on a production install, a failed build)
 */
export function ensureBuilt() {
  const native = checkNativeModules(root);
  if (!native.ok) {
    process.stderr.write(native.message);
    return 1;
  }
  const built = existsSync(stamp) ? statSync(stamp).mtimeMs : undefined;
  if (built !== undefined && !sourcesNewerThan(built)) return 0;

  const canBuild = existsSync(path.join(root, 'node_modules', 'typescript', 'package.json'));
  if (!canBuild) {
    if (built === undefined) {
      process.stderr.write(
        'hangar: there is no build in dist/. Build it where the development dependencies are installed (npm ci && npm run build), then copy dist/ here, or install them here.\n',
      );
      return 1;
    }
    process.stderr.write(
      'hangar: the sources are newer than the build in dist/, and the development dependencies are not installed to rebuild it: running the build as it is.\n',
    );
    return 0;
  }
  process.stderr.write(
    built === undefined ? 'hangar: building (npm run build), once\n' : 'hangar: sources changed since the last build; building (npm run build)\n',
  );
  const result = spawnSync('npm', ['run', '-s', 'build'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  if (result.status !== 0) {
    process.stderr.write(`hangar: the build failed (exit ${result.status ?? result.signal}); run npm run build to see why.\n`);
    return 1;
  }
  return 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) process.exit(ensureBuilt());
