import type { Paged, Window } from '../shared/pagination.js';
import type { Webhook, WebhookChanges, WebhookDelivery } from './webhook.js';

/** Port: webhook endpoints and their deliveries, on the database whose changes they report. */
export interface WebhookRepository {
  /**
   * Stores `webhook` with its signing `secret`, unless the account already has `max` endpoints
   * (counted and written atomically, so processes creating at once cannot pass the cap).
   */
  create(options: { webhook: Webhook; secret: string; max: number }): Promise<'created' | 'limit_reached'>;
  /** The account's endpoints, newest first (at most the cap, so never paged). */
  list(userId: string): Promise<Webhook[]>;
  /** One of the account's endpoints; undefined for another account's or an unknown id. */
  find(options: { userId: string; id: string }): Promise<Webhook | undefined>;
  /** Applies `changes` (`at`: the new `updatedAt`); undefined when the account has no such endpoint. */
  update(options: { userId: string; id: string; changes: WebhookChanges; at: Date }): Promise<Webhook | undefined>;
  /** Removes the endpoint and its deliveries. @returns false when the account has no such endpoint */
  delete(options: { userId: string; id: string }): Promise<boolean>;
  /** Replaces the secret; the old one keeps signing until `previousUntil`. @returns false when not found */
  rotateSecret(options: { userId: string; id: string; secret: string; previousUntil: Date; at: Date }): Promise<boolean>;
  /** Queues `webhook.test` for one endpoint, due at once, with `deliveryId` as its `webhook-id`. */
  enqueueTest(options: { userId: string; webhookId: string; deliveryId: string; at: Date }): Promise<void>;
  /** The endpoint's deliveries, newest first. */
  listDeliveries(options: { userId: string; webhookId: string; window: Window }): Promise<Paged<WebhookDelivery>>;
  /**
   * Makes a delivery due again at `at` (a failed one included), with the same `webhook-id`.
   * @returns the delivery as it is now; undefined when the account's endpoint has no such delivery
   */
  retryDelivery(options: { userId: string; webhookId: string; deliveryId: string; at: Date }): Promise<WebhookDelivery | undefined>;
}
