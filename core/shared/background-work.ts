/**
 * Work a use case starts without waiting for it (an e-mail mailed after the answer), tracked so that
 * a host can wait for it before it stops. Failures go to `onError`; nothing here ever rejects.
 */
export class BackgroundWork {
  private readonly pending = new Set<Promise<void>>();

  /** @param onError told about every failure of started work (the request that started it was already answered) */
  constructor(private readonly onError?: (error: unknown) => void) {}

  /** Tracks `work` until it settles. */
  start(work: Promise<unknown>): void {
    const tracked: Promise<void> = work
      .then(
        () => undefined,
        (error: unknown) => this.onError?.(error),
      )
      .finally(() => this.pending.delete(tracked));
    this.pending.add(tracked);
  }

  /** Resolves once every piece of work started so far (and any started meanwhile) has settled. Never rejects. */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.all(this.pending);
  }
}
