import { Type } from '@sinclair/typebox';
import type { Hangar } from '../../../core/hangar.js';
import { defineRoute, type Route } from '../../http/route.js';
import { healthRoute } from '../../http/health.js';

/** Public reference endpoints (spec 4.18) and the health check. */
export function referenceRoutes(hangar: Hangar, options: { allowedContentTypes: readonly string[] }): Route[] {
  return [
    defineRoute({
      method: 'GET', path: '/reference/allowed-content-types', operationId: 'allowedContentTypes', tag: 'reference', auth: 'none',
      summary: 'MIME types allowed for upload',
      responses: { 200: Type.Object({ content_types: Type.Array(Type.String()) }) },
      handler: async ({ ctx }) => {
        ctx.body = { content_types: options.allowedContentTypes };
      },
    }),
    healthRoute(hangar),
  ];
}
