import { Type } from '@sinclair/typebox';
import type { Hangar } from '../../../core/hangar.js';
import { defineRoute, type Route } from '../../http/route.js';
import { logEntryJson, profileJson, usageJson } from '../presenters.js';
import { errors, LogEntryBody, Paged, PageQuery, ProfileBody, UsageBody } from '../schemas.js';

/** Usage, activity log and profile of the calling account (spec 4.15–4.17). */
export function accountRoutes(hangar: Hangar): Route[] {
  return [
    defineRoute({
      method: 'GET', path: '/usage', operationId: 'getUsage', tag: 'account', auth: 'any',
      summary: 'Storage, file count and this billing period’s reads and image operations',
      responses: { 200: UsageBody, ...errors(401) },
      handler: async ({ ctx, principal }) => {
        ctx.body = usageJson(await hangar.getUsage.execute({ userId: principal.userId }));
      },
    }),
    defineRoute({
      method: 'GET', path: '/logs', operationId: 'listLogs', tag: 'account', auth: 'any',
      summary: 'Activity log of authenticated API requests, newest first',
      query: Type.Object(PageQuery),
      responses: { 200: Paged('logs', LogEntryBody), ...errors(400, 401) },
      handler: async ({ ctx, query, principal }) => {
        const page = await hangar.listLogs.execute({ userId: principal.userId, page: query.page, limit: query.limit });
        ctx.body = { logs: page.items.map(logEntryJson), total: page.total, total_relation: page.totalRelation ?? 'eq', page: query.page, limit: query.limit };
      },
    }),
    defineRoute({
      method: 'GET', path: '/profile', operationId: 'getProfile', tag: 'account', auth: 'any',
      summary: 'User, plan, trial and billing state',
      responses: { 200: ProfileBody, ...errors(401) },
      handler: async ({ ctx, principal }) => {
        ctx.body = profileJson(await hangar.getProfile.execute({ userId: principal.userId }));
      },
    }),
  ];
}
