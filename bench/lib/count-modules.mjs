// Preload (`node --import ./bench/lib/count-modules.mjs …`) for the bench's `startup` scenario: counts
// the modules a process loads (ES modules through a loader hook, CommonJS through Module._load's
// cache misses, node: built-ins left out) and, when the process exits, writes the two counts as
// JSON to `$HANGAR_BENCH_MODULES_DIR/<pid>.json` (every 50 ms and at exit). node:cluster workers inherit the preload through
// execArgv, so each process of a WORKERS=N service writes its own file.
import { renameSync, writeFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import path from 'node:path';
import { MessageChannel } from 'node:worker_threads';

const directory = process.env.HANGAR_BENCH_MODULES_DIR;
if (directory) {
  const esm = new Set();
  const cjs = new Set();
  const { port1, port2 } = new MessageChannel();
  port1.on('message', (url) => esm.add(url));
  port1.unref();
  register('./count-modules-hooks.mjs', import.meta.url, { data: { port: port2 }, transferList: [port2] });

  const Module = createRequire(import.meta.url)('node:module');
  const load = Module._load;
  Module._load = function countedLoad(request, parent, isMain) {
    const exported = load.call(this, request, parent, isMain);
    if (!request.startsWith('node:') && !Module.isBuiltin(request)) {
      try {
        cjs.add(Module._resolveFilename(request, parent, isMain));
      } catch {
        cjs.add(request);
      }
    }
    return exported;
  };
  // Written every 50 ms as well as at exit: a process ended by a signal without a handler has no exit event.
  // Written beside and renamed into place: a process stopped mid-write leaves the last whole count.
  const file = path.join(directory, `${process.pid}.json`);
  const write = () => {
    writeFileSync(`${file}.partial`, JSON.stringify({ esm: esm.size, cjs: cjs.size }));
    renameSync(`${file}.partial`, file);
  };
  setInterval(write, 50).unref();
  process.on('exit', write);
}
