import { type Kysely, type Selectable, sql } from 'kysely';
import type { Paged, Window } from '../../../core/shared/pagination.js';
import { type Webhook, type WebhookChanges, type WebhookDelivery, WEBHOOK_EVENT_TYPES, WEBHOOK_TEST_EVENT } from '../../../core/webhooks/webhook.js';
import type { WebhookRepository } from '../../../core/webhooks/webhook-repository.js';
import { isPostgres } from './dialect.js';
import { toDate, toMillis, toNullableDate, toNumber } from './rows.js';
import type { HangarDatabase, WebhookDeliveriesTable, WebhooksTable } from './schema.js';

/** A `webhooks` row as the domain sees it (the secrets stay in the database). */
function toWebhook(
  row: Pick<Selectable<WebhooksTable>, 'id' | 'user_id' | 'url' | 'events' | 'description' | 'enabled' | 'disabled_reason' | 'created_at' | 'updated_at'>,
): Webhook {
  const events = row.events.split(' ');
  return {
    id: row.id,
    userId: row.user_id,
    url: row.url,
    events: WEBHOOK_EVENT_TYPES.filter((event) => events.includes(event)),
    description: row.description,
    enabled: Number(row.enabled) === 1,
    disabledReason: row.disabled_reason,
    createdAt: toDate(row.created_at),
    updatedAt: toDate(row.updated_at),
  };
}

/** A `webhook_deliveries` row as the delivery log shows it. */
export function toWebhookDelivery(
  row: Pick<
    Selectable<WebhookDeliveriesTable>,
    'id' | 'webhook_id' | 'event_type' | 'created_at' | 'attempts' | 'next_attempt_at' | 'last_status' | 'last_error' | 'duration_ms' | 'sent_at' | 'failed_at'
  >,
): WebhookDelivery {
  const state = row.sent_at !== null ? 'delivered' : row.failed_at !== null ? 'failed' : 'pending';
  return {
    id: row.id,
    webhookId: row.webhook_id,
    eventType: row.event_type,
    createdAt: toDate(row.created_at),
    attempts: Number(row.attempts),
    state,
    lastStatus: row.last_status === null ? null : Number(row.last_status),
    lastError: row.last_error,
    durationMs: row.duration_ms === null ? null : Number(row.duration_ms),
    nextAttemptAt: state === 'pending' ? toNullableDate(row.next_attempt_at) : null,
  };
}

const WEBHOOK_COLUMNS = ['id', 'user_id', 'url', 'events', 'description', 'enabled', 'disabled_reason', 'created_at', 'updated_at'] as const;
const DELIVERY_COLUMNS = [
  'id',
  'webhook_id',
  'event_type',
  'created_at',
  'attempts',
  'next_attempt_at',
  'last_status',
  'last_error',
  'duration_ms',
  'sent_at',
  'failed_at',
] as const;

/**
 * {@link WebhookRepository} over `webhooks` and `webhook_deliveries` (migration 0044), SQLite or
 * Postgres. The per-account cap is checked by the insert itself (`insert … select … where count < max`):
 * one statement, atomic under SQLite's single writer; on Postgres the account's transaction-scoped
 * advisory lock first orders concurrent creations, so two processes cannot both pass the cap.
 * Deliveries go with their endpoint (`on delete cascade`).
 */
export class SqlWebhookRepository implements WebhookRepository {
  constructor(private readonly db: Kysely<HangarDatabase>) {}

  async create(options: { webhook: Webhook; secret: string; max: number }): Promise<'created' | 'limit_reached'> {
    const { webhook } = options;
    return this.db.transaction().execute(async (trx) => {
      if (isPostgres(trx)) await sql`select pg_advisory_xact_lock(hashtext(${`webhooks:${webhook.userId}`}))`.execute(trx);
      const result = await sql`
        insert into webhooks (id, user_id, url, events, description, enabled, secret, created_at, updated_at)
        select ${webhook.id}, ${webhook.userId}, ${webhook.url}, ${webhook.events.join(' ')}, ${webhook.description}, 1, ${options.secret},
               ${toMillis(webhook.createdAt)}, ${toMillis(webhook.updatedAt)}
         where (select count(*) from webhooks where user_id = ${webhook.userId}) < ${options.max}`.execute(trx);
      return Number(result.numAffectedRows ?? 0) === 1 ? 'created' : 'limit_reached';
    });
  }

