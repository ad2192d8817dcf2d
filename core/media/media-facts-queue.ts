import type { MediaSubject } from './media-facts.js';
import type { RecordMediaFacts } from './record-media-facts.js';

/** Options of {@link MediaFactsQueue}. */
export interface MediaFactsQueueOptions {
  /** Files probed at once in this process (`MEDIA_PROBE_CONCURRENCY`); default 2. Each image probe holds up to the prober's byte ceiling in memory. */
  concurrency?: number;
  /** Files waiting at most; more are dropped (the runtime's catch-up, or the backfill `hangar files backfill-media`, computes them later). Default 10,000. */
  maxPending?: number;
  /** Told about each failure (a store out of reach); the file keeps null facts until the runtime's catch-up (CatchUpMediaFacts) or the backfill. */
  onError?: (error: unknown) => void;
}

/**
 * The media facts of new files, computed in the background right after each upload is stored
 * (docs/media.md): the upload's answer does not wait for them, so a File carries null facts until
 * its probe finished (usually milliseconds later). At most `concurrency` probes run at once, and at
 * most `maxPending` files wait: memory stays bounded whatever the upload rate. A file that is
 * dropped, or whose probe failed for an outage, or that was still waiting when the process
 * stopped, has no row and is found by the runtime's catch-up (CatchUpMediaFacts) or the backfill.
 * Why after the upload rather than inside it: decision 0020.
 */
export class MediaFactsQueue {
  private readonly waiting: MediaSubject[] = [];
  private readonly running = new Set<Promise<void>>();
  private readonly concurrency: number;
  private readonly maxPending: number;
  private stopped = false;
  /** Files dropped because the queue was full, since the start. */
  dropped = 0;

  constructor(
    private readonly record: Pick<RecordMediaFacts, 'execute'>,
    private readonly options: MediaFactsQueueOptions = {},
  ) {
    this.concurrency = Math.max(1, options.concurrency ?? 2);
    this.maxPending = Math.max(0, options.maxPending ?? 10_000);
  }

  /** Files waiting and being probed. */
  get size(): number {
    return this.waiting.length + this.running.size;
  }

  /** Queues `file`'s probe; returns at once. Ignored after {@link stop}, and dropped when the queue is full. */
  enqueue(file: MediaSubject): void {
    if (this.stopped) return;
    if (this.waiting.length >= this.maxPending) {
      this.dropped += 1;
      return;
    }
    this.waiting.push({ id: file.id, blobKey: file.blobKey, contentType: file.contentType, size: file.size });
    this.pump();
  }

  /** Resolves once every file queued so far (and any queued meanwhile) has been probed. Never rejects. */
  async settled(): Promise<void> {
    while (this.running.size > 0) await Promise.all(this.running);
  }

  /** Stops taking files, forgets those waiting (the catch-up and the backfill find them) and waits for the probes running. Never rejects. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.waiting.length = 0;
    await this.settled();
  }

  private pump(): void {
    while (this.running.size < this.concurrency && this.waiting.length > 0) {
      const file = this.waiting.shift()!;
      const run: Promise<void> = this.record
        .execute({ file })
        .then(
          () => undefined,
          (error: unknown) => this.options.onError?.(error),
        )
        .finally(() => {
          this.running.delete(run);
          this.pump();
        });
      this.running.add(run);
    }
  }
}
