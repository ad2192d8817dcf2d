import type { Passkey } from '../../../core/passkeys/passkey.js';
import type { SessionTokens } from '../../../core/accounts/session-issuer.js';
import type { User } from '../../../core/accounts/user.js';
import type { ApiKey } from '../../../core/api-keys/api-key.js';
import { LRUCache } from 'lru-cache';
import type { FileView } from '../../../core/files/file-view.js';
import type { FileUrls } from '../../../core/files/file-urls.js';
import { copyStoredFile, type StoredFile } from '../../../core/files/stored-file.js';
import { type MediaFacts, NO_MEDIA_FACTS } from '../../../core/media/media-facts.js';
import type { Settings } from '../../../core/settings/settings.js';
import type { ActivityLogEntry } from '../../../core/activity/activity-log.js';
import type { AccountView } from '../../../core/plans/account-policy.js';
import type { Usage } from '../../../core/plans/get-usage.js';
import type { Paged } from '../../../core/shared/pagination.js';
import { toIso } from '../../../core/shared/time.js';
import type { ShareView } from '../../../core/shares/create-share.js';
import type { Webhook, WebhookDelivery } from '../../../core/webhooks/webhook.js';
import type { WebhookEventView } from '../../../core/webhooks/webhook-event.js';

// Domain objects → JSON bodies (spec 2). Timestamps: ISO 8601 UTC with milliseconds and Z (toIso
// where a list has one per item).

/** User (spec 2.1); `full` adds created_at/updated_at (login only). */
export function userJson(user: Pick<User, 'id' | 'email'> & Partial<User>, full = false) {
  return full
    ? { id: user.id, email: user.email, created_at: user.createdAt?.toISOString(), updated_at: user.updatedAt?.toISOString() }
    : { id: user.id, email: user.email };
}

/** A passkey: id, name and dates; never its key material. */
export function passkeyJson(passkey: Passkey) {
  return { id: passkey.id, name: passkey.name, created_at: passkey.createdAt.toISOString(), last_used_at: passkey.lastUsedAt?.toISOString() ?? null };
}

/** Session (spec 2.2). */
export function sessionJson(session: SessionTokens) {
  return {
    access_token: session.accessToken,
    refresh_token: session.refreshToken,
    expires_in: session.expiresIn,
    expires_at: session.expiresAt,
    token_type: session.tokenType,
  };
}

/** API key (spec 2.3): with `key` in the create response, with `last_used_at` in lists. */
export function apiKeyJson(apiKey: ApiKey & { expired?: boolean }, extra: { key?: string; listed?: boolean } = {}) {
  return {
    id: apiKey.id,
    ...(extra.key === undefined ? {} : { key: extra.key }),
    key_prefix: apiKey.keyPrefix,
    name: apiKey.name,
    created_at: apiKey.createdAt.toISOString(),
    ...(extra.listed ? { last_used_at: apiKey.lastUsedAt?.toISOString() ?? null } : {}),
    scopes: [...apiKey.scopes],
    expires_at: apiKey.expiresAt?.toISOString() ?? null,
    expired: apiKey.expired ?? false,
  };
}

/** File object (spec 2.4), with its media facts (docs/media.md: null when unknown). */
export function fileJson({ file, urls, media = NO_MEDIA_FACTS }: FileView) {
  return {
    id: file.id,
    user_id: file.userId,
    file_id: file.fileId,
    name: file.name,
    content_type: file.contentType,
    size: file.size,
    public_url: urls.publicUrl,
    default_url: urls.defaultUrl,
    default_download_url: urls.defaultDownloadUrl,
    public_download_url: urls.publicDownloadUrl,
    view_url: urls.viewUrl,
    created_at: toIso(file.createdAt),
    is_public: file.isPublic,
    expires_at: file.expiresAt ? toIso(file.expiresAt) : null,
    width: media.width,
    height: media.height,
    duration_seconds: media.durationSeconds,
    thumbhash: media.thumbhash,
    metadata_removed: file.metadataRemoved ?? [],
    view_count: file.viewCount,
    download_count: file.downloadCount,
  };
}

/** File texts kept by {@link fileJsonText} at most: about 1 KB each (the text, a copy of the record). */
export const KEPT_FILE_TEXTS = 2_048;

/** What {@link fileJsonText} keeps of one file: the record and addresses it wrote, and its text up to `view_count`'s value. */
interface KeptFileText {
  file: StoredFile;
  urls: FileUrls;
  media: MediaFacts;
  head: string;
}

/** By record id; least recently used dropped first. Per process, and never stale: a kept text is used only for the very fields it was written from. */
const keptFileTexts = new LRUCache<string, KeptFileText>({ max: KEPT_FILE_TEXTS });

