import { Type } from '@sinclair/typebox';
import type { Hangar } from '../../../core/hangar.js';
import { MAX_WEBHOOK_DESCRIPTION_LENGTH, MAX_WEBHOOK_URL_LENGTH, WEBHOOK_EVENT_TYPES } from '../../../core/webhooks/webhook.js';
import { defineRoute, type Route } from '../../http/route.js';
import { webhookDeliveryJson, webhookJson } from '../../http/presenters/presenters.js';
import { FileBody, Paged, PageQuery, SettingsBody } from '../schemas.js';
import { errors } from '../../http/error-body.js';
import { ShareBody } from './sharing.js';

const Timestamp = Type.String({ format: 'date-time' });
const EventType = Type.Union(WEBHOOK_EVENT_TYPES.map((event) => Type.Literal(event)));

/** A webhook endpoint; `secret` only in the answers of creation and rotation. */
export const WebhookBody = Type.Object(
  {
    id: Type.String(),
    url: Type.String(),
    events: Type.Array(EventType),
    description: Type.Union([Type.String(), Type.Null()]),
    enabled: Type.Boolean(),
    disabled_reason: Type.Union([Type.String(), Type.Null()], {
      description: '`failing` when Hangar turned the endpoint off after 5 days without a successful delivery',
    }),
    created_at: Timestamp,
    updated_at: Timestamp,
    secret: Type.Optional(Type.String({ description: 'The signing secret (`whsec_…`); shown only here' })),
  },
  { $id: 'Webhook' },
);

/** One entry of the delivery log. */
export const WebhookDeliveryBody = Type.Object(
  {
    id: Type.String({ description: 'The `webhook-id` header, the same on every attempt' }),
    event_type: Type.String(),
    created_at: Timestamp,
    state: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')]),
    attempts: Type.Integer(),
    last_status: Type.Union([Type.Integer(), Type.Null()]),
    last_error: Type.Union([Type.String(), Type.Null()]),
    duration_ms: Type.Union([Type.Integer(), Type.Null()]),
    next_attempt_at: Type.Union([Timestamp, Type.Null()]),
  },
  { $id: 'WebhookDelivery' },
);

/** What each event's `data` is, and when the event is sent (docs/webhooks.md). */
const EVENT_DATA: Record<(typeof WEBHOOK_EVENT_TYPES)[number] | 'webhook.test', { data: ReturnType<typeof Type.Object> | typeof FileBody; when: string }> = {
  'file.created': { data: FileBody, when: 'A file was stored: an upload, a completed resumable upload, a signed upload.' },
  'file.updated': { data: FileBody, when: 'A file’s name, visibility or expiry changed (the File after the change).' },
  'file.deleted': {
    data: Type.Composite([
      FileBody,
      Type.Object({ reason: Type.Union(['deleted', 'bulk_deleted', 'expired', 'account_deleted'].map((r) => Type.Literal(r))) }),
    ]),
    when: 'A file was deleted (the File as it was, with `reason`).',
  },
  'share.created': { data: ShareBody, when: 'A share link was created.' },
  'share.revoked': { data: ShareBody, when: 'A share link was revoked, or went with its file.' },
  'share.exhausted': { data: ShareBody, when: 'A share link served its last allowed download.' },
  'custom_domain.active': { data: SettingsBody, when: 'The custom domain (hostname and certificate) became active (the account’s Settings).' },
  'custom_domain.failed': { data: SettingsBody, when: 'The custom domain failed verification (the account’s Settings).' },
  'quota.warning': {
    data: Type.Object({ resource: Type.Union([Type.Literal('storage'), Type.Literal('files')]), used: Type.Integer(), limit: Type.Integer() }),
    when: 'Storage or the file count passed 80 % of the plan’s limit (once per crossing).',
  },
  'quota.reached': {
    data: Type.Object({ resource: Type.Union([Type.Literal('storage'), Type.Literal('files')]), used: Type.Integer(), limit: Type.Integer() }),
    when: 'Storage or the file count reached the plan’s limit.',
  },
  'webhook.test': { data: Type.Object({ webhook_id: Type.String(), message: Type.String() }), when: 'Sent by POST /webhooks/{id}/test.' },
};

