import { type FileRow, fileRow } from '../persistence/sql/file-rows.js';
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import type { Mailer } from '../../core/accounts/mailer.js';
import type { StoredFile } from '../../core/files/stored-file.js';
import { type Logger, SILENT_LOGGER } from '../../core/shared/logger.js';
import type { Share } from '../../core/shares/share.js';
import type { FileDeletionReason } from '../../core/webhooks/webhook.js';
import type { WebhookEvent } from '../../core/webhooks/webhook-event.js';
import { claimDueRow } from '../persistence/sql/leased-claim.js';
import { OutboxLoop } from '../persistence/sql/outbox-loop.js';
import type { HangarDatabase } from '../persistence/sql/schema.js';
import type { WebhookSender } from './http-webhook-sender.js';

/** Waits before the 2nd…8th attempts, in ms (Standard Webhooks' suggested schedule): 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
export const WEBHOOK_RETRY_DELAYS_MS: readonly number[] = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];
/** An endpoint failing this long without a success is turned off (ms; 5 days). */
export const WEBHOOK_DISABLE_AFTER_MS = 5 * 24 * 60 * 60 * 1000;
/** Delivered rows are kept this long for the delivery log, then removed (ms; 30 days). */
const DELIVERED_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

/** What became of one attempt, for the metrics (`hangar_webhook_deliveries_total{outcome}`). */
export type WebhookOutcome = 'delivered' | 'retry' | 'failed';

/** Options of {@link SqlWebhookOutbox}. */
export interface SqlWebhookOutboxOptions {
  /** The database holding `webhooks` and `webhook_deliveries` (migration 0044). */
  db: Kysely<HangarDatabase>;
  sender: WebhookSender;
  /** The payload (`{ type, timestamp, data }`) of an event, as the API presents its objects. */
  render: (event: WebhookEvent) => Promise<unknown>;
  /** Tells an account's owner that the service turned an endpoint off; default: nobody is told. */
  mailer?: Mailer;
  /** Per-attempt deadline in ms; default 10 000. */
  timeoutMs?: number;
  /** Waits before each retry (ms); default {@link WEBHOOK_RETRY_DELAYS_MS}; attempts = its length + 1. */
  retryDelaysMs?: readonly number[];
  /** Each wait is multiplied by a random factor in [1 − jitter, 1 + jitter]; default 0.2. */
  jitter?: number;
  /** How long a claim holds, in ms (beyond `timeoutMs`): a process that died while delivering frees its row after this; default 60 000. */
  leaseMs?: number;
  /** How often the loop looks for due rows, in ms; default 1000. */
  pollMs?: number;
  /** Unix ms now; default Date.now. */
  now?: () => number;
  logger?: Logger;
  /** Told of each attempt's outcome (metrics). */
  onOutcome?: (outcome: WebhookOutcome) => void;
}

/** A claimed delivery joined with its endpoint. */
interface ClaimedDelivery {
  id: string;
  webhook_id: string;
  user_id: string;
  event_type: string;
  snapshot: string;
  created_at: number | string;
  attempts: number | string;
}

/**
 * Delivers webhooks from the durable outbox `webhook_deliveries`, which the triggers of migration
 * 0044 fill in the transactions of the changes themselves. Every process runs the loop
 * ({@link start}); each claims one due row at a time with a lease (claimDueRow, shared with the mail
 * outbox: `for update skip locked` on Postgres), so processes deliver each row once between them, and
 * the row of a process killed mid-delivery is claimed again when its lease lapses (at least once).
 *
 * An attempt renders the payload, signs it per Standard Webhooks (`webhook-id` = the row's id, the same
 * on every attempt; `webhook-timestamp`; `webhook-signature` `v1,<base64 HMAC-SHA256>` with the current
 * secret, and with the previous one too for 24 h after a rotation) and POSTs it through `sender`
 * (10 s deadline, checked addresses, no redirects). A 2xx is success; anything else is retried after
 * {@link WEBHOOK_RETRY_DELAYS_MS} with jitter, then marked failed. An endpoint with no success for
 * {@link WEBHOOK_DISABLE_AFTER_MS} is turned off and its owner mailed. Order between the deliveries
 * of one endpoint is not promised.
 */
