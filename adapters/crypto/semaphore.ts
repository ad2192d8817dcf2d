/**
 * At most `limit` tasks run at once; the others wait their turn in arrival order (FIFO).
 * Used to bound memory-hard work such as password hashing (OWASP ASVS 11.1.4 / 12.1.1: resources
 * one request can take are bounded).
 */
export class Semaphore {
  private running = 0;
  private readonly queue: (() => void)[] = [];
  /** The most tasks seen running at once since creation (for tests and metrics). */
  peak = 0;

  /** @throws Error when `limit` is not a positive whole number */
  constructor(readonly limit: number) {
    if (!Number.isSafeInteger(limit) || limit < 1) throw new Error(`Semaphore limit must be a whole number ≥ 1, not ${limit}.`);
  }

  /** Tasks waiting for a turn. */
  get waiting(): number {
    return this.queue.length;
  }

  /** Runs `task` once a turn is free; resolves or rejects as it does, and frees the turn either way. */
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.limit) await new Promise<void>((resolve) => this.queue.push(resolve));
    else this.running++;
    this.peak = Math.max(this.peak, this.running);
    try {
      return await task();
    } finally {
      const next = this.queue.shift();
      if (next) next();
      else this.running--;
    }
  }
}