/**
 * The payload of every event as an OpenAPI component (`WebhookEvent_file_created`, …): the body Hangar
 * POSTs, `{ type, timestamp, data }`, signed per Standard Webhooks. The document is OpenAPI 3.0, which
 * has no `webhooks` section: `POST /webhooks` declares them as its callback (one of these bodies).
 */
export const WEBHOOK_EVENT_SCHEMAS: Readonly<Record<string, ReturnType<typeof Type.Object>>> = Object.fromEntries(
  Object.entries(EVENT_DATA).map(([type, { data, when }]) => [
    `WebhookEvent_${type.replace('.', '_')}`,
    Type.Object(
      { type: Type.Literal(type), timestamp: Timestamp, data },
      {
        $id: `WebhookEvent_${type.replace('.', '_')}`,
        description: `Webhook \`${type}\`: ${when} Headers: webhook-id, webhook-timestamp, webhook-signature (Standard Webhooks).`,
      },
    ),
  ]),
);

const manage = { scopes: ['webhooks:manage'] } as const;
const Id = Type.Object({ id: Type.String({ maxLength: 64 }) });
const Url = Type.String({ maxLength: MAX_WEBHOOK_URL_LENGTH, description: '`https://…` resolving to public addresses only' });
const Events = Type.Array(Type.String({ maxLength: 64 }), { minItems: 1, maxItems: 32, description: `Any of ${WEBHOOK_EVENT_TYPES.join(', ')}` });
const Description = Type.Union([Type.String({ maxLength: MAX_WEBHOOK_DESCRIPTION_LENGTH }), Type.Null()]);

