import type { Clock } from '../shared/clock.js';
import type { IdGenerator } from '../shared/id-generator.js';
import type { ActivityLogEntry } from './activity-log.js';
import type { ActivityLogRepository } from './activity-log-repository.js';

/** Entries kept in memory before older ones are dropped when the database cannot keep up. */
const MAX_BUFFERED = 50_000;
/** Buffer size at which a flush starts without waiting for the host's timer. */
const EAGER_FLUSH_AT = 1_000;

/**
 * Buffers activity log entries and writes them in batches, off the request's critical path:
 * `record` is synchronous; the host calls {@link flush} every few seconds and at shutdown, and a
 * full batch (EAGER_FLUSH_AT entries) is written on its own. Writes never overlap: each runs after
 * the previous one. A write started because the buffer filled writes only full batches, so under
 * steady load the database sees one transaction per EAGER_FLUSH_AT requests rather than a stream
 * of small ones (each transaction costs a commit; decision 0001, docs/decisions/). A failed write puts its
 * entries back (bounded by MAX_BUFFERED, beyond which the oldest are dropped and counted in `dropped`).
 */
export class ActivityRecorder {
  private buffer: ActivityLogEntry[] = [];
  /** The last write queued; the next one starts after it settles. */
  private tail: Promise<void> = Promise.resolve();
  private eagerQueued = false;
  /** Entries lost because the buffer overflowed (MAX_BUFFERED), since the start. */
  dropped = 0;

  /** Entries recorded and not written yet (those of a write under way excluded). */
  get buffered(): number {
    return this.buffer.length;
  }

  constructor(private readonly deps: { logs: ActivityLogRepository; ids: IdGenerator; clock: Clock; onError?: (error: unknown) => void }) {}

  /**
   * Records one request; `createdAt` defaults to now. Called for every authenticated request: the
   * entry is copied field by field, because an object spread of it costs many times more
   * (decision 0001).
   */
  record(entry: Omit<ActivityLogEntry, 'id' | 'createdAt'> & { createdAt?: Date }): void {
    this.buffer.push({
      id: this.deps.ids.uuid(),
      userId: entry.userId,
      method: entry.method,
      path: entry.path,
      statusCode: entry.statusCode,
      requestSizeBytes: entry.requestSizeBytes,
      createdAt: entry.createdAt ?? this.deps.clock.now(),
      metadata: entry.metadata,
    });
    this.trim();
    if (this.buffer.length >= EAGER_FLUSH_AT && !this.eagerQueued) {
      this.eagerQueued = true;
      this.enqueue(() => {
        this.eagerQueued = false;
        return this.write(EAGER_FLUSH_AT);
      }).catch((error) => this.deps.onError?.(error));
    }
  }

  /**
   * Writes everything buffered when the write starts (after the writes queued before it), in one
   * batch: entries recorded meanwhile wait for the next flush or a full batch, so a timer's flush
   * under steady load does not turn into a stream of small transactions either.
   * @throws the repository's error (the entries are kept for the next flush)
   */
  flush(): Promise<void> {
    return this.enqueue(() => this.write(1, true));
  }

  private enqueue(job: () => Promise<void>): Promise<void> {
    const run = this.tail.then(job, job);
    this.tail = run.catch(() => undefined);
    return run;
  }

  /** Writes batches while at least `minimum` entries are buffered; with `once`, at most one. */
  private async write(minimum: number, once = false): Promise<void> {
    for (let written = 0; this.buffer.length >= minimum && this.buffer.length > 0 && !(once && written > 0); written++) {
      const batch = this.buffer;
      this.buffer = [];
      try {
        await this.deps.logs.insertMany(batch);
      } catch (error) {
        this.buffer = [...batch, ...this.buffer];
        this.trim();
        throw error;
      }
    }
  }

  private trim(): void {
    const excess = this.buffer.length - MAX_BUFFERED;
    if (excess > 0) {
      this.buffer.splice(0, excess);
      this.dropped += excess;
    }
  }
}
