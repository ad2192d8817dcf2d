import { Type } from '@sinclair/typebox';
import { MAX_API_KEY_NAME_LENGTH } from '../../../core/api-keys/api-key.js';
import type { Hangar } from '../../../core/hangar.js';
import { defineRoute, type Route } from '../../http/route.js';
import { apiKeyJson } from '../presenters.js';
import { ApiKeyBody, errors, Paged, PageQuery } from '../schemas.js';

/** API key management; session token only (spec 4.5–4.7, 5.6). */
export function apiKeyRoutes(hangar: Hangar): Route[] {
  return [
    defineRoute({
      method: 'POST', path: '/auth/api-keys', operationId: 'createApiKey', tag: 'api-keys', auth: 'jwt',
      summary: 'Create an API key; the full key is returned only here',
      body: Type.Object({ name: Type.Optional(Type.String({ maxLength: MAX_API_KEY_NAME_LENGTH })) }),
      responses: { 201: ApiKeyBody, ...errors(400, 401, 403) },
      handler: async ({ ctx, body, principal }) => {
        const { apiKey, key } = await hangar.createApiKey.execute({ userId: principal.userId, name: body.name });
        ctx.status = 201;
        ctx.body = apiKeyJson(apiKey, { key });
      },
    }),
    defineRoute({
      method: 'GET', path: '/auth/api-keys', operationId: 'listApiKeys', tag: 'api-keys', auth: 'jwt',
      summary: 'List API keys, newest first',
      query: Type.Object(PageQuery),
      responses: { 200: Paged('api_keys', ApiKeyBody), ...errors(400, 401, 403) },
      handler: async ({ ctx, query, principal }) => {
        const page = await hangar.listApiKeys.execute({ userId: principal.userId, page: query.page, limit: query.limit });
        ctx.body = { api_keys: page.items.map((k) => apiKeyJson(k, { listed: true })), total: page.total, total_relation: page.totalRelation ?? 'eq', page: query.page, limit: query.limit };
      },
    }),
    defineRoute({
      method: 'DELETE', path: '/auth/api-keys/:id', operationId: 'revokeApiKey', tag: 'api-keys', auth: 'jwt',
      summary: 'Revoke an API key',
      params: Type.Object({ id: Type.String() }),
      responses: { 204: null, ...errors(401, 403, 404) },
      handler: async ({ ctx, params, principal }) => {
        await hangar.revokeApiKey.execute({ userId: principal.userId, id: params.id });
        ctx.status = 204;
      },
    }),
  ];
}
