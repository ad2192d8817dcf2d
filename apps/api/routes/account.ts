import { Type } from '@sinclair/typebox';
import type { Hangar } from '../../../core/hangar.js';
import { defineRoute, type Route } from '../../http/route.js';
import { logEntryJson, profileJson, usageJson } from '../../http/presenters/presenters.js';
import { LogEntryBody, PageQuery, ProfileBody, UsageBody } from '../schemas.js';
import { errors } from '../../http/error-body.js';

/** Usage, activity log and profile of the calling account (spec 4.15–4.17). */
export function accountRoutes(hangar: Hangar): Route[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/usage',
      operationId: 'getUsage',
      tag: 'account',
      auth: { scopes: ['account:read'] },
      summary: 'Storage, file count and this billing period’s reads and image operations',
      responses: { 200: UsageBody, ...errors(401) },
      handler: async ({ ctx, principal }) => {
        ctx.body = usageJson(await hangar.getUsage.execute({ userId: principal.userId }));
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/logs',
      operationId: 'listLogs',
      tag: 'account',
      auth: { scopes: ['account:read'] },
      summary: 'Activity log of authenticated API requests, newest first; filter by kind, page by page or by a stable cursor',
      description:
        '`kind=actions` lists what changed the account or signed in (every method but GET, HEAD and OPTIONS: uploads, deletes, API keys, settings, sign-ins), ' +
        '`kind=reads` the GET/HEAD/OPTIONS requests, `kind=all` (the default) both. For a stable listing while new requests are logged, pass the previous ' +
        'answer’s `next_cursor` as `before`: the page then starts right after that entry (`page` counts from there). `total` counts the whole kind.',
      query: Type.Object({
        ...PageQuery,
        kind: Type.Optional(Type.Union([Type.Literal('all'), Type.Literal('actions'), Type.Literal('reads')], { default: 'all' })),
        before: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'A `next_cursor` from an earlier page of the same kind.' })),
      }),
      responses: {
        200: Type.Object({
          logs: Type.Array(LogEntryBody),
          total: Type.Integer(),
          total_relation: Type.Union([Type.Literal('eq'), Type.Literal('gte')], { description: 'Always "eq" here: the total is kept, not counted.' }),
          page: Type.Integer(),
          limit: Type.Integer(),
          next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as `before` for the next page; null on the last page.' }),
        }),
        ...errors(400, 401),
      },
      handler: async ({ ctx, query, principal }) => {
        const page = await hangar.listLogs.execute({ userId: principal.userId, page: query.page, limit: query.limit, kind: query.kind, before: query.before });
        ctx.body = {
          logs: page.items.map(logEntryJson),
          total: page.total,
          total_relation: page.totalRelation ?? 'eq',
          page: query.page,
          limit: query.limit,
          next_cursor: page.nextCursor,
        };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/profile',
      operationId: 'getProfile',
      tag: 'account',
      auth: { scopes: ['account:read'] },
      summary: 'User, plan, trial and billing state',
      responses: { 200: ProfileBody, ...errors(401) },
      handler: async ({ ctx, principal }) => {
        ctx.body = profileJson(await hangar.getProfile.execute({ userId: principal.userId }));
      },
    }),
  ];
}
