import { type FileHandle, open } from 'node:fs/promises';

/**
 * How long a statement waits for another process's write lock before failing with SQLITE_BUSY
 * (then 503 DATABASE_UNAVAILABLE), in ms. SQLite's own busy handler waits synchronously, on the
 * event loop, so it is used only while migrating; afterwards callers wait asynchronously
 * ({@link retryWhileBusy}).
 */
export const BUSY_TIMEOUT_MS = 5000;
/** Longest pause between two attempts to get past another process's lock, in ms. */
const BUSY_RETRY_MAX_DELAY_MS = 50;

/** True for SQLITE_BUSY and its extended codes (SQLITE_BUSY_SNAPSHOT, SQLITE_BUSY_RECOVERY…). */
export const isBusy = (error: unknown): boolean => {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
};

/**
 * Runs `attempt` and, while it fails with SQLITE_BUSY and `mayRetry()` holds, runs it again after
 * 1, 2, 4… (at most BUSY_RETRY_MAX_DELAY_MS = 50) ms, for up to BUSY_TIMEOUT_MS (5 s), waiting
 * asynchronously so the event loop goes on. Only for work that changed nothing when it failed.
 * @throws the last SQLITE_BUSY once the 5 s are over, or any other error at once
 */
export async function retryWhileBusy<T>(attempt: () => T | Promise<T>, mayRetry: () => boolean = () => true): Promise<T> {
  const deadline = Date.now() + BUSY_TIMEOUT_MS;
  for (let delay = 1; ; delay = Math.min(delay * 2, BUSY_RETRY_MAX_DELAY_MS)) {
    try {
      return await attempt();
    } catch (error) {
      if (!isBusy(error) || !mayRetry() || Date.now() + delay > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}

/**
 * Flushes the WAL file to disk, one flush at a time: a caller arriving while a flush runs waits
 * for the next one (its commit may have come after the running flush started), which then serves
 * every caller that arrived meanwhile.
 */
export class WalFlusher {
  private handle: Promise<FileHandle> | undefined;
  private running: Promise<void> | undefined;
  private queued: Promise<void> | undefined;
  /** Called after each flush that succeeded (the background checkpointer's cue). */
  onFlushed: (() => void) | undefined;

  constructor(private readonly path: string) {}

  flush(): Promise<void> {
    if (!this.running) return this.start();
    this.queued ??= this.running
      .catch(() => undefined)
      .then(() => {
        this.queued = undefined;
        return this.start();
      });
    return this.queued;
  }

  async close(): Promise<void> {
    const handle = this.handle;
    this.handle = undefined;
    await (await handle?.catch(() => undefined))?.close();
  }

  private start(): Promise<void> {
    const flushing = this.datasync().finally(() => {
      if (this.running === flushing) this.running = undefined;
    });
    this.running = flushing;
    return flushing;
  }

  private async datasync(): Promise<void> {
    // Opened once: the WAL file stays the same file (SQLite truncates or rewrites it in place)
    // while this connection is open.
    this.handle ??= open(this.path, 'r');
    try {
      await (await this.handle).datasync();
      this.onFlushed?.();
    } catch (error) {
      this.handle = undefined;
      throw error;
    }
  }
}
