import type { Clock } from '../shared/clock.js';
import { DomainError } from '../shared/errors.js';
import type { IdGenerator } from '../shared/id-generator.js';
import { type PageRequest, type Paged, toWindow } from '../shared/pagination.js';
import { type ParsedUrl, parseUrl } from '../shared/web-globals.js';
import {
  DEFAULT_WEBHOOKS_PER_ACCOUNT,
  MAX_WEBHOOK_DESCRIPTION_LENGTH,
  MAX_WEBHOOK_URL_LENGTH,
  PREVIOUS_SECRET_GRACE_MS,
  type Webhook,
  type WebhookChanges,
  type WebhookDelivery,
  WEBHOOK_EVENT_TYPES,
  type WebhookEventType,
} from './webhook.js';
import type { WebhookRepository } from './webhook-repository.js';
import type { WebhookTargets } from './webhook-targets.js';

/** Options of the webhook use cases (configuration: WEBHOOKS_PER_ACCOUNT, WEBHOOK_ALLOW_HTTP). */
export interface WebhookOptions {
  /** Endpoints per account; default {@link DEFAULT_WEBHOOKS_PER_ACCOUNT}. */
  maxPerAccount?: number;
  /** Accept `http://` URLs (a LAN, tests); default false: `https://` only. */
  allowHttp?: boolean;
}

/** Dependencies shared by the webhook use cases. */
export interface WebhookDeps {
  webhooks: WebhookRepository;
  targets: WebhookTargets;
  ids: IdGenerator;
  clock: Clock;
  options?: WebhookOptions;
}

/** A new endpoint and its signing secret, shown this once. */
export interface CreatedWebhook {
  webhook: Webhook;
  /** `whsec_` + base64 (Standard Webhooks): the receiver's verification key. */
  secret: string;
}

/** The one WEBHOOK_NOT_FOUND error (also for another account's endpoint). */
export function webhookNotFound(): DomainError {
  return new DomainError('WEBHOOK_NOT_FOUND', 'No webhook with this id on your account.');
}

/**
 * A new signing secret: `whsec_` + 44 base62 characters. Base62 characters are base64 characters and
 * 44 is a multiple of 4, so the part after the prefix is valid base64 (33 bytes, about 262 random bits),
 * as the Standard Webhooks libraries expect.
 */
function newSecret(ids: IdGenerator): string {
  return `whsec_${ids.base62(44)}`;
}

/**
 * Checks an endpoint URL: at most {@link MAX_WEBHOOK_URL_LENGTH} characters, absolute, `https:` (or
 * `http:` when allowed), no user name or password in it, no fragment; then the address rules of
 * {@link WebhookTargets} (docs/webhooks.md "Safe targets").
 * @returns the URL as normalised by the WHATWG parser
 * @throws DomainError VALIDATION_FAILED (400) for a malformed URL, WEBHOOK_URL_REFUSED (400) for a refused target
 */
async function checkUrl(deps: WebhookDeps, input: string): Promise<string> {
  const invalid = (message: string) => new DomainError('VALIDATION_FAILED', message, [{ path: '/url', message }]);
  if (input.length > MAX_WEBHOOK_URL_LENGTH) throw invalid(`The URL is longer than ${MAX_WEBHOOK_URL_LENGTH} characters.`);
  let url: ParsedUrl;
  try {
    url = parseUrl(input);
  } catch {
    throw invalid('The URL is not an absolute URL.');
  }
  const allowHttp = deps.options?.allowHttp ?? false;
  if (url.protocol !== 'https:' && !(allowHttp && url.protocol === 'http:')) {
    throw new DomainError('WEBHOOK_URL_REFUSED', allowHttp ? 'A webhook URL must start with https:// or http://.' : 'A webhook URL must start with https://.', {
      reason: 'scheme',
    });
  }
  if (url.username !== '' || url.password !== '') throw invalid('The URL must not carry a user name or password.');
  if (url.hash !== '') throw invalid('The URL must not have a fragment (#…).');
  await deps.targets.check(url);
  return url.href;
}

/**
 * The subscribed events, each once, in the order of {@link WEBHOOK_EVENT_TYPES}.
 * @throws DomainError VALIDATION_FAILED (400) for an unknown event or an empty list
 */
