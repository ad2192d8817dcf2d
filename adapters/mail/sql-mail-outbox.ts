import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { MailMessage, Mailer } from '../../core/accounts/mailer.js';
import type { Logger } from '../../core/shared/logger.js';
import { SILENT_LOGGER } from '../../core/shared/logger.js';
import type { HangarDatabase } from '../persistence/sql/schema.js';
import { claimDueRow } from '../persistence/sql/leased-claim.js';
import { OutboxLoop } from '../persistence/sql/outbox-loop.js';

/** Options of {@link SqlMailOutbox}. */
export interface SqlMailOutboxOptions {
  /** The database holding `mail_outbox` (migration 0018): SQLite or Postgres. */
  db: Kysely<HangarDatabase>;
  /** Where messages are delivered (file outbox, SMTP). */
  transport: Mailer;
  /** Deliveries tried per message, the first included, before it is given up (logged `mail_failed`); default 10. */
  maxAttempts?: number;
  /** Wait before the first retry in ms, doubled before each later one, at most an hour; default 1000. */
  retryDelayMs?: number;
  /** How long a claim holds, in ms: a process that died while delivering frees its message after this; default 60 000 (beyond SMTP's own timeouts). */
  leaseMs?: number;
  /** How often the background loop looks for due messages, in ms; default 1000 (a `send` in this process wakes it at once). */
  pollMs?: number;
  /** Unix ms now; default Date.now. */
  now?: () => number;
  logger?: Logger;
}

/** A claimed row, as the claim returns it. */
interface ClaimedRow {
  id: string;
  recipient: string;
  subject: string;
  text_body: string;
  html_body: string;
  attempts: number | string;
}

/** Sent messages are kept this long (ms), then removed. */
const SENT_RETENTION_MS = 24 * 60 * 60 * 1000;

/**
 * A durable {@link Mailer}: `send` writes the message as a row of `mail_outbox` and resolves once it
 * is committed, so a message accepted for sending survives a crash (SIGKILL included); a background
 * loop in every process that has one ({@link SqlMailOutbox.start}) delivers due rows through
 * `transport`, retrying failures with exponential backoff, and marks them sent.
 *
 * Several processes share the table safely: each claims one due row at a time (claimDueRow, shared
 * with the webhook outbox: a conditional update the database runs atomically, `for update skip
 * locked` on Postgres), taking a lease of `leaseMs`, so two processes
 * never deliver one message at once. The one case of a second delivery is a process that dies
 * after the transport accepted a message and before marking it sent: its lease lapses and another
 * process sends it again (at least once, never lost).
 * @throws from `send` only when the row cannot be written (DATABASE_UNAVAILABLE from the driver)
 */
export class SqlMailOutbox implements Mailer {
  private readonly db: Kysely<HangarDatabase>;
  private readonly transport: Mailer;
  private readonly maxAttempts: number;
  private readonly retryDelayMs: number;
  private readonly leaseMs: number;
  private readonly pollMs: number;
  private readonly now: () => number;
  private readonly logger: Logger;
  /** This process's name in `claimed_by`. */
  private readonly owner = randomUUID();
  /** Messages written by this process so far, for ids that sort in the order they were sent. */
  private written = 0;
  private readonly loop: OutboxLoop;

  constructor(options: SqlMailOutboxOptions) {
    this.db = options.db;
    this.transport = options.transport;
    this.maxAttempts = Math.max(1, options.maxAttempts ?? 10);
    this.retryDelayMs = Math.max(0, options.retryDelayMs ?? 1000);
    this.leaseMs = Math.max(1, options.leaseMs ?? 60_000);
    this.pollMs = Math.max(1, options.pollMs ?? 1000);
    this.now = options.now ?? Date.now;
    this.logger = options.logger ?? SILENT_LOGGER;
    this.loop = new OutboxLoop({
      pollMs: this.pollMs,
      now: this.now,
      deliverOne: () => this.deliverOne(),
      prune: async () => {
        await this.db
          .deleteFrom('mail_outbox')
          .where('sent_at', '<', this.now() - SENT_RETENTION_MS)
          .execute();
      },
      // The database is away: the rows wait; the next turn tries again.
      onError: (error) => this.logger.warn('mail_outbox_unavailable', { error: error instanceof Error ? error.message : String(error) }),
    });
  }

