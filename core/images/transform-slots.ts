import { clearTimer, setTimer } from '../shared/web-globals.js';
import { DomainError } from '../shared/errors.js';

/** Options of {@link TransformSlots}. */
export interface TransformSlotOptions {
  /** Transformations that may run at once in this process (`IMAGE_CONCURRENCY`), at least 1. */
  concurrency: number;
  /** Milliseconds a transformation may wait for a slot (`IMAGE_QUEUE_TIMEOUT_MS`) before IMAGE_BUSY. */
  queueTimeoutMs: number;
  /** Transformations that may wait at once; one more is refused at once with IMAGE_BUSY. Default 64 × concurrency. */
  maxWaiting?: number;
}

/** Seconds suggested in `Retry-After` when the slots are busy. */
export const IMAGE_BUSY_RETRY_AFTER_SECONDS = 1;

interface Waiter {
  start: () => void;
  timer: unknown;
}

/**
 * A counting semaphore for image transformations (CPU and memory heavy): at most `concurrency`
 * run at once; the others wait in arrival order, each at most `queueTimeoutMs`, then fail with
 * IMAGE_BUSY (503, `Retry-After`). Not a use case.
 */
export class TransformSlots {
  private running = 0;
  private readonly waiting: Waiter[] = [];
  private readonly maxWaiting: number;

  /** @throws Error when `concurrency` is below 1 or `queueTimeoutMs` negative (a configuration bug) */
  constructor(private readonly options: TransformSlotOptions) {
    if (!Number.isInteger(options.concurrency) || options.concurrency < 1) throw new Error('Image concurrency must be a whole number of at least 1.');
    if (!(options.queueTimeoutMs >= 0)) throw new Error('The image queue timeout must be 0 ms or more.');
    this.maxWaiting = options.maxWaiting ?? 64 * options.concurrency;
  }

  /** Transformations running now. */
  get active(): number {
    return this.running;
  }

  /** Transformations waiting for a slot now. */
  get queued(): number {
    return this.waiting.length;
  }

  /**
   * Runs `work` once a slot is free, and frees the slot when it settles.
   * @throws DomainError IMAGE_BUSY (503) when no slot frees up within the queue timeout or the queue is full;
   *         otherwise whatever `work` throws
   */
  async run<T>(work: () => Promise<T>): Promise<T> {
    await this.acquire();
    try {
      return await work();
    } finally {
      this.release();
    }
  }

  private acquire(): Promise<void> {
    if (this.running < this.options.concurrency) {
      this.running += 1;
      return Promise.resolve();
    }
    if (this.waiting.length >= this.maxWaiting) return Promise.reject(busy());
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        start: () => {
          clearTimer(waiter.timer);
          resolve();
        },
        timer: setTimer(() => {
          const at = this.waiting.indexOf(waiter);
          if (at >= 0) this.waiting.splice(at, 1);
          reject(busy());
        }, this.options.queueTimeoutMs),
      };
      this.waiting.push(waiter);
    });
  }

  private release(): void {
    const next = this.waiting.shift();
    // The slot passes straight to the next waiter: `running` stays the same.
    if (next) next.start();
    else this.running -= 1;
  }
}

/** The IMAGE_BUSY refusal (503, `details.retry_after_seconds`): no slot, or a variant another process computes took too long. */
export function busy(): DomainError {
  return new DomainError('IMAGE_BUSY', 'The server is busy transforming other images; retry in a moment.', {
    retry_after_seconds: IMAGE_BUSY_RETRY_AFTER_SECONDS,
  });
}
