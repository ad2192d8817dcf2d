import type { Clock } from '../shared/clock.js';
import type { IdGenerator } from '../shared/ids.js';
import type { ActivityLogEntry, ActivityLogRepository } from './activity-log.js';

/** Entries kept in memory before older ones are dropped when the database cannot keep up. */
const MAX_BUFFERED = 50_000;
/** Buffer size at which a flush starts without waiting for the host's timer. */
const EAGER_FLUSH_AT = 1_000;

/**
 * Buffers activity log entries and writes them in batches, off the request's critical path:
 * `record` is synchronous; the host calls {@link flush} every few seconds and at shutdown, and a
 * full batch flushes on its own. A failed write puts its entries back (bounded by MAX_BUFFERED,
 * beyond which the oldest are dropped and counted in `dropped`).
 */
export class ActivityRecorder {
  private buffer: ActivityLogEntry[] = [];
  private flushing: Promise<void> | undefined;
  /** Entries lost because the buffer overflowed. */
  dropped = 0;

  constructor(
    private readonly deps: { logs: ActivityLogRepository; ids: IdGenerator; clock: Clock; onError?: (error: unknown) => void },
  ) {}

  /** Records one request; `createdAt` defaults to now. */
  record(entry: Omit<ActivityLogEntry, 'id' | 'createdAt'> & { createdAt?: Date }): void {
    this.buffer.push({ ...entry, id: this.deps.ids.uuid(), createdAt: entry.createdAt ?? this.deps.clock.now() });
    this.trim();
    if (this.buffer.length >= EAGER_FLUSH_AT) this.flush().catch((error) => this.deps.onError?.(error));
  }

  /** Writes everything buffered; concurrent calls share one write. @throws the repository's error (entries are kept) */
  flush(): Promise<void> {
    this.flushing ??= this.write().finally(() => {
      this.flushing = undefined;
    });
    return this.flushing;
  }

  private async write(): Promise<void> {
    while (this.buffer.length > 0) {
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