function normaliseEvents(events: readonly string[]): WebhookEventType[] {
  const unknown = events.find((event) => !(WEBHOOK_EVENT_TYPES as readonly string[]).includes(event));
  if (unknown !== undefined) {
    throw new DomainError('VALIDATION_FAILED', `Unknown event ${JSON.stringify(unknown)}; events are ${WEBHOOK_EVENT_TYPES.join(', ')}.`, [
      { path: '/events', message: 'Expected known event types' },
    ]);
  }
  if (events.length === 0)
    throw new DomainError('VALIDATION_FAILED', 'A webhook needs at least one event.', [{ path: '/events', message: 'Expected at least one event' }]);
  return WEBHOOK_EVENT_TYPES.filter((event) => events.includes(event));
}

/** @throws DomainError VALIDATION_FAILED (400) for a description longer than {@link MAX_WEBHOOK_DESCRIPTION_LENGTH} */
function checkDescription(description: string | null | undefined): string | null {
  const text = description?.trim() ?? '';
  if (text.length > MAX_WEBHOOK_DESCRIPTION_LENGTH) {
    throw new DomainError('VALIDATION_FAILED', `A description has at most ${MAX_WEBHOOK_DESCRIPTION_LENGTH} characters.`, [
      { path: '/description', message: 'Too long' },
    ]);
  }
  return text === '' ? null : text;
}

/**
 * `POST /webhooks`: a new endpoint of the account, enabled, with a new signing secret shown once.
 * @throws DomainError VALIDATION_FAILED / WEBHOOK_URL_REFUSED (400), WEBHOOK_LIMIT_REACHED (409) at the cap (WEBHOOKS_PER_ACCOUNT)
 */
export class CreateWebhook {
  constructor(private readonly deps: WebhookDeps) {}

  async execute(input: { userId: string; url: string; events: readonly string[]; description?: string | null }): Promise<CreatedWebhook> {
    const events = normaliseEvents(input.events);
    const description = checkDescription(input.description);
    const url = await checkUrl(this.deps, input.url);
    const now = this.deps.clock.now();
    const webhook: Webhook = {
      id: `wh_${this.deps.ids.uuid().replaceAll('-', '')}`,
      userId: input.userId,
      url,
      events,
      description,
      enabled: true,
      disabledReason: null,
      createdAt: now,
      updatedAt: now,
    };
    const secret = newSecret(this.deps.ids);
    const max = this.deps.options?.maxPerAccount ?? DEFAULT_WEBHOOKS_PER_ACCOUNT;
    if ((await this.deps.webhooks.create({ webhook, secret, max })) === 'limit_reached') {
      throw new DomainError('WEBHOOK_LIMIT_REACHED', `An account has at most ${max} webhooks; delete one first.`, { max });
    }
    return { webhook, secret };
  }
}

/** `GET /webhooks`: the account's endpoints, newest first (never their secrets). */
export class ListWebhooks {
  constructor(private readonly deps: Pick<WebhookDeps, 'webhooks'>) {}

  async execute(input: { userId: string }): Promise<Webhook[]> {
    return this.deps.webhooks.list(input.userId);
  }
}

/** `GET /webhooks/:id`. @throws DomainError WEBHOOK_NOT_FOUND (404), also for another account's endpoint */
export class GetWebhook {
  constructor(private readonly deps: Pick<WebhookDeps, 'webhooks'>) {}

  async execute(input: { userId: string; id: string }): Promise<Webhook> {
    const webhook = await this.deps.webhooks.find(input);
    if (!webhook) throw webhookNotFound();
    return webhook;
  }
}

/**
 * `PATCH /webhooks/:id`: changes URL, events, description or enabled; a new URL is checked as at creation.
 * @throws DomainError VALIDATION_FAILED / WEBHOOK_URL_REFUSED (400), WEBHOOK_NOT_FOUND (404)
 */
export class UpdateWebhook {
  constructor(private readonly deps: WebhookDeps) {}

  async execute(input: {
    userId: string;
    id: string;
    url?: string;
    events?: readonly string[];
    description?: string | null;
    enabled?: boolean;
  }): Promise<Webhook> {
    const changes: WebhookChanges = {};
    if (input.events !== undefined) changes.events = normaliseEvents(input.events);
    if (input.description !== undefined) changes.description = checkDescription(input.description);
    if (input.enabled !== undefined) changes.enabled = input.enabled;
    if (!(await this.deps.webhooks.find(input))) throw webhookNotFound();
    if (input.url !== undefined) changes.url = await checkUrl(this.deps, input.url);
    const webhook = await this.deps.webhooks.update({ userId: input.userId, id: input.id, changes, at: this.deps.clock.now() });
    if (!webhook) throw webhookNotFound();
    return webhook;
  }
}

