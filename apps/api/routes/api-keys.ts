import { Type } from '@sinclair/typebox';
import { MAX_API_KEY_NAME_LENGTH } from '../../../core/api-keys/api-key.js';
import { API_KEY_SCOPES, KEY_SCOPES, MAX_API_KEY_LIFETIME_DAYS } from '../../../core/api-keys/api-key-scopes.js';
import type { Hangar } from '../../../core/hangar.js';
import { defineRoute, type Route } from '../../http/route.js';
import { apiKeyJson } from '../../http/presenters/presenters.js';
import { ApiKeyBody, Paged, PageQuery } from '../schemas.js';
import { errors } from '../../http/error-body.js';

/** API key management; session token only (spec 4.5–4.7, 5.6). */
export function apiKeyRoutes(hangar: Hangar): Route[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/auth/api-keys',
      operationId: 'createApiKey',
      tag: 'api-keys',
      auth: 'jwt',
      summary: 'Create an API key; the full key is returned only here',
      description:
        `\`scopes\` limits what the key may do (${API_KEY_SCOPES.map((scope) => `\`${scope}\``).join(', ')}; all of them when left out); ` +
        'an administrator may add `admin`, the scope of the `/admin` routes, which a key never holds by default (docs/admin.md); ' +
        'each operation of this reference lists the scopes a key needs, and a key without them answers 403 `INSUFFICIENT_SCOPE`. ' +
        'Changing settings and rotating the signing key need every scope; managing keys needs a session token. ' +
        `\`expires_at\` (ISO 8601, in the future, at most ${MAX_API_KEY_LIFETIME_DAYS} days away) ends the key: from then on it answers 401 \`API_KEY_EXPIRED\`. ` +
        'Without it the key never expires. Scopes and expiry cannot be changed: create a new key and revoke the old one. ' +
        'An account holds at most `API_KEYS_PER_ACCOUNT` keys that have not expired (default 50); past that 403 `API_KEY_LIMIT_REACHED`. ' +
        'Signed URLs and share links a key makes end with it (revoked or expired).',
      errorCodes: ['API_KEY_LIMIT_REACHED', 'ADMIN_REQUIRED'],
      body: Type.Object({
        name: Type.Optional(Type.String({ maxLength: MAX_API_KEY_NAME_LENGTH })),
        scopes: Type.Optional(
          Type.Array(Type.Union(KEY_SCOPES.map((scope) => Type.Literal(scope))), {
            minItems: 1,
            maxItems: 16,
            description: 'What the key may do; default: every scope',
          }),
        ),
        expires_at: Type.Optional(
          Type.String({ maxLength: 64, description: `ISO 8601, in the future, at most ${MAX_API_KEY_LIFETIME_DAYS} days away; default: never` }),
        ),
      }),
      responses: { 201: ApiKeyBody, ...errors(400, 401, 403) },
      handler: async ({ ctx, body, principal }) => {
        const expiresAt = body.expires_at === undefined ? undefined : new Date(/^\d{4}-\d{2}-\d{2}/.test(body.expires_at) ? body.expires_at : Number.NaN);
        const { apiKey, key } = await hangar.createApiKey.execute({ userId: principal.userId, name: body.name, scopes: body.scopes, expiresAt });
        ctx.status = 201;
        ctx.body = apiKeyJson(apiKey, { key });
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/auth/api-keys',
      operationId: 'listApiKeys',
      tag: 'api-keys',
      auth: 'jwt',
      summary: 'List API keys, newest first',
      query: Type.Object(PageQuery),
      responses: { 200: Paged('api_keys', ApiKeyBody), ...errors(400, 401, 403) },
      handler: async ({ ctx, query, principal }) => {
        const page = await hangar.listApiKeys.execute({ userId: principal.userId, page: query.page, limit: query.limit });
        ctx.body = {
          api_keys: page.items.map((k) => apiKeyJson(k, { listed: true })),
          total: page.total,
          total_relation: page.totalRelation ?? 'eq',
          page: query.page,
          limit: query.limit,
        };
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/auth/api-keys/:id',
      operationId: 'revokeApiKey',
      tag: 'api-keys',
      auth: 'jwt',
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
