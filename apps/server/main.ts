import 'reflect-metadata';
import cluster from 'node:cluster';
import { ConfigError, loadConfig } from './config.js';
import { startLines } from './start-lines.js';
import type { WorkerReady } from './supervisor.js';

// Entry point of `npm start`: the only reader of process.env. With WORKERS > 1 this process is the
// primary of a node:cluster (apps/server/supervisor.ts) and each worker runs this file again.
// The service itself is imported only where it runs, so the primary stays small and quick to start.
async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`hangar: invalid configuration: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  if (config.workers > 1 && cluster.isPrimary) {
    const { superviseWorkers } = await import('./supervisor.js');
    await superviseWorkers(config);
    return;
  }

  const { startHangar } = await import('./start.js');
  const worker = cluster.isWorker;
  // A worker knows its place from the supervisor (only worker 0 runs the hourly maintenance).
  const options = worker ? { clusterWorker: true, maintenance: process.env[(await import('./supervisor.js')).WORKER_INDEX_VARIABLE] === '0' } : {};
  const running = await startHangar(config, options);
  if (worker) {
    // The supervisor prints the addresses once every worker listens.
    process.send!({ hangar: 'ready', api: running.apiAddress, content: running.contentAddress } satisfies WorkerReady);
  } else {
    for (const line of startLines(config, running.apiAddress, running.contentAddress)) process.stdout.write(`${line}\n`);
  }

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    if (!worker) process.stdout.write(`hangar: ${signal} received, finishing requests in flight\n`);
    running.close().then(
      () => {
        if (!worker) process.stdout.write('hangar: stopped\n');
        process.exit(0);
      },
      (error) => {
        process.stderr.write(`hangar: shutdown failed: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

main().catch((error) => {
  process.stderr.write(`hangar: failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
