#!/usr/bin/env node
// Run first by `hangar` (bin/hangar.mjs), `npm start` and `npm run cli` (scripts/ensure-built.mjs):
// loads the native addons Hangar needs (better-sqlite3, argon2) before anything is built or
// started. An addon compiled for another Node.js version (the machine moved from Node 20 to 24
// after `npm ci`) fails to load with ERR_DLOPEN_FAILED and a NODE_MODULE_VERSION mismatch; without
// this check that surfaces only after a full build, deep in a stack trace. Here it is one message
// with the one command that fixes it (`npm rebuild <the modules>`, run in the install folder), exit 1.
// Plain JavaScript with no dependencies, so it runs before anything is built or on a production install.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The native addons the server and the CLI load, and how to make each load its binary (a require alone may not). */
export const NATIVE_MODULES = [
  {
    name: 'better-sqlite3',
    // The addon is loaded by the first `new Database()`, not by require().
    load: (require) => new (require('better-sqlite3'))(':memory:').close(),
  },
  { name: 'argon2', load: (require) => require('argon2') },
];

/** Node.js's own sign of an addon built for another ABI (src/node_binding.cc, "NODE_MODULE_VERSION"). */
const OTHER_ABI = /NODE_MODULE_VERSION (\d+)[\s\S]*?NODE_MODULE_VERSION (\d+)/;

/**
 * Loads every module of {@link NATIVE_MODULES} from `root`'s node_modules.
 * @param {string} root the install folder (holds package.json and node_modules)
 * @returns {{ ok: true } | { ok: false, message: string }} the message names the modules, the versions, and the command to run
 */
export function checkNativeModules(root) {
  const require = createRequire(path.join(root, 'package.json'));
  const wrongAbi = [];
  const missing = [];
  let builtFor;
  for (const module of NATIVE_MODULES) {
    try {
      module.load(require);
    } catch (error) {
      const text = String(error?.message ?? error);
      const abi = OTHER_ABI.exec(text);
      if (abi) {
        wrongAbi.push(module.name);
        builtFor = abi[1];
      } else if (error?.code === 'MODULE_NOT_FOUND' && text.includes(`'${module.name}'`)) {
        missing.push(module.name);
      } else if (error?.code === 'ERR_DLOPEN_FAILED' || /\.node\b/.test(text)) {
        // Not an ABI mismatch but the binary still fails to load (a different libc, a truncated file): a rebuild fixes that too.
        wrongAbi.push(module.name);
      } else {
        throw error;
      }
    }
  }
  if (wrongAbi.length === 0 && missing.length === 0) return { ok: true };
  const lines = [];
  if (wrongAbi.length > 0) {
    const was = builtFor ? ` (NODE_MODULE_VERSION ${builtFor})` : '';
    lines.push(
      `hangar: ${wrongAbi.join(' and ')} ${wrongAbi.length === 1 ? 'was' : 'were'} built for another Node.js version${was} than this one, ${process.version} (NODE_MODULE_VERSION ${process.versions.modules}).`,
      `Run this once in ${root}, with this Node.js, then start again:`,
      `  npm rebuild ${wrongAbi.join(' ')}`,
    );
  }
  if (missing.length > 0)
    lines.push(
      `hangar: ${missing.join(' and ')} ${missing.length === 1 ? 'is' : 'are'} not installed in ${root}; run npm ci (or npm ci --omit=dev on a built release) there.`,
    );
  return { ok: false, message: `${lines.join('\n')}\n` };
}

// Run directly: `node scripts/check-native-modules.mjs [install folder]` (default: this checkout).
if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const root = path.resolve(process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..'));
  const result = checkNativeModules(root);
  if (!result.ok) {
    process.stderr.write(result.message);
    process.exit(1);
  }
}
