/**
 * The events an endpoint may subscribe to (docs/webhooks.md). `webhook.test` is sent only by
 * `POST /webhooks/:id/test`, whatever the endpoint's subscriptions.
 */
export const WEBHOOK_EVENT_TYPES = [
  'file.created',
  'file.updated',
  'file.deleted',
  'share.created',
  'share.revoked',
  'share.exhausted',
  'custom_domain.active',
  'custom_domain.failed',
  'quota.warning',
  'quota.reached',
] as const;
/** One of {@link WEBHOOK_EVENT_TYPES}. */
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
/** The event of `POST /webhooks/:id/test`. */
export const WEBHOOK_TEST_EVENT = 'webhook.test';

/** Why a file went: `DELETE /files/:id`, `POST /files/bulk-delete`, its expiry, or its account's deletion. */
export type FileDeletionReason = 'deleted' | 'bulk_deleted' | 'expired' | 'account_deleted';

/** Endpoints per account unless configured (`WEBHOOKS_PER_ACCOUNT`). */
export const DEFAULT_WEBHOOKS_PER_ACCOUNT = 10;
/** Longest endpoint URL, in characters. */
export const MAX_WEBHOOK_URL_LENGTH = 2048;
/** Longest description, in characters. */
export const MAX_WEBHOOK_DESCRIPTION_LENGTH = 256;
/** How long the secret before a rotation keeps signing beside the new one, in ms (24 h). */
export const PREVIOUS_SECRET_GRACE_MS = 24 * 60 * 60 * 1000;

/** An account's webhook endpoint (docs/webhooks.md). Its secret is not part of it (see {@link WebhookRepository.create}). */
export interface Webhook {
  /** `wh_` + 32 hex characters. */
  id: string;
  userId: string;
  /** `https://…`, checked by {@link WebhookTargets} (or `http://` when the service allows it). */
  url: string;
  /** Subscribed events, each once, in the order of {@link WEBHOOK_EVENT_TYPES}. */
  events: WebhookEventType[];
  description: string | null;
  enabled: boolean;
  /** Why the service turned the endpoint off (`failing`: no success for 5 days); null otherwise. */
  disabledReason: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** What {@link WebhookRepository.update} changes; an absent member stays as it is. */
export interface WebhookChanges {
  url?: string;
  events?: WebhookEventType[];
  description?: string | null;
  /** `true` also clears `disabledReason` and the failure streak. */
  enabled?: boolean;
}

/** One event for one endpoint, as the delivery log shows it (`GET /webhooks/:id/deliveries`). */
export interface WebhookDelivery {
  /** The `webhook-id` header, the same on every attempt (receivers deduplicate by it). */
  id: string;
  webhookId: string;
  eventType: string;
  /** When the event happened. */
  createdAt: Date;
  /** Attempts made so far. */
  attempts: number;
  /** `pending` (waiting or being sent), `delivered` (a 2xx answer) or `failed` (given up). */
  state: 'pending' | 'delivered' | 'failed';
  /** HTTP status of the last attempt; null before the first or when it got no answer. */
  lastStatus: number | null;
  lastError: string | null;
  /** Duration of the last attempt, in ms. */
  durationMs: number | null;
  /** When the next attempt is due; null once delivered or failed. */
  nextAttemptAt: Date | null;
}
