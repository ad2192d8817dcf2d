import type { MailMessage, Mailer } from '../../core/accounts/mailer.js';

/** Options of {@link QueuedMailer}. */
export interface QueuedMailerOptions {
  /** Tries per message, first one included; default 3. */
  maxAttempts?: number;
  /** Wait before the first retry in ms, doubled before each later one; default 1000. */
  retryDelayMs?: number;
  /** Most messages waiting at once; beyond it new messages are dropped and reported. Default 10 000. */
  maxQueueLength?: number;
  /**
   * Told about every message that is given up: after `maxAttempts` failures (with the last error)
   * or when the queue is full. Default: one line on stderr without the address.
   */
  onError?: (error: unknown, message: MailMessage) => void;
}

/**
 * A {@link Mailer} in front of another: `send` only enqueues and resolves at once, so a request
 * never waits for (or fails because of) the mail system; one background loop delivers the queue in
 * order, one message at a time, retrying with backoff. Messages still queued when the process ends
 * are lost: call {@link QueuedMailer.drain} at shutdown.
 */
export class QueuedMailer implements Mailer {
  private readonly queue: MailMessage[] = [];
  private running: Promise<void> | undefined;
  private readonly maxAttempts: number;
  private readonly retryDelayMs: number;
  private readonly maxQueueLength: number;
  private readonly onError: (error: unknown, message: MailMessage) => void;

  constructor(
    private readonly inner: Mailer,
    options: QueuedMailerOptions = {},
  ) {
    this.maxAttempts = Math.max(1, options.maxAttempts ?? 3);
    this.retryDelayMs = Math.max(0, options.retryDelayMs ?? 1000);
    this.maxQueueLength = options.maxQueueLength ?? 10_000;
    this.onError =
      options.onError ??
      ((error, message) => console.error(`Mail not delivered (subject ${JSON.stringify(message.subject)}):`, error));
  }

  /** Enqueues `message`; never waits for delivery and never throws. */
  async send(message: MailMessage): Promise<void> {
    if (this.queue.length >= this.maxQueueLength) {
      this.report(new Error(`The mail queue is full (${this.maxQueueLength} messages); message dropped.`), message);
      return;
    }
    this.queue.push({ ...message });
    this.running ??= this.run();
  }

  /** Messages waiting, the one being delivered included. */
  get pending(): number {
    return this.queue.length;
  }

  /** Resolves once every queued message (including ones queued meanwhile) was delivered or given up. */
  async drain(): Promise<void> {
    while (this.running) await this.running;
  }

  private async run(): Promise<void> {
    // Yield first, so `running` is set before the loop can finish and clear it.
    await Promise.resolve();
    try {
      while (this.queue.length > 0) {
        await this.deliver(this.queue[0]);
        this.queue.shift();
      }
    } finally {
      this.running = undefined;
    }
  }

  private async deliver(message: MailMessage): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.inner.send(message);
        return;
      } catch (error) {
        if (attempt >= this.maxAttempts) {
          this.report(error, message);
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, this.retryDelayMs * 2 ** (attempt - 1)));
      }
    }
  }

  private report(error: unknown, message: MailMessage): void {
    try {
      this.onError(error, message);
    } catch {
      // A failing error handler must not stop the queue.
    }
  }
}