  /** Writes `message` to the outbox (durable once this resolves) and wakes this process's delivery loop. */
  async send(message: MailMessage): Promise<void> {
    const now = this.now();
    await this.db
      .insertInto('mail_outbox')
      .values({
        id: this.nextId(now),
        recipient: message.to,
        subject: message.subject,
        text_body: message.text,
        html_body: message.html,
        created_at: now,
        attempts: 0,
        next_attempt_at: now,
        claimed_by: null,
        claimed_until: null,
        last_error: null,
        sent_at: null,
        failed_at: null,
      })
      .execute();
    if (this.loop.started) this.loop.kick();
  }

  /**
   * An id that sorts after every earlier one of this process (`<ms, 15 digits>-<count, 10 digits>-<uuid>`),
   * so due messages go out in the order they were sent (across processes, to the millisecond).
   */
  private nextId(now: number): string {
    this.written += 1;
    return `${String(now).padStart(15, '0')}-${String(this.written).padStart(10, '0')}-${randomUUID()}`;
  }

  /** Starts the background delivery loop (every `pollMs`, and at once after each `send`). */
  start(): void {
    this.loop.start();
  }

  /** Stops the loop; resolves once a delivery in progress has finished. */
  async stop(): Promise<void> {
    await this.loop.stop();
  }

  /**
   * Delivers every message due now (including ones that become due meanwhile, not ones waiting
   * for a retry later), then resolves: at shutdown, and for short-lived processes such as the CLI.
   * What is left is delivered by the next process that runs the loop.
   */
  async drain(): Promise<void> {
    await this.loop.drain();
  }

  /** Messages not yet sent nor given up (waiting, or being delivered). */
  async pending(): Promise<number> {
    const row = await this.db
      .selectFrom('mail_outbox')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('sent_at', 'is', null)
      .where('failed_at', 'is', null)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Claims and delivers one due message. @returns false when none was due */
  private async deliverOne(): Promise<boolean> {
    const row = await this.claim();
    if (!row) return false;
    const attempts = Number(row.attempts);
    try {
      await this.transport.send({ to: row.recipient, subject: row.subject, text: row.text_body, html: row.html_body });
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      const givenUp = attempts >= this.maxAttempts;
      const retryAt = this.now() + Math.min(this.retryDelayMs * 2 ** (attempts - 1), 60 * 60 * 1000);
      await this.db
        .updateTable('mail_outbox')
        .set(
          givenUp ? { claimed_until: null, last_error: reason, failed_at: this.now() } : { claimed_until: null, last_error: reason, next_attempt_at: retryAt },
        )
        .where('id', '=', row.id)
        .where('claimed_by', '=', this.owner)
        .execute();
      if (givenUp) this.logger.error('mail_failed', { to: row.recipient, subject: row.subject, attempts, error: reason });
      else this.logger.warn('mail_retry', { subject: row.subject, attempts, retry_in_ms: retryAt - this.now(), error: reason });
      return true;
    }
    await this.db
      .updateTable('mail_outbox')
      .set({ sent_at: this.now(), claimed_until: null })
      .where('id', '=', row.id)
      .where('claimed_by', '=', this.owner)
      .execute();
    return true;
  }

  /** The oldest due message, claimed for this process (claimDueRow), or undefined when none is due. */
  private async claim(): Promise<ClaimedRow | undefined> {
    return claimDueRow<ClaimedRow>({
      db: this.db,
      table: 'mail_outbox',
      owner: this.owner,
      leaseMs: this.leaseMs,
      now: this.now,
      columns: ['id', 'recipient', 'subject', 'text_body', 'html_body', 'attempts'],
    });
  }
}