export class SqlWebhookOutbox {
  private readonly db: Kysely<HangarDatabase>;
  private readonly timeoutMs: number;
  private readonly delays: readonly number[];
  private readonly jitter: number;
  private readonly leaseMs: number;
  private readonly pollMs: number;
  private readonly now: () => number;
  private readonly logger: Logger;
  /** This process's name in `claimed_by`. */
  private readonly owner = randomUUID();
  private readonly loop: OutboxLoop;

  constructor(private readonly options: SqlWebhookOutboxOptions) {
    this.db = options.db;
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.delays = options.retryDelaysMs ?? WEBHOOK_RETRY_DELAYS_MS;
    this.jitter = Math.min(Math.max(options.jitter ?? 0.2, 0), 1);
    this.leaseMs = Math.max(options.leaseMs ?? 60_000, this.timeoutMs + 1_000);
    this.pollMs = Math.max(1, options.pollMs ?? 1000);
    this.now = options.now ?? Date.now;
    this.logger = options.logger ?? SILENT_LOGGER;
    this.loop = new OutboxLoop({
      pollMs: this.pollMs,
      now: this.now,
      deliverOne: () => this.deliverOne(),
      prune: () => this.prune(),
      // The database is away: the rows wait; the next turn tries again.
      onError: (error) => this.logger.warn('webhook_outbox_unavailable', { error: error instanceof Error ? error.message : String(error) }),
    });
  }

  /** Starts the background loop (every `pollMs`). */
  start(): void {
    this.loop.start();
  }

  /** Stops the loop; resolves once an attempt in progress has finished (its row is then recorded). */
  async stop(): Promise<void> {
    await this.loop.stop();
  }

  /** Delivers every row due now, one at a time, then resolves (tests, short-lived processes). */
  async drain(): Promise<void> {
    await this.loop.drain();
  }

  /** Age in seconds of the oldest row due and not delivered (0 when none): the outbox's lag, for the metrics gauge. */
  async oldestDueAgeSeconds(): Promise<number> {
    const now = this.now();
    const row = await this.db
      .selectFrom('webhook_deliveries')
      .select((eb) => eb.fn.min('created_at').as('oldest'))
      .where('sent_at', 'is', null)
      .where('failed_at', 'is', null)
      .where('next_attempt_at', '<=', now)
      .executeTakeFirst();
    return row?.oldest === null || row?.oldest === undefined ? 0 : Math.max(0, (now - Number(row.oldest)) / 1000);
  }

