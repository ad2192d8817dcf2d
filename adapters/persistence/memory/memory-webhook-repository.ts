import type { Paged, Window } from '../../../core/shared/pagination.js';
import { type Webhook, type WebhookChanges, type WebhookDelivery, WEBHOOK_TEST_EVENT } from '../../../core/webhooks/webhook.js';
import type { WebhookRepository } from '../../../core/webhooks/webhook-repository.js';

/** A stored endpoint with its secrets. */
interface StoredWebhook {
  webhook: Webhook;
  secret: string;
  previousSecret: string | null;
  previousSecretUntil: Date | null;
}

function copyWebhook(webhook: Webhook): Webhook {
  return { ...webhook, events: [...webhook.events], createdAt: new Date(webhook.createdAt.getTime()), updatedAt: new Date(webhook.updatedAt.getTime()) };
}

function copyDelivery(delivery: WebhookDelivery): WebhookDelivery {
  return {
    ...delivery,
    createdAt: new Date(delivery.createdAt.getTime()),
    nextAttemptAt: delivery.nextAttemptAt && new Date(delivery.nextAttemptAt.getTime()),
  };
}

const newestFirst = <T extends { createdAt: Date; id: string }>(a: T, b: T) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1);

/**
 * {@link WebhookRepository} in this process's memory, for embedding and the core's tests. It keeps
 * endpoints and the deliveries queued through it (`enqueueTest`); it has no delivery worker and
 * no triggers, so changes of the in-memory repositories produce no events (the SQL adapters do:
 * migration 0044). Each method checks and writes with no await in between, so the cap holds.
 */
export class MemoryWebhookRepository implements WebhookRepository {
  private readonly webhooks = new Map<string, StoredWebhook>();
  private readonly deliveries = new Map<string, WebhookDelivery & { userId: string }>();

  async create(options: { webhook: Webhook; secret: string; max: number }): Promise<'created' | 'limit_reached'> {
    const count = [...this.webhooks.values()].filter((stored) => stored.webhook.userId === options.webhook.userId).length;
    if (count >= options.max) return 'limit_reached';
    if (this.webhooks.has(options.webhook.id)) throw new Error(`A webhook with id ${options.webhook.id} already exists.`);
    this.webhooks.set(options.webhook.id, { webhook: copyWebhook(options.webhook), secret: options.secret, previousSecret: null, previousSecretUntil: null });
    return 'created';
  }

  async list(userId: string): Promise<Webhook[]> {
    return [...this.webhooks.values()]
      .filter((stored) => stored.webhook.userId === userId)
      .map((stored) => copyWebhook(stored.webhook))
      .sort(newestFirst);
  }

  async find(options: { userId: string; id: string }): Promise<Webhook | undefined> {
    const stored = this.mine(options);
    return stored && copyWebhook(stored.webhook);
  }

  async update(options: { userId: string; id: string; changes: WebhookChanges; at: Date }): Promise<Webhook | undefined> {
    const stored = this.mine(options);
    if (!stored) return undefined;
    const { changes } = options;
    const webhook = stored.webhook;
    if (changes.url !== undefined) webhook.url = changes.url;
    if (changes.events !== undefined) webhook.events = [...changes.events];
    if (changes.description !== undefined) webhook.description = changes.description;
    if (changes.enabled !== undefined) {
      webhook.enabled = changes.enabled;
      webhook.disabledReason = null;
    }
    webhook.updatedAt = new Date(options.at.getTime());
    return copyWebhook(webhook);
  }

  async delete(options: { userId: string; id: string }): Promise<boolean> {
    if (!this.mine(options)) return false;
    this.webhooks.delete(options.id);
    for (const [id, delivery] of this.deliveries) if (delivery.webhookId === options.id) this.deliveries.delete(id);
    return true;
  }

  async rotateSecret(options: { userId: string; id: string; secret: string; previousUntil: Date; at: Date }): Promise<boolean> {
    const stored = this.mine(options);
    if (!stored) return false;
    stored.previousSecret = stored.secret;
    stored.previousSecretUntil = new Date(options.previousUntil.getTime());
    stored.secret = options.secret;
    stored.webhook.updatedAt = new Date(options.at.getTime());
    return true;
  }

  async enqueueTest(options: { userId: string; webhookId: string; deliveryId: string; at: Date }): Promise<void> {
    const at = new Date(options.at.getTime());
    this.deliveries.set(options.deliveryId, {
      id: options.deliveryId,
      webhookId: options.webhookId,
      userId: options.userId,
      eventType: WEBHOOK_TEST_EVENT,
      createdAt: at,
      attempts: 0,
      state: 'pending',
      lastStatus: null,
      lastError: null,
      durationMs: null,
      nextAttemptAt: at,
    });
  }

  async listDeliveries(options: { userId: string; webhookId: string; window: Window }): Promise<Paged<WebhookDelivery>> {
    const all = [...this.deliveries.values()].filter((d) => d.webhookId === options.webhookId && d.userId === options.userId).sort(newestFirst);
    const items = all.slice(options.window.offset, options.window.offset + options.window.limit).map(({ userId: _, ...delivery }) => copyDelivery(delivery));
    return { items, total: all.length };
  }

  async retryDelivery(options: { userId: string; webhookId: string; deliveryId: string; at: Date }): Promise<WebhookDelivery | undefined> {
    const delivery = this.deliveries.get(options.deliveryId);
    if (!delivery || delivery.webhookId !== options.webhookId || delivery.userId !== options.userId) return undefined;
    delivery.state = 'pending';
    delivery.nextAttemptAt = new Date(options.at.getTime());
    const { userId: _, ...view } = delivery;
    return copyDelivery(view);
  }

  private mine(options: { userId: string; id: string }): StoredWebhook | undefined {
    const stored = this.webhooks.get(options.id);
    return stored && stored.webhook.userId === options.userId ? stored : undefined;
  }
}
