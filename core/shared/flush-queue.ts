/**
 * Orders the flushes of a write-behind buffer (UsageMeter, FileReadCounts): each {@link flush}
 * writes what is buffered when its write starts, one batch, after the flushes called before it; a
 * call made while a flush is still waiting to start shares that flush. So a flush called after a
 * record always writes it, while a timer's flush under steady load writes one batch and returns,
 * instead of writing back to back for as long as new records keep arriving (each write is a
 * transaction, and on Postgres a notification that drops cached lookups in every process).
 */
export class FlushQueue {
  private tail: Promise<void> = Promise.resolve();
  private waiting: Promise<void> | undefined;
  /** Writes started so far, and whether one is running now: {@link readBetweenWrites} compares them. */
  private writesStarted = 0;
  private writing = false;

  /** @param writeOnce writes the buffered records once (nothing when there are none); keeps them on failure */
  constructor(private readonly writeOnce: () => Promise<void>) {}

  /** Writes what is buffered once the flushes before it are done. @throws what `writeOnce` throws */
  flush(): Promise<void> {
    if (this.waiting) return this.waiting;
    const start = (): Promise<void> => {
      this.waiting = undefined;
      this.writesStarted += 1;
      this.writing = true;
      return this.writeOnce().finally(() => {
        this.writing = false;
      });
    };
    const run = this.tail.then(start, start);
    this.waiting = run;
    this.tail = run.catch(() => undefined);
    return run;
  }

  /**
   * Runs `read` (a read of what the writes store) so that no write overlaps it: it waits for a
   * running write to end, and reads again when a write started while it read, up to `attempts`
   * reads in all. A read that no write overlapped saw each batch either written or still buffered,
   * never both, so adding the buffer to it counts every record once. Only when writes kept starting
   * through every attempt is the last read returned as it is (a batch may then be counted twice or
   * not at all for that one answer; writes start every few seconds, so one more read suffices).
   * @param attempts reads at most (≥ 1)
   * @throws what `read` throws
   */
  async readBetweenWrites<T>(read: () => Promise<T>, attempts: number): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      if (this.writing) await this.tail;
      const started = this.writesStarted;
      const result = await read();
      if ((started === this.writesStarted && !this.writing) || attempt >= attempts) return result;
    }
  }
}
