import cluster, { type Worker } from 'node:cluster';
import { serveClusterRateLimits } from '../../adapters/rate-limits/flexible-rate-limiter.js';
import type { Logger } from '../../core/shared/logger.js';
import type { Config } from './config.js';
import { startLines } from './start-lines.js';

/** What a worker sends its primary once both its servers listen (apps/server/main.ts). */
export interface WorkerReady {
  hangar: 'ready';
  /** The addresses bound, e.g. `http://0.0.0.0:3000` (the same for every worker; RunningHangar.apiListen). */
  api: string;
  content: string;
}

/** Environment variable that tells a worker its place (0 … WORKERS−1); set by the supervisor only. */
export const WORKER_INDEX_VARIABLE = 'HANGAR_WORKER_INDEX';

/** Restarts allowed within {@link RESTART_WINDOW_MS} before the supervisor gives up (a crash loop). */
const MAX_RESTARTS = 5;
/** Window of {@link MAX_RESTARTS}, in ms. */
const RESTART_WINDOW_MS = 60_000;
/** How long the supervisor waits for its workers to finish after SIGTERM/SIGINT before it kills them, in ms (each worker's own grace is 10 s). */
const STOP_DEADLINE_MS = 30_000;

/** Options of {@link superviseWorkers}. */
export interface SupervisorOptions {
  /** Where the supervisor's messages go (the process's logger). */
  logger: Logger;
}

/**
 * Runs `config.workers` server processes as a `node:cluster` and keeps them running; called by
 * apps/server/main.ts in the primary process when WORKERS > 1. Each worker runs the whole service
 * (`startHangar`) on the same ports: the primary accepts connections and hands them out in turn
 * (the cluster's round-robin policy). Everything shared lives where every worker sees it: records
 * in the database (the SQLite lookup caches and listing totals are checked against it on every
 * request), blobs in the blob store, rate-limit counters in Postgres or, on SQLite, in this
 * primary ({@link serveClusterRateLimits}); usage counts and activity log entries are buffered
 * per worker and flushed to the database. Only worker 0 runs the hourly maintenance.
 *
 * - Start: worker 0 first, the others once it listens (so the service answers as soon as one
 *   process can, measured by the bench's `startup` scenario); resolves once every worker listens,
 *   after printing the addresses (the same lines a single process prints). A worker that exits
 *   before it listens (a bad database URL, a port in use) stops the others, and the promise
 *   rejects with what happened.
 * - A worker that dies later is replaced (same index), logged as `worker_exited` (error) and
 *   `worker_restarted` (info); more
 *   than 5 restarts within 60 s is a crash loop: the workers are stopped and the process exits 1.
 *   Its connections end with it, also those handed to it that it had not yet taken
 *   ({@link closeUntakenConnectionsOnExit}): no client is left waiting on a dead worker.
 * - SIGTERM or SIGINT: each worker is sent SIGTERM and finishes its requests in flight (its own 10 s
 *   grace); the process exits 0 once all have stopped cleanly, 1 otherwise or after 30 s.
 * @throws Error when a worker fails to start
 */
export async function superviseWorkers(config: Config, options: SupervisorOptions): Promise<void> {
  const { logger } = options;
  const out = (event: string, msg: string) => logger.info(event, { msg });
  serveClusterRateLimits();

  const workers = new Map<number, Worker>();
  let stopping = false;
  const restarts: number[] = [];

  const fork = (index: number): Worker => {
    const worker = cluster.fork({ [WORKER_INDEX_VARIABLE]: String(index) });
    closeUntakenConnectionsOnExit(worker);
    workers.set(index, worker);
    return worker;
  };
  const stopAll = (signal: NodeJS.Signals) => {
    for (const worker of workers.values()) if (worker.process.exitCode === null && worker.process.signalCode === null) worker.process.kill(signal);
  };
  const allExited = () => Promise.all([...workers.values()].map((worker) => exitOf(worker)));

  const shutdown = async (signal: string, exitCode = 0) => {
    if (stopping && exitCode === 0) return;
    stopping = true;
    if (exitCode === 0) out('stopping', `hangar: ${signal} received, finishing requests in flight`);
    stopAll('SIGTERM');
    const deadline = setTimeout(() => stopAll('SIGKILL'), STOP_DEADLINE_MS).unref();
    const exits = await allExited();
    clearTimeout(deadline);
    const clean = exits.every(({ code }) => code === 0);
    if (exitCode === 0 && clean) out('stopped', 'hangar: stopped');
    process.exit(clean ? exitCode : 1);
  };
  // Before forking: a signal during the start stops the workers that are starting, too.
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  // Start: every worker must report ready; the first that exits instead fails the start. Worker 0
  // starts alone and the others once it listens: on a machine with few cores, workers loading at
  // the same time share them and all answer late, while one alone answers as soon as a single
  // process can (and migrates a fresh database without the others waiting on its lock).
  let ready: WorkerReady;
  try {
    ready = await readyOf(fork(0));
    // Stopped by a signal while worker 0 started: shutdown() stops it and ends the process.
    if (stopping) return new Promise<never>(() => undefined);
    await Promise.all(Array.from({ length: config.workers - 1 }, (_, index) => readyOf(fork(index + 1))));
  } catch (error) {
    // Stopped by a signal meanwhile: shutdown() ends the process.
    if (stopping) return new Promise<never>(() => undefined);
    stopping = true;
    stopAll('SIGTERM');
    await allExited();
    throw error;
  }
  const metricsServer = config.metrics
    ? await (
        await import('./metrics.js')
      ).startMetricsServer({ host: config.metrics.host, port: config.metrics.port, scrape: (await import('./metrics.js')).clusterScrape() })
    : undefined;
  for (const line of startLines(config, ready.api, ready.content, metricsServer?.address)) out('started', line);
  out('started', `hangar: ${config.workers} worker processes (WORKERS), supervisor pid ${process.pid}`);

  // Later deaths: replace the worker, unless stopping or crash-looping.
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) return;
    const index = [...workers.entries()].find(([, w]) => w === worker)?.[0];
    if (index === undefined) return;
    const now = Date.now();
    restarts.push(now);
    while (restarts.length > 0 && restarts[0] < now - RESTART_WINDOW_MS) restarts.shift();
    const crashLoop = restarts.length > MAX_RESTARTS;
    logger.error('worker_exited', { worker: index, worker_pid: worker.process.pid, code, signal, action: crashLoop ? 'stop' : 'restart' });
    if (crashLoop) {
      logger.error('crash_loop', { msg: `hangar: more than ${MAX_RESTARTS} worker restarts within ${RESTART_WINDOW_MS / 1000} s; stopping` });
      void shutdown('SIGTERM', 1);
      return;
    }
    readyOf(fork(index)).then(
      () => logger.info('worker_restarted', { worker: index, worker_pid: workers.get(index)?.process.pid }),
      // It exited again before listening: its exit is handled (and counted) here too.
      () => undefined,
    );
  });
}

