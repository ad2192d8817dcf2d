import type { FileView } from '../files/file-view.js';
import { FileAddresses } from '../files/file-view.js';
import type { FileOptions } from '../files/file-options.js';
import type { StoredFile } from '../files/stored-file.js';
import type { GetSettings } from '../settings/get-settings.js';
import type { Settings } from '../settings/settings.js';
import { type ShareView, shareView } from '../shares/create-share.js';
import type { Share } from '../shares/share.js';
import type { FileDeletionReason, WEBHOOK_TEST_EVENT } from './webhook.js';

/** A limit of the account's plan its use passed: 80 % of it (`quota.warning`) or all of it (`quota.reached`). */
export interface QuotaCrossing {
  resource: 'storage' | 'files';
  /** Bytes stored and reserved, or files stored and reserved, after the change. */
  used: number;
  /** The plan's limit (bytes or files). */
  limit: number;
}

/** What happened, as the delivery worker read it from the outbox row's snapshot (docs/webhooks.md). */
export type WebhookEvent = { userId: string; occurredAt: Date } & (
  | { type: 'file.created' | 'file.updated'; file: StoredFile }
  | { type: 'file.deleted'; file: StoredFile; reason: FileDeletionReason }
  | { type: 'share.created' | 'share.revoked' | 'share.exhausted'; share: Share }
  | { type: 'custom_domain.active' | 'custom_domain.failed' }
  | { type: 'quota.warning' | 'quota.reached'; quota: QuotaCrossing }
  | { type: typeof WEBHOOK_TEST_EVENT; webhookId: string }
);

/** An event with the objects the API returns for it: the payload's `data` before it is written as JSON. */
export type WebhookEventView = { type: WebhookEvent['type']; occurredAt: Date } & (
  | { kind: 'file'; file: FileView; reason?: FileDeletionReason }
  | { kind: 'share'; share: ShareView }
  | { kind: 'settings'; settings: Settings }
  | { kind: 'quota'; quota: QuotaCrossing }
  | { kind: 'test'; webhookId: string }
);

/**
 * Turns an event into the objects the API shows for it: a File with its addresses (as `GET /files/:id`
 * would have answered at the time of the event), a Share with its link, or the account's Settings
 * (custom domain events: the domain's state is part of them, read when the event is delivered).
 * @throws DomainError USER_NOT_FOUND (404) for a custom domain event of an account deleted since
 */
export class ViewWebhookEvent {
  constructor(private readonly deps: { addresses: FileAddresses; getSettings: GetSettings; options: Pick<FileOptions, 'publicContentUrl'> }) {}

  async execute(event: WebhookEvent): Promise<WebhookEventView> {
    const base = { type: event.type, occurredAt: event.occurredAt };
    switch (event.type) {
      case 'file.created':
      case 'file.updated':
        return { ...base, kind: 'file', file: (await this.deps.addresses.views(event.userId, [event.file]))[0] };
      case 'file.deleted':
        return { ...base, kind: 'file', file: (await this.deps.addresses.views(event.userId, [event.file]))[0], reason: event.reason };
      case 'share.created':
      case 'share.revoked':
      case 'share.exhausted':
        return { ...base, kind: 'share', share: shareView(event.share, this.deps.options) };
      case 'custom_domain.active':
      case 'custom_domain.failed':
        return { ...base, kind: 'settings', settings: await this.deps.getSettings.execute({ userId: event.userId }) };
      case 'quota.warning':
      case 'quota.reached':
        return { ...base, kind: 'quota', quota: event.quota };
      default:
        return { ...base, kind: 'test', webhookId: event.webhookId };
    }
  }
}