/**
 * `JSON.stringify(fileJson(view))`, the same text, from a kept copy when the file's record (every
 * member but its two read counts), addresses and media facts are those the kept text was written from; only the
 * counts, the object's last two members, are written anew. A listing is mostly the same files asked
 * again (a dashboard, a client polling, paging back): its body was a fifth of its CPU
 * (decision 0013, docs/decisions/). `test/apps/presenters.test.ts` checks that a change of
 * any member of the record or the addresses gives the new text.
 */
export function fileJsonText(view: FileView): string {
  const { file, urls, media = NO_MEDIA_FACTS } = view;
  let kept = keptFileTexts.get(file.id);
  if (kept === undefined || !sameRecord(kept.file, file) || !sameUrls(kept.urls, urls) || !sameMedia(kept.media, media)) {
    const text = JSON.stringify(fileJson({ file: { ...file, viewCount: 0, downloadCount: 0 }, urls, media }));
    // Counts last, as fileJson writes them; were they not, the text is written whole each time.
    if (!text.endsWith(ZERO_COUNTS)) return JSON.stringify(fileJson(view));
    kept = { file: copyStoredFile(file), urls: { ...urls }, media: { ...media }, head: text.slice(0, text.length - ZERO_COUNTS.length) };
    keptFileTexts.set(file.id, kept);
  }
  return `${kept.head},"view_count":${jsonNumber(file.viewCount)},"download_count":${jsonNumber(file.downloadCount)}}`;
}

/** The end of fileJson's text for a file never read: its two read counts, the object's last members. */
export const ZERO_COUNTS = ',"view_count":0,"download_count":0}';

/** A number as JSON.stringify writes it: finite numbers as String does, others as `null`. */
function jsonNumber(value: number): string {
  return Number.isFinite(value) ? String(value) : 'null';
}

/** Every member of two records is the same, but the read counts. */
function sameRecord(a: StoredFile, b: StoredFile): boolean {
  return (
    a.id === b.id &&
    a.userId === b.userId &&
    a.fileId === b.fileId &&
    a.name === b.name &&
    a.contentType === b.contentType &&
    a.size === b.size &&
    a.sha256 === b.sha256 &&
    a.isPublic === b.isPublic &&
    a.createdAt.getTime() === b.createdAt.getTime() &&
    a.blobKey === b.blobKey &&
    (a.expiresAt === null ? b.expiresAt === null : b.expiresAt !== null && a.expiresAt.getTime() === b.expiresAt.getTime()) &&
    (a.metadataRemoved ?? []).join() === (b.metadataRemoved ?? []).join()
  );
}

/** The four media facts are the same (a file's facts arrive after its upload). */
function sameMedia(a: MediaFacts, b: MediaFacts): boolean {
  return a.width === b.width && a.height === b.height && a.durationSeconds === b.durationSeconds && a.thumbhash === b.thumbhash;
}

/**
 * The five addresses are the same. Those of core's FileAddresses are the very strings kept from the
 * last time while a file's addresses have not changed, so each comparison is then one of identity.
 */
function sameUrls(a: FileUrls, b: FileUrls): boolean {
  return (
    a.publicUrl === b.publicUrl &&
    a.publicDownloadUrl === b.publicDownloadUrl &&
    a.defaultUrl === b.defaultUrl &&
    a.defaultDownloadUrl === b.defaultDownloadUrl &&
    a.viewUrl === b.viewUrl
  );
}

/**
 * The body of `GET /files` (spec 4.9) as UTF-8 JSON: `{ files, total, total_relation, page, limit }`,
 * the bytes `JSON.stringify` would give, each file's text from {@link fileJsonText}.
 */
export function filePageJson(page: Paged<FileView>, window: { page: number; limit: number }): Buffer {
  let files = '';
  for (const view of page.items) files += files === '' ? fileJsonText(view) : `,${fileJsonText(view)}`;
  const rest = JSON.stringify({ total: page.total, total_relation: page.totalRelation ?? 'eq', page: window.page, limit: window.limit });
  return Buffer.from(`{"files":[${files}],${rest.slice(1)}`, 'utf8');
}

/** Settings object (spec 2.5), with the custom domain's DNS records and provider errors. */
export function settingsJson(settings: Settings) {
  const domain = settings.customDomain;
  return {
    public_url_base: settings.publicUrlBase,
    custom_domain: domain && {
      hostname: domain.hostname,
      verification_status: domain.verificationStatus,
      ssl_status: domain.sslStatus,
      updated_at: domain.updatedAt.toISOString(),
      dns_records: domain.dnsRecords.map((r) => ({ type: r.type, name: r.name, value: r.value, purpose: r.purpose })),
      errors: domain.errors,
    },
    max_upload_size_bytes: settings.maxUploadSizeBytes,
    image_metadata: settings.imageMetadata,
  };
}

/** Usage object (spec 2.6). */
export function usageJson(usage: Usage) {
  return {
    storage_bytes: usage.storageBytes,
    files_count: usage.filesCount,
    origin_reads: usage.originReads,
    image_ops: usage.imageOps,
    period_start: usage.periodStart.toISOString(),
    period_end: usage.periodEnd.toISOString(),
  };
}