  async list(userId: string): Promise<Webhook[]> {
    const rows = await this.db
      .selectFrom('webhooks')
      .select(WEBHOOK_COLUMNS)
      .where('user_id', '=', userId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute();
    return rows.map(toWebhook);
  }

  async find(options: { userId: string; id: string }): Promise<Webhook | undefined> {
    const row = await this.db
      .selectFrom('webhooks')
      .select(WEBHOOK_COLUMNS)
      .where('id', '=', options.id)
      .where('user_id', '=', options.userId)
      .executeTakeFirst();
    return row && toWebhook(row);
  }

  async update(options: { userId: string; id: string; changes: WebhookChanges; at: Date }): Promise<Webhook | undefined> {
    const { changes } = options;
    const row = await this.db
      .updateTable('webhooks')
      .set({
        updated_at: toMillis(options.at),
        ...(changes.url !== undefined && { url: changes.url }),
        ...(changes.events !== undefined && { events: changes.events.join(' ') }),
        ...(changes.description !== undefined && { description: changes.description }),
        ...(changes.enabled !== undefined && { enabled: changes.enabled ? 1 : 0 }),
        // Turned on again by its owner: a new start, without the old failure streak.
        ...(changes.enabled === true && { disabled_reason: null, failing_since: null }),
        ...(changes.enabled === false && { disabled_reason: null }),
      })
      .where('id', '=', options.id)
      .where('user_id', '=', options.userId)
      .returning(WEBHOOK_COLUMNS)
      .executeTakeFirst();
    return row && toWebhook(row);
  }

  async delete(options: { userId: string; id: string }): Promise<boolean> {
    const result = await this.db.deleteFrom('webhooks').where('id', '=', options.id).where('user_id', '=', options.userId).executeTakeFirst();
    return Number(result.numDeletedRows) === 1;
  }

  async rotateSecret(options: { userId: string; id: string; secret: string; previousUntil: Date; at: Date }): Promise<boolean> {
    const result = await this.db
      .updateTable('webhooks')
      // Every right-hand side reads the row as it was, so the old secret moves to `previous_secret`.
      .set((eb) => ({
        previous_secret: eb.ref('secret'),
        previous_secret_until: toMillis(options.previousUntil),
        secret: options.secret,
        updated_at: toMillis(options.at),
      }))
      .where('id', '=', options.id)
      .where('user_id', '=', options.userId)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async enqueueTest(options: { userId: string; webhookId: string; deliveryId: string; at: Date }): Promise<void> {
    const at = toMillis(options.at);
    await this.db
      .insertInto('webhook_deliveries')
      .values({
        id: options.deliveryId,
        webhook_id: options.webhookId,
        user_id: options.userId,
        event_type: WEBHOOK_TEST_EVENT,
        snapshot: '{}',
        created_at: at,
        attempts: 0,
        next_attempt_at: at,
        claimed_by: null,
        claimed_until: null,
        last_status: null,
        last_error: null,
        duration_ms: null,
        sent_at: null,
        failed_at: null,
      })
      .execute();
  }

  async listDeliveries(options: { userId: string; webhookId: string; window: Window }): Promise<Paged<WebhookDelivery>> {
    const mine = this.db.selectFrom('webhook_deliveries').where('webhook_id', '=', options.webhookId).where('user_id', '=', options.userId);
    const [rows, count] = await Promise.all([
      mine.select(DELIVERY_COLUMNS).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(options.window.limit).offset(options.window.offset).execute(),
      mine.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { items: rows.map(toWebhookDelivery), total: toNumber(count.n) };
  }

  async retryDelivery(options: { userId: string; webhookId: string; deliveryId: string; at: Date }): Promise<WebhookDelivery | undefined> {
    const row = await this.db
      .updateTable('webhook_deliveries')
      .set({ next_attempt_at: toMillis(options.at), sent_at: null, failed_at: null })
      .where('id', '=', options.deliveryId)
      .where('webhook_id', '=', options.webhookId)
      .where('user_id', '=', options.userId)
      .returning(DELIVERY_COLUMNS)
      .executeTakeFirst();
    return row && toWebhookDelivery(row);
  }
}