  /**
   * Removes delivered rows past their retention, and the endpoints of deleted accounts once nothing
   * of theirs is pending (their last events, such as `account_deleted` file deletions, are out).
   */
  private async prune(): Promise<void> {
    await this.db
      .deleteFrom('webhook_deliveries')
      .where((eb) => eb.or([eb('sent_at', '<', this.now() - DELIVERED_RETENTION_MS), eb('failed_at', '<', this.now() - DELIVERED_RETENTION_MS)]))
      .execute();
    await this.db
      .deleteFrom('webhooks')
      .where((eb) => eb.not(eb.exists(eb.selectFrom('users').select('users.id').whereRef('users.id', '=', 'webhooks.user_id'))))
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom('webhook_deliveries')
              .select('webhook_deliveries.id')
              .whereRef('webhook_deliveries.webhook_id', '=', 'webhooks.id')
              .where('webhook_deliveries.sent_at', 'is', null)
              .where('webhook_deliveries.failed_at', 'is', null),
          ),
        ),
      )
      .execute();
  }

  /** Claims and attempts one due delivery. @returns false when none was due */
  private async deliverOne(): Promise<boolean> {
    const row = await claimDueRow<ClaimedDelivery>({
      db: this.db,
      table: 'webhook_deliveries',
      owner: this.owner,
      leaseMs: this.leaseMs,
      now: this.now,
      columns: ['id', 'webhook_id', 'user_id', 'event_type', 'snapshot', 'created_at', 'attempts'],
    });
    if (!row) return false;
    const attempts = Number(row.attempts);
    const endpoint = await this.db
      .selectFrom('webhooks')
      .select(['url', 'secret', 'previous_secret', 'previous_secret_until', 'enabled'])
      .where('id', '=', row.webhook_id)
      .executeTakeFirst();
    if (!endpoint || (Number(endpoint.enabled) !== 1 && row.event_type !== 'webhook.test')) {
      await this.finish(row, { failed_at: this.now(), last_error: 'the endpoint is disabled' });
      return true;
    }
    const started = performance.now();
    let status: number | null = null;
    let failure: string | null = null;
    try {
      const body = JSON.stringify(await this.options.render(parseEvent(row)));
      status = (await this.options.sender.send({ url: endpoint.url, body, headers: this.sign(row.id, body, endpoint), timeoutMs: this.timeoutMs })).status;
      if (status < 200 || status > 299) failure = `HTTP ${status}`;
    } catch (error) {
      failure = error instanceof Error ? error.message : String(error);
    }
    const durationMs = Math.round(performance.now() - started);
    const now = this.now();
    if (failure === null) {
      await this.finish(row, { sent_at: now, last_status: status, last_error: null, duration_ms: durationMs });
      await this.db.updateTable('webhooks').set({ last_success_at: now, failing_since: null }).where('id', '=', row.webhook_id).execute();
      this.options.onOutcome?.('delivered');
      return true;
    }
    const givenUp = attempts > this.delays.length;
    const delay = this.delays[Math.min(attempts, this.delays.length) - 1] ?? 0;
    const retryAt = now + Math.round(delay * (1 - this.jitter + 2 * this.jitter * Math.random()));
    await this.finish(
      row,
      givenUp
        ? { failed_at: now, last_status: status, last_error: failure, duration_ms: durationMs }
        : { next_attempt_at: retryAt, last_status: status, last_error: failure, duration_ms: durationMs },
    );
    this.options.onOutcome?.(givenUp ? 'failed' : 'retry');
    this.logger.warn(givenUp ? 'webhook_failed' : 'webhook_retry', {
      webhook_id: row.webhook_id,
      delivery_id: row.id,
      attempts,
      error: failure,
      ...(givenUp ? {} : { retry_in_ms: retryAt - now }),
    });
    await this.noteFailure(row, now);
    return true;
  }

  /** Records an attempt's end, if this process still holds the row's claim. */
  private async finish(
    row: ClaimedDelivery,
    changes: { sent_at?: number; failed_at?: number; next_attempt_at?: number; last_status?: number | null; last_error: string | null; duration_ms?: number },
  ): Promise<void> {
    await this.db
      .updateTable('webhook_deliveries')
      .set({ ...changes, claimed_until: null })
      .where('id', '=', row.id)
      .where('claimed_by', '=', this.owner)
      .execute();
  }

  /** Starts or extends the endpoint's failure streak; past {@link WEBHOOK_DISABLE_AFTER_MS} turns it off and mails its owner. */
  private async noteFailure(row: ClaimedDelivery, now: number): Promise<void> {
    await this.db.updateTable('webhooks').set({ failing_since: now }).where('id', '=', row.webhook_id).where('failing_since', 'is', null).execute();
    const disabled = await this.db
      .updateTable('webhooks')
      .set({ enabled: 0, disabled_reason: 'failing', updated_at: now })
      .where('id', '=', row.webhook_id)
      .where('enabled', '=', 1)
      .where('failing_since', '<=', now - WEBHOOK_DISABLE_AFTER_MS)
      .returning(['url'])
      .executeTakeFirst();
    if (!disabled) return;
    this.logger.warn('webhook_disabled', { webhook_id: row.webhook_id, reason: 'no successful delivery for 5 days' });
    const owner = await this.db.selectFrom('users').select('email').where('id', '=', row.user_id).executeTakeFirst();
    if (owner && this.options.mailer) {
      const text = `Hangar could not deliver to your webhook ${disabled.url} for 5 days, so it has been turned off.\n\nFix the endpoint, then turn it on again in the dashboard (Webhooks) or with PATCH /webhooks/${row.webhook_id} {"enabled": true}.`;
      await this.options.mailer.send({
        to: owner.email,
        subject: 'Your Hangar webhook was turned off',
        text,
        html: `<p>${escapeHtml(text).replaceAll('\n\n', '</p><p>')}</p>`,
      });
    }
  }

  /** The Standard Webhooks headers of one attempt (signed now; `body` exactly as sent). */
  private sign(
    id: string,
    body: string,
    endpoint: { secret: string; previous_secret: string | null; previous_secret_until: number | string | bigint | null },
  ): Record<string, string> {
    const at = new Date(this.now());
    const secrets = [endpoint.secret];
    if (endpoint.previous_secret !== null && endpoint.previous_secret_until !== null && Number(endpoint.previous_secret_until) > at.getTime())
      secrets.push(endpoint.previous_secret);
    return {
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': secrets.map((secret) => new StandardWebhook(secret).sign(id, at, body)).join(' '),
    };
  }
}