/** Log entry (spec 2.7). */
export function logEntryJson(entry: ActivityLogEntry) {
  return {
    id: entry.id,
    method: entry.method,
    path: entry.path,
    status_code: entry.statusCode,
    request_size_bytes: entry.requestSizeBytes,
    created_at: toIso(entry.createdAt),
    metadata: entry.metadata,
  };
}

/**
 * One account as every interface presents it: the API's `GET /profile` ({@link profileJson}) and
 * the admin CLI's `users show` / `users list --json` (apps/cli/account-output.ts) both build on this
 * function, so they cannot drift apart. Shape:
 * `{ user: { id, email, created_at, email_confirmed_at },
 *    plan: { name, trial_ends_at, trial_active, storage_limit_bytes, file_count_limit, max_upload_size_bytes, image_ops_limit },
 *    subscription: { status, subscription_canceled_at, access_until }, upload_limit_bytes }`;
 * timestamps ISO 8601 UTC or null, sizes in bytes, `image_ops_limit` per billing period or null (unlimited).
 */
export function accountJson({ user, standing, uploadLimitBytes }: AccountView) {
  const iso = (date: Date | null) => date?.toISOString() ?? null;
  return {
    user: { id: user.id, email: user.email, created_at: user.createdAt.toISOString(), email_confirmed_at: iso(user.emailConfirmedAt) },
    plan: {
      name: standing.plan.name,
      trial_ends_at: iso(standing.trialEndsAt),
      trial_active: standing.trialActive,
      storage_limit_bytes: standing.plan.storageLimitBytes,
      file_count_limit: standing.plan.fileCountLimit,
      max_upload_size_bytes: standing.plan.maxUploadSizeBytes,
      image_ops_limit: standing.plan.imageOpsLimit ?? null,
    },
    subscription: { status: standing.status, subscription_canceled_at: iso(standing.subscriptionCanceledAt), access_until: iso(standing.accessUntil) },
    upload_limit_bytes: uploadLimitBytes,
  };
}

/** Profile (spec 2.8): {@link accountJson}, with the billing fields also at the top level as the spec names them. */
export function profileJson(view: AccountView) {
  const { user, plan, subscription, upload_limit_bytes } = accountJson(view);
  return {
    user,
    role: view.user.role,
    plan,
    subscription,
    subscription_canceled_at: subscription.subscription_canceled_at,
    access_until: subscription.access_until,
    upload_limit_bytes,
  };
}

/** Share object (docs/private-files.md). */
export function shareJson({ share, url }: ShareView) {
  return {
    share_id: share.id,
    url,
    file_id: share.fileId,
    has_password: share.passwordHash !== null,
    expires_at: share.expiresAt?.toISOString() ?? null,
    max_downloads: share.maxDownloads,
    downloads: share.downloads,
    created_at: share.createdAt.toISOString(),
  };
}

/** Webhook endpoint (docs/webhooks.md); with `secret` only where it is shown once (creation, rotation). */
export function webhookJson(webhook: Webhook, extra: { secret?: string } = {}) {
  return {
    id: webhook.id,
    url: webhook.url,
    events: [...webhook.events],
    description: webhook.description,
    enabled: webhook.enabled,
    disabled_reason: webhook.disabledReason,
    created_at: webhook.createdAt.toISOString(),
    updated_at: webhook.updatedAt.toISOString(),
    ...(extra.secret === undefined ? {} : { secret: extra.secret }),
  };
}

/** One entry of a webhook's delivery log (docs/webhooks.md). */
export function webhookDeliveryJson(delivery: WebhookDelivery) {
  return {
    id: delivery.id,
    event_type: delivery.eventType,
    created_at: delivery.createdAt.toISOString(),
    state: delivery.state,
    attempts: delivery.attempts,
    last_status: delivery.lastStatus,
    last_error: delivery.lastError,
    duration_ms: delivery.durationMs,
    next_attempt_at: delivery.nextAttemptAt?.toISOString() ?? null,
  };
}

/**
 * The body of a webhook delivery (docs/webhooks.md): `{ type, timestamp, data }`, `data` the object
 * the API returns for the subject (File, Share, Settings), with `reason` added to a deleted File.
 */
export function webhookPayloadJson(view: WebhookEventView) {
  const data = (() => {
    switch (view.kind) {
      case 'file':
        return view.reason === undefined ? fileJson(view.file) : { ...fileJson(view.file), reason: view.reason };
      case 'share':
        return shareJson(view.share);
      case 'settings':
        return settingsJson(view.settings);
      case 'quota':
        return { resource: view.quota.resource, used: view.quota.used, limit: view.quota.limit };
      case 'test':
        return { webhook_id: view.webhookId, message: 'This is a test event sent from Hangar.' };
    }
  })();
  return { type: view.type, timestamp: view.occurredAt.toISOString(), data };
}
