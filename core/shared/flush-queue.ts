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

  /** @param writeOnce writes the buffered records once (nothing when there are none); keeps them on failure */
  constructor(private readonly writeOnce: () => Promise<void>) {}

  /** Writes what is buffered once the flushes before it are done. @throws what `writeOnce` throws */
  flush(): Promise<void> {
    if (this.waiting) return this.waiting;
    const start = (): Promise<void> => {
      this.waiting = undefined;
      return this.writeOnce();
    };
    const run = this.tail.then(start, start);
    this.waiting = run;
    this.tail = run.catch(() => undefined);
    return run;
  }
}