/** `DELETE /webhooks/:id`: removes the endpoint and its pending deliveries. @throws DomainError WEBHOOK_NOT_FOUND (404) */
export class DeleteWebhook {
  constructor(private readonly deps: Pick<WebhookDeps, 'webhooks'>) {}

  async execute(input: { userId: string; id: string }): Promise<void> {
    if (!(await this.deps.webhooks.delete(input))) throw webhookNotFound();
  }
}

/**
 * `POST /webhooks/:id/rotate-secret`: a new signing secret, shown once; the old one keeps signing
 * beside it for 24 h ({@link PREVIOUS_SECRET_GRACE_MS}; Standard Webhooks allows several signatures).
 * @throws DomainError WEBHOOK_NOT_FOUND (404)
 */
export class RotateWebhookSecret {
  constructor(private readonly deps: WebhookDeps) {}

  async execute(input: { userId: string; id: string }): Promise<CreatedWebhook> {
    const now = this.deps.clock.now();
    const secret = newSecret(this.deps.ids);
    const rotated = await this.deps.webhooks.rotateSecret({
      userId: input.userId,
      id: input.id,
      secret,
      previousUntil: new Date(now.getTime() + PREVIOUS_SECRET_GRACE_MS),
      at: now,
    });
    const webhook = rotated ? await this.deps.webhooks.find(input) : undefined;
    if (!webhook) throw webhookNotFound();
    return { webhook, secret };
  }
}

/**
 * `POST /webhooks/:id/test`: queues a `webhook.test` event for the endpoint, due at once (sent even
 * when the endpoint is disabled, so its owner can check it before turning it on).
 * @returns the `webhook-id` of the delivery
 * @throws DomainError WEBHOOK_NOT_FOUND (404)
 */
export class SendTestWebhook {
  constructor(private readonly deps: WebhookDeps) {}

  async execute(input: { userId: string; id: string }): Promise<{ deliveryId: string }> {
    if (!(await this.deps.webhooks.find(input))) throw webhookNotFound();
    const deliveryId = `msg_${this.deps.ids.uuid().replaceAll('-', '')}`;
    await this.deps.webhooks.enqueueTest({ userId: input.userId, webhookId: input.id, deliveryId, at: this.deps.clock.now() });
    return { deliveryId };
  }
}

/**
 * `GET /webhooks/:id/deliveries`: the endpoint's delivery log, newest first.
 * @throws DomainError WEBHOOK_NOT_FOUND (404), VALIDATION_FAILED (400) for a page out of bounds
 */
export class ListWebhookDeliveries {
  constructor(private readonly deps: Pick<WebhookDeps, 'webhooks'>) {}

  async execute(input: { userId: string; id: string } & PageRequest): Promise<Paged<WebhookDelivery>> {
    const window = toWindow(input);
    if (!(await this.deps.webhooks.find(input))) throw webhookNotFound();
    return this.deps.webhooks.listDeliveries({ userId: input.userId, webhookId: input.id, window });
  }
}

/**
 * `POST /webhooks/:id/deliveries/:delivery_id/retry`: makes the delivery due now, with the same
 * `webhook-id` (a delivered or failed one is sent again).
 * @throws DomainError WEBHOOK_NOT_FOUND, WEBHOOK_DELIVERY_NOT_FOUND (404)
 */
export class RetryWebhookDelivery {
  constructor(private readonly deps: Pick<WebhookDeps, 'webhooks' | 'clock'>) {}

  async execute(input: { userId: string; id: string; deliveryId: string }): Promise<WebhookDelivery> {
    if (!(await this.deps.webhooks.find(input))) throw webhookNotFound();
    const delivery = await this.deps.webhooks.retryDelivery({
      userId: input.userId,
      webhookId: input.id,
      deliveryId: input.deliveryId,
      at: this.deps.clock.now(),
    });
    if (!delivery) throw new DomainError('WEBHOOK_DELIVERY_NOT_FOUND', 'This webhook has no delivery with this id.');
    return delivery;
  }
}
