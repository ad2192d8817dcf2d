import cluster from 'node:cluster';
import nodeModule from 'node:module';
import type { Logger } from '../../core/shared/logger.js';
import { ConfigError, loadConfig, withEnvFile } from './config.js';
import { applyHeapGrowing } from './heap-growth.js';
import { trimHeapWhenIdle } from './idle-heap.js';
import { createLogger } from './logging.js';
import { startLines } from './start-lines.js';
import type { WorkerReady } from './supervisor.js';

// Entry point of `npm start`: the only reader of process.env. With WORKERS > 1 this process is the
// primary of a node:cluster (apps/server/supervisor.ts) and each worker runs this file again.
// The service itself is imported only where it runs, so the primary stays small and quick to start.
let logger: Logger | undefined;

// Node.js 22.1 and later keep V8's compiled code of the modules imported from here on (the bundle's
// chunks) in a cache on disk (os.tmpdir()/node-compile-cache, NODE_COMPILE_CACHE to move it), so a
// restart reads it instead of compiling them again. A no-op on Node.js 20, which has no such cache;
// never throws (a cache that cannot be written is reported in the returned status and left alone).
(nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache?.();

async function main(): Promise<void> {
  if (process.argv.includes('--version')) {
    const { readBuildInfo, versionLine } = await import('../http/build-info.js');
    process.stdout.write(`${versionLine(readBuildInfo())}\n`);
    return;
  }
  let config;
  try {
    config = loadConfig(withEnvFile(process.env));
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`hangar: invalid configuration: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  applyHeapGrowing(config.heapGrowingPercent);
  if (config.workers > 1 && cluster.isPrimary) {
    logger = createLogger(config.log, { role: 'supervisor' });
    const { superviseWorkers } = await import('./supervisor.js');
    await superviseWorkers(config, { logger });
    return;
  }

  const worker = cluster.isWorker;
  const { WORKER_INDEX_VARIABLE } = worker ? await import('./supervisor.js') : { WORKER_INDEX_VARIABLE: '' };
  const index = worker ? process.env[WORKER_INDEX_VARIABLE] : undefined;
  logger = createLogger(config.log, worker ? { worker: Number(index) } : undefined);
  const { startHangar } = await import('./start.js');
  // A worker knows its place from the supervisor (only worker 0 runs the hourly maintenance).
  const options = worker ? { clusterWorker: true, maintenance: index === '0' } : {};
  const running = await startHangar(config, { ...options, logger });
  // An idle server gives back the memory its requests made V8 keep (decision 0023).
  trimHeapWhenIdle();
  if (worker) {
    // The supervisor prints the addresses once every worker listens.
    process.send!({ hangar: 'ready', api: running.apiListen, content: running.contentListen } satisfies WorkerReady);
  } else {
    for (const line of startLines(config, running.apiListen, running.contentListen, running.metricsAddress)) logger.info('started', { msg: line });
  }

  let stopping = false;
  const log = logger;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    if (!worker) log.info('stopping', { msg: `hangar: ${signal} received, finishing requests in flight`, signal });
    running.close().then(
      () => {
        if (!worker) log.info('stopped', { msg: 'hangar: stopped' });
        process.exit(0);
      },
      (error) => {
        log.error('shutdown_failed', { msg: `hangar: shutdown failed: ${String(error)}`, error });
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

main().catch((error) => {
  const msg = `hangar: failed to start: ${String(error)}`;
  if (logger) logger.error('start_failed', { msg, error });
  else process.stderr.write(`${msg}\n${error instanceof Error ? (error.stack ?? '') : ''}\n`);
  process.exit(1);
});
