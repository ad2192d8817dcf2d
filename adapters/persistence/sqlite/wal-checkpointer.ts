import { statSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import type { CheckpointReply, CheckpointRequest } from './wal-checkpoint-messages.js';
import { WalIndexHeader } from './wal-index-header.js';

/**
 * Shortest time between the start of two checkpoints of one database file, in ms. Between them
 * the WAL grows by what was written meanwhile (at the bench's 4 KiB upload rate, a few MiB).
 */
export const CHECKPOINT_INTERVAL_MS = 250;

/**
 * The WAL size, in pages, at which the service's own connection checkpoints anyway
 * (`wal_autocheckpoint`): a safety net for a checkpointer that cannot keep up, far above what
 * {@link CHECKPOINT_INTERVAL_MS} lets accumulate. 16,384 pages of 4 KiB = 64 MiB.
 */
export const SAFETY_NET_AUTOCHECKPOINT_PAGES = 16_384;

/**
 * How long the worker thread may go without a request (no checkpoint, no batch write) before it
 * closes its connections and ends, in ms; the next request starts a new one (about 40 ms of CPU,
 * most of it on the new thread). Under any steady stream of writes it never ends. An idle server
 * thus gives back the worker's isolate and connections, 6–9 MiB of resident memory (decision 0023).
 */
export const CHECKPOINT_WORKER_IDLE_MS = 10_000;

/**
 * Sets how long the process's checkpoint worker may stay idle before it ends (see
 * {@link CHECKPOINT_WORKER_IDLE_MS}, the default), in ms, from its next idle spell on; for tests and
 * hosts that embed the adapters.
 * @throws RangeError when `idleMs` is not a positive number
 */
export function setCheckpointWorkerIdleMs(idleMs: number): void {
  if (!(idleMs > 0)) throw new RangeError(`the checkpoint worker's idle time must be a positive number of ms, not ${idleMs}`);
  workerIdleMs = idleMs;
}

let workerIdleMs: number = CHECKPOINT_WORKER_IDLE_MS;

/** Whether the process's checkpoint worker thread is running now (diagnostics, tests): false before the first request and once it ended idle. */
export function checkpointWorkerRunning(): boolean {
  return CheckpointWorker.running() !== undefined;
}

/** Error codes (and their extended codes) after which a checkpoint is simply tried again later. */
const tryAgain = (code: string | undefined) => code !== undefined && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'));

/**
 * WAL checkpoints of one SQLite database file, run off the event loop.
 *
 * Why: SQLite checkpoints inside the COMMIT that pushes the WAL past `wal_autocheckpoint` (1,000
 * pages by default), on the committing connection: it copies the WAL's pages into the database
 * file and fsyncs both, which on the service's connection blocked the event loop, and so every
 * request in flight, several times a second under a stream of uploads (decision 0004). Here the
 * service's connection keeps only a far-off safety net ({@link SAFETY_NET_AUTOCHECKPOINT_PAGES})
 * and a worker thread, with a connection of its own, runs `PRAGMA wal_checkpoint(PASSIVE)` at most
 * every {@link CHECKPOINT_INTERVAL_MS} ms after writes. A checkpoint is SQLite's own operation with
 * its own crash safety: nothing about durability changes (commits are on disk once the WAL is
 * flushed, see GroupCommitSqliteDriver), only which thread copies pages afterwards.
 *
 * One worker per process serves every database file, started at the first write that leaves frames
 * in a WAL (or the first batch write), not keeping the process alive while idle, and ended once it
 * has had nothing to do for {@link CHECKPOINT_WORKER_IDLE_MS} (started again by the next request).
 */
export interface WalCheckpoints {
  /** Says that a write was committed; a checkpoint follows within about {@link CHECKPOINT_INTERVAL_MS} ms. */
  wrote(): void;
  /** Whether this file's checkpoints or batch writes have asked for the worker thread yet (diagnostics, tests). */
  readonly usedWorker: boolean;
  /**
   * Runs `statements` (SQLite SQL with positional parameters) as one `BEGIN IMMEDIATE` transaction
   * on the worker's connection, waiting there up to 5 s for another connection's write lock, and
   * resolves once the commit is on disk (the WAL flushed, as the service's own writes). For batch
   * writes whose SQLite work would otherwise block the event loop (the activity log's 1,000-row
   * batches: ~20 ms). Returns `undefined` once checkpointing has stopped (closed, or the worker
   * failed): the caller then writes on its own connection.
   * @throws (rejects) an Error with SQLite's `code` (e.g. SQLITE_BUSY, SQLITE_CONSTRAINT_PRIMARYKEY)
   *         when the transaction failed and was rolled back, or the worker's error if it died
   */
  write(statements: readonly { sql: string; parameters: readonly unknown[] }[]): Promise<void> | undefined;
  /**
   * Stops checkpointing this file: waits for a checkpoint under way, then closes the worker's
   * connection, so that the service's connection is the last one and its close checkpoints and
   * removes the WAL as SQLite does. Never rejects.
   */
  close(): Promise<void>;
}

/**
 * Checkpoints the database file at `path` (absolute) in the background, see {@link WalCheckpoints}.
 * @param onFailure called at most once, when the worker cannot checkpoint this file (it could not
 *        start, died, or SQLite failed with anything but a busy lock); from then on `wrote()` does
 *        nothing, and the caller should let its own connection checkpoint again (`wal_autocheckpoint`).
 */
export function backgroundCheckpoints(path: string, onFailure: (error: Error) => void): WalCheckpoints {
  return new FileCheckpoints(path, onFailure);
}

class FileCheckpoints implements WalCheckpoints {
  private dirty = false;
  private running: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private lastStart = -Infinity;
  private stopped = false;
  private used = false;
  /** The WAL-index header of the file (its `-shm`), read at each checkpoint's start; opened at the first. */
  private header: WalIndexHeader | undefined;
  /** Whether the last checkpoint copied every frame of the WAL (none busy, none left). */
  private complete = false;

  get usedWorker(): boolean {
    return this.used;
  }
  /** Background writes under way, which close() waits for. */
  private readonly writes = new Set<Promise<void>>();

  constructor(
    private readonly path: string,
    private readonly onFailure: (error: Error) => void,
  ) {}

  wrote(): void {
    if (this.stopped) return;
    this.dirty = true;
    this.schedule();
  }

  write(statements: readonly { sql: string; parameters: readonly unknown[] }[]): Promise<void> | undefined {
    if (this.stopped) return undefined;
    this.used = true;
    const written = Promise.resolve()
      // Plain objects: a CompiledQuery also carries Kysely's query tree, which the worker does not need.
      .then(() =>
        CheckpointWorker.shared().request({ type: 'write', path: this.path, statements: statements.map(({ sql, parameters }) => ({ sql, parameters })) }),
      )
      .then(
        (reply) => {
          if (!reply.ok) throw Object.assign(new Error(reply.message), { code: reply.code });
          this.wrote();
        },
        (error: Error) => {
          // The worker could not start or died: from now on the caller writes on its own connection.
          this.fail(error);
          throw error;
        },
      );
    this.writes.add(written);
    const settled = () => this.writes.delete(written);
    written.then(settled, settled);
    return written;
  }

  async close(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await Promise.allSettled([...this.writes]);
    await this.running;
    this.header?.close();
    this.header = undefined;
    // A worker that ended idle has closed its connections already; one ending now is waited for,
    // so that the service's connection is the last one when it closes.
    await CheckpointWorker.ended();
    if (this.used)
      await CheckpointWorker.running()
        ?.request({ type: 'close', path: this.path })
        .catch(() => undefined);
  }

  private schedule(): void {
    if (this.running || this.timer || this.stopped) return;
    const delay = Math.max(0, this.lastStart + CHECKPOINT_INTERVAL_MS - performance.now());
    this.timer = setTimeout(() => this.run(), delay);
    this.timer.unref();
  }

  private run(): void {
    this.timer = undefined;
    if (!this.dirty || this.stopped) return;
    this.dirty = false;
    // Until the worker is first needed, a WAL without frames is not worth its thread (about 200 ms
    // of CPU to start): there is nothing to copy. A service starts with writes that change nothing
    // (secrets kept, outboxes claimed, old rows pruned), each flushed all the same.
    if (!this.used && walIsEmpty(this.path)) return;
    // Nor is a WAL whose every frame the last checkpoint copied, when no commit has added one since
    // (the header changes with each commit that writes a frame): such writes would otherwise keep
    // the worker from ever going idle.
    this.header ??= WalIndexHeader.openFile(this.path);
    const committed = this.header?.changed() ?? true;
    if (this.used && this.complete && !committed) return;
    this.complete = false;
    this.lastStart = performance.now();
    this.used = true;
    // Started inside a promise, so that a worker that cannot even be created fails this file's
    // checkpoints (onFailure) instead of throwing from a timer.
    this.running = Promise.resolve()
      .then(() => CheckpointWorker.shared().request({ type: 'checkpoint', path: this.path }))
      .then(
        (reply) => {
          if (reply.ok) {
            // Frames a reader still needed stay in the WAL: try again after the next interval.
            if (reply.busy || reply.checkpointed < reply.log) this.dirty = true;
            else this.complete = true;
          } else if (tryAgain(reply.code)) {
            this.dirty = true;
          } else {
            this.fail(new Error(`WAL checkpoint of ${this.path} failed: ${reply.message}`));
          }
        },
        (error: Error) => this.fail(error),
      )
      .finally(() => {
        this.running = undefined;
        if (this.dirty) this.schedule();
      });
  }

  private fail(error: Error): void {
    if (this.stopped) return;
    this.stopped = true;
    this.onFailure(error);
  }
}

/** True when the database at `path` has no WAL file or an empty one (no frame to checkpoint). */
function walIsEmpty(path: string): boolean {
  try {
    return statSync(`${path}-wal`).size === 0;
  } catch {
    return true;
  }
}

/**
 * The checkpoint worker's V8 heap: a young generation of 2 MB instead of V8's default (up to
 * 3 × 16 MiB, grown while a thread allocates fast). The worker holds a connection, a few prepared
 * statements and one batch of rows at a time, so a small young generation costs it nothing
 * measurable, and the thread's resident memory stays a few MiB smaller (decision 0023).
 */
const WORKER_RESOURCE_LIMITS = { maxYoungGenerationSizeMb: 2 };

/**
 * The process's one checkpoint worker; replaced by a new one if it dies, and ended after
 * `workerIdleMs` without a request (the next request starts a new one).
 */
class CheckpointWorker {
  private static current: CheckpointWorker | undefined;
  /** Workers asked to end (idle), until their thread has exited. */
  private static readonly ending = new Set<Promise<void>>();

  static shared(): CheckpointWorker {
    CheckpointWorker.current ??= new CheckpointWorker();
    return CheckpointWorker.current;
  }

  /** The running worker, if any; never starts one. */
  static running(): CheckpointWorker | undefined {
    return CheckpointWorker.current;
  }

  /** Resolves once every worker that was ending (idle) has closed its connections and exited. */
  static async ended(): Promise<void> {
    await Promise.all([...CheckpointWorker.ending]);
  }

  private readonly worker: Worker;
  private readonly pending = new Map<number, { resolve: (reply: CheckpointReply) => void; reject: (error: Error) => void }>();
  private nextId = 1;
  private idleTimer: NodeJS.Timeout | undefined;

  private constructor() {
    this.worker = new Worker(new URL('./wal-checkpoint-worker.js', import.meta.url), { resourceLimits: WORKER_RESOURCE_LIMITS });
    this.worker.unref();
    this.worker.on('message', (reply: CheckpointReply) => {
      const waiting = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      if (this.pending.size === 0) {
        this.worker.unref();
        if (CheckpointWorker.current === this) this.endWhenIdle();
      }
      waiting?.resolve(reply);
    });
    const died = (error: Error) => {
      clearTimeout(this.idleTimer);
      if (CheckpointWorker.current === this) CheckpointWorker.current = undefined;
      for (const waiting of this.pending.values()) waiting.reject(error);
      this.pending.clear();
    };
    this.worker.on('error', died);
    this.worker.on('exit', (code) => died(new Error(`the WAL checkpoint worker exited (code ${code})`)));
  }

  /** Sends one request; rejects if the worker dies before answering. */
  request(request: CheckpointRequest extends infer R ? (R extends unknown ? Omit<R, 'id'> : never) : never): Promise<CheckpointReply> {
    clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      // Referenced while a request waits, so that a shutdown awaiting close() is not cut short.
      this.worker.ref();
      this.worker.postMessage({ ...request, id });
    });
  }

  /**
   * Ends this worker once it has had no request for `workerIdleMs`: from then on requests go to a
   * new worker, while this one closes its connections (`retire`) and its thread is terminated.
   */
  private endWhenIdle(): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      if (this.pending.size > 0 || CheckpointWorker.current !== this) return;
      CheckpointWorker.current = undefined;
      // A worker that died meanwhile has nothing left to close: its rejection ends the wait too.
      const ending = this.request({ type: 'retire' })
        .then(() => this.worker.terminate())
        .then(
          () => undefined,
          () => undefined,
        )
        .finally(() => CheckpointWorker.ending.delete(ending));
      CheckpointWorker.ending.add(ending);
    }, workerIdleMs);
    this.idleTimer.unref();
  }
}