function escapeHtml(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

/** A snapshot's file columns (migration 0044) as a StoredFile. */
function fileOf(row: Record<string, unknown>): StoredFile {
  // The trigger's snapshot holds the FILE_COLUMNS of the row as the table stores them.
  return fileRow.read(row as unknown as FileRow);
}

/** A snapshot's share columns as a Share; the password hash is never in the snapshot, only whether there is one. */
function shareOf(row: Record<string, unknown>): Share {
  const nullable = (value: unknown) => (value === null || value === undefined ? null : Number(value));
  return {
    id: String(row.id),
    userId: String(row.user_id),
    fileId: String(row.file_id),
    fileRecordId: String(row.file_record_id),
    // The snapshot never carries the minting key (webhook payloads do not show it).
    apiKeyId: row.api_key_id === null || row.api_key_id === undefined ? null : (row.api_key_id as string),
    passwordHash: row.has_password === 1 || row.has_password === true ? '(not in the snapshot)' : null,
    expiresAt: row.expires_at === null || row.expires_at === undefined ? null : new Date(Number(row.expires_at)),
    maxDownloads: nullable(row.max_downloads),
    downloads: Number(row.downloads ?? 0),
    createdAt: new Date(Number(row.created_at)),
  };
}

/** The event an outbox row holds. @throws Error for an event type this release does not know (a bug) */
function parseEvent(row: ClaimedDelivery): WebhookEvent {
  const snapshot = JSON.parse(row.snapshot) as Record<string, unknown>;
  const base = { userId: row.user_id, occurredAt: new Date(Number(row.created_at)) };
  switch (row.event_type) {
    case 'file.created':
    case 'file.updated':
      return { ...base, type: row.event_type, file: fileOf(snapshot) };
    case 'file.deleted':
      return { ...base, type: 'file.deleted', file: fileOf(snapshot), reason: (snapshot.reason as FileDeletionReason | undefined) ?? 'deleted' };
    case 'share.created':
    case 'share.revoked':
    case 'share.exhausted':
      return { ...base, type: row.event_type, share: shareOf(snapshot) };
    case 'custom_domain.active':
    case 'custom_domain.failed':
      return { ...base, type: row.event_type };
    case 'quota.warning':
    case 'quota.reached':
      return {
        ...base,
        type: row.event_type,
        quota: { resource: snapshot.resource === 'files' ? 'files' : 'storage', used: Number(snapshot.used), limit: Number(snapshot.limit) },
      };
    case 'webhook.test':
      return { ...base, type: 'webhook.test', webhookId: row.webhook_id };
    default:
      throw new Error(`Unknown webhook event type ${row.event_type}`);
  }
}