/** Webhook endpoints and their delivery log (docs/webhooks.md). */
export function webhookRoutes(hangar: Hangar): Route[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/webhooks',
      operationId: 'createWebhook',
      tag: 'webhooks',
      auth: manage,
      summary: 'Add a webhook endpoint; its signing secret is returned only here',
      description: 'The URL must be `https://` and resolve to public addresses only. Events are signed per Standard Webhooks (docs/webhooks.md).',
      errorCodes: ['WEBHOOK_URL_REFUSED', 'WEBHOOK_LIMIT_REACHED'],
      body: Type.Object({ url: Url, events: Events, description: Type.Optional(Description) }),
      responses: { 201: Type.Object({ webhook: WebhookBody }), ...errors(400, 401, 403, 409) },
      callback: {
        name: 'event',
        expression: '{$request.body#/url}',
        body: Type.Union(Object.values(WEBHOOK_EVENT_SCHEMAS)),
        description:
          'Each subscribed event, POSTed with the headers webhook-id (the same on every retry), webhook-timestamp and webhook-signature (Standard Webhooks, docs/webhooks.md).',
      },
      handler: async ({ ctx, body, principal }) => {
        const { webhook, secret } = await hangar.createWebhook.execute({
          userId: principal.userId,
          url: body.url,
          events: body.events,
          description: body.description,
        });
        ctx.status = 201;
        ctx.body = { webhook: webhookJson(webhook, { secret }) };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/webhooks',
      operationId: 'listWebhooks',
      tag: 'webhooks',
      auth: manage,
      summary: 'Your webhook endpoints, newest first',
      responses: { 200: Type.Object({ webhooks: Type.Array(WebhookBody) }), ...errors(401, 403) },
      handler: async ({ ctx, principal }) => {
        ctx.body = { webhooks: (await hangar.listWebhooks.execute({ userId: principal.userId })).map((webhook) => webhookJson(webhook)) };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/webhooks/:id',
      operationId: 'getWebhook',
      tag: 'webhooks',
      auth: manage,
      summary: 'One of your webhook endpoints',
      errorCodes: ['WEBHOOK_NOT_FOUND'],
      params: Id,
      responses: { 200: Type.Object({ webhook: WebhookBody }), ...errors(401, 403, 404) },
      handler: async ({ ctx, params, principal }) => {
        ctx.body = { webhook: webhookJson(await hangar.getWebhook.execute({ userId: principal.userId, id: params.id })) };
      },
    }),
    defineRoute({
      method: 'PATCH',
      path: '/webhooks/:id',
      operationId: 'updateWebhook',
      tag: 'webhooks',
      auth: manage,
      summary: 'Change a webhook endpoint (URL, events, description, enabled)',
      errorCodes: ['WEBHOOK_NOT_FOUND', 'WEBHOOK_URL_REFUSED'],
      params: Id,
      body: Type.Object({
        url: Type.Optional(Url),
        events: Type.Optional(Events),
        description: Type.Optional(Description),
        enabled: Type.Optional(Type.Boolean()),
      }),
      responses: { 200: Type.Object({ webhook: WebhookBody }), ...errors(400, 401, 403, 404) },
      handler: async ({ ctx, params, body, principal }) => {
        ctx.body = { webhook: webhookJson(await hangar.updateWebhook.execute({ userId: principal.userId, id: params.id, ...body })) };
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/webhooks/:id',
      operationId: 'deleteWebhook',
      tag: 'webhooks',
      auth: manage,
      summary: 'Delete a webhook endpoint and its pending deliveries',
      errorCodes: ['WEBHOOK_NOT_FOUND'],
      params: Id,
      responses: { 204: null, ...errors(401, 403, 404) },
      handler: async ({ ctx, params, principal }) => {
        await hangar.deleteWebhook.execute({ userId: principal.userId, id: params.id });
        ctx.status = 204;
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/webhooks/:id/rotate-secret',
      operationId: 'rotateWebhookSecret',
      tag: 'webhooks',
      auth: manage,
      summary: 'A new signing secret, returned only here; the old one keeps signing beside it for 24 hours',
      errorCodes: ['WEBHOOK_NOT_FOUND'],
      params: Id,
      responses: { 200: Type.Object({ webhook: WebhookBody }), ...errors(401, 403, 404) },
      handler: async ({ ctx, params, principal }) => {
        const { webhook, secret } = await hangar.rotateWebhookSecret.execute({ userId: principal.userId, id: params.id });
        ctx.body = { webhook: webhookJson(webhook, { secret }) };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/webhooks/:id/test',
      operationId: 'sendTestWebhook',
      tag: 'webhooks',
      auth: manage,
      summary: 'Send a `webhook.test` event to the endpoint now',
      errorCodes: ['WEBHOOK_NOT_FOUND'],
      params: Id,
      responses: { 202: Type.Object({ delivery_id: Type.String() }), ...errors(401, 403, 404) },
      handler: async ({ ctx, params, principal }) => {
        const { deliveryId } = await hangar.sendTestWebhook.execute({ userId: principal.userId, id: params.id });
        ctx.status = 202;
        ctx.body = { delivery_id: deliveryId };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/webhooks/:id/deliveries',
      operationId: 'listWebhookDeliveries',
      tag: 'webhooks',
      auth: manage,
      summary: 'The endpoint’s delivery log, newest first',
      errorCodes: ['WEBHOOK_NOT_FOUND'],
      params: Id,
      query: Type.Object(PageQuery),
      responses: { 200: Paged('deliveries', WebhookDeliveryBody), ...errors(400, 401, 403, 404) },
      handler: async ({ ctx, params, query, principal }) => {
        const page = await hangar.listWebhookDeliveries.execute({ userId: principal.userId, id: params.id, page: query.page, limit: query.limit });
        ctx.body = {
          deliveries: page.items.map(webhookDeliveryJson),
          total: page.total,
          total_relation: page.totalRelation ?? 'eq',
          page: query.page,
          limit: query.limit,
        };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/webhooks/:id/deliveries/:delivery_id/retry',
      operationId: 'retryWebhookDelivery',
      tag: 'webhooks',
      auth: manage,
      summary: 'Send a delivery again now, with the same webhook-id',
      errorCodes: ['WEBHOOK_NOT_FOUND', 'WEBHOOK_DELIVERY_NOT_FOUND'],
      params: Type.Object({ id: Type.String({ maxLength: 64 }), delivery_id: Type.String({ maxLength: 64 }) }),
      responses: { 202: Type.Object({ delivery: WebhookDeliveryBody }), ...errors(401, 403, 404) },
      handler: async ({ ctx, params, principal }) => {
        const delivery = await hangar.retryWebhookDelivery.execute({ userId: principal.userId, id: params.id, deliveryId: params.delivery_id });
        ctx.status = 202;
        ctx.body = { delivery: webhookDeliveryJson(delivery) };
      },
    }),
  ];
}