/** A connection's handle in the primary, as node:cluster passes it to a worker. */
interface ConnectionHandle {
  close(): void;
}

/**
 * Closes, when `worker` dies, the connections the primary handed to it that it never took.
 *
 * With the cluster's round-robin policy the primary accepts each connection and sends its handle
 * to a worker over the IPC channel (`{ cmd: 'NODE_CLUSTER', act: 'newconn', seq }`); it closes its
 * own copy only when the worker answers (`{ ack: seq, accepted }`). A worker that dies before
 * answering — killed, crashed, or stuck and then killed — never answers, so node:cluster keeps that
 * copy open forever and the client waits forever on a connection nobody serves. Here the handles
 * sent to the worker are remembered until its answer, and those still unanswered when it exits are
 * closed, so their clients see the connection end at once (connections the worker did take end
 * with its process). This reads node:cluster's internal messages (stable since Node 0.12); should
 * they change, nothing is remembered and the behaviour is node:cluster's own.
 */
function closeUntakenConnectionsOnExit(worker: Worker): void {
  const child = worker.process;
  const untaken = new Map<number, ConnectionHandle>();
  const send = child.send.bind(child) as (...args: unknown[]) => boolean;
  (child as { send: unknown }).send = (message: unknown, handle?: unknown, ...rest: unknown[]): boolean => {
    const internal = message as { cmd?: unknown; act?: unknown; seq?: unknown } | null;
    if (
      internal?.cmd === 'NODE_CLUSTER' &&
      internal.act === 'newconn' &&
      typeof internal.seq === 'number' &&
      typeof (handle as ConnectionHandle | undefined)?.close === 'function'
    ) {
      untaken.set(internal.seq, handle as ConnectionHandle);
    }
    return send(message, handle, ...rest);
  };
  child.on('internalMessage', (message: { cmd?: unknown; ack?: unknown } | null) => {
    if (message?.cmd === 'NODE_CLUSTER' && typeof message.ack === 'number') untaken.delete(message.ack);
  });
  child.once('exit', () => {
    for (const handle of untaken.values()) {
      try {
        handle.close();
      } catch {
        // Already closed: nothing left to end.
      }
    }
    untaken.clear();
  });
}

/** Resolves with the worker's {@link WorkerReady}; rejects if it exits first. */
function readyOf(worker: Worker): Promise<WorkerReady> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: Partial<WorkerReady>) => {
      if (message?.hangar !== 'ready') return;
      worker.off('exit', onExit);
      worker.off('message', onMessage);
      resolve(message as WorkerReady);
    };
    const onExit = (code: number | null, signal: string | null) => {
      worker.off('message', onMessage);
      reject(new Error(`worker ${worker.process.pid} exited before listening (${signal ?? `exit code ${code}`})`));
    };
    worker.on('message', onMessage);
    worker.once('exit', onExit);
  });
}

/** Resolves once the worker's process has exited, with its exit code (null when a signal ended it). */
function exitOf(worker: Worker): Promise<{ code: number | null }> {
  if (worker.process.exitCode !== null || worker.process.signalCode !== null) return Promise.resolve({ code: worker.process.exitCode });
  return new Promise((resolve) => worker.process.once('exit', (code) => resolve({ code })));
}
