/** Options of {@link OutboxLoop}. */
export interface OutboxLoopOptions {
  /** How often the loop looks for due rows, in ms. */
  pollMs: number;
  /** Claims and handles one due row. @returns false when none was due */
  deliverOne: () => Promise<boolean>;
  /** Housekeeping after a turn (pruning old rows), at most once a minute. */
  prune: () => Promise<void>;
  /** Told when a turn failed (the database is away): the rows wait for the next turn. */
  onError: (error: unknown) => void;
  /** Unix ms now. */
  now: () => number;
}

/**
 * The background loop of a durable outbox in the database (SqlMailOutbox, SqlWebhookOutbox): every
 * `pollMs`, and at once when {@link kick}ed, it handles due rows one at a time until none is due, then
 * prunes (once a minute). One turn runs at a time in a process; a kick during a turn runs another
 * turn right after it. The rows' claims (claimDueRow) keep processes from handling one row at once.
 */
export class OutboxLoop {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private lastPrune = 0;

  constructor(private readonly options: OutboxLoopOptions) {}

  /** True between {@link start} and {@link stop}. */
  get started(): boolean {
    return this.timer !== undefined;
  }

  /** Starts the loop (every `pollMs`, and now). */
  start(): void {
    if (this.timer !== undefined) return;
    this.timer = setInterval(() => this.kick(), this.options.pollMs).unref();
    this.kick();
  }

  /** Stops the loop; resolves once the row being handled is done. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /**
   * Handles every row due now (including ones that become due meanwhile, not ones waiting for a
   * retry later), then resolves: at shutdown, for short-lived processes, and in tests.
   */
  async drain(): Promise<void> {
    await this.running;
    while (await this.options.deliverOne()) {
      // One at a time, until nothing is due.
    }
  }

  /** Runs a turn now if the loop is started (after the running one, if any). */
  kick(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.turn().finally(() => {
      this.running = undefined;
      if (this.again && this.timer !== undefined) {
        this.again = false;
        this.kick();
      }
    });
  }

  private async turn(): Promise<void> {
    try {
      while (this.timer !== undefined && (await this.options.deliverOne())) {
        // Until nothing is due.
      }
      if (this.options.now() - this.lastPrune > 60_000) {
        this.lastPrune = this.options.now();
        await this.options.prune();
      }
    } catch (error) {
      this.options.onError(error);
    }
  }
}
