import { Type } from '@sinclair/typebox';
import type { Hangar } from '../../core/hangar.js';
import { defineRoute, type Route } from './route.js';

/** `GET /healthz`, on both servers: 200 when the database and blob store answer, 503 otherwise. */
export function healthRoute(hangar: Pick<Hangar, 'checkHealth'>): Route {
  return defineRoute({
    method: 'GET', path: '/healthz', operationId: 'health', tag: 'reference', auth: 'none',
    summary: 'Health of the database and the blob store',
    responses: {
      200: Type.Object({ status: Type.Literal('ok'), checks: Type.Record(Type.String(), Type.String()) }),
      503: Type.Object({ status: Type.Literal('unavailable'), checks: Type.Record(Type.String(), Type.String()) }),
    },
    handler: async ({ ctx }) => {
      const report = await hangar.checkHealth.execute();
      ctx.status = report.ok ? 200 : 503;
      ctx.set('Cache-Control', 'no-store');
      ctx.body = { status: report.ok ? 'ok' : 'unavailable', checks: report.checks };
    },
  });
}
