import { routeTable } from '../../apps/server/route-table.js';
import type { Route } from '../../apps/http/route.js';
import { createMemoryHangar } from './memory-hangar.js';

/**
 * Every route of the API's and the content server's tables, in their order, built over an
 * in-memory Hangar with small placeholder options (the tables' shapes do not depend on them).
 */
export function everyRoute(): Route[] {
  const { hangar } = createMemoryHangar();
  return routeTable(hangar, {
    allowedContentTypes: ['image/png'],
    publicApiUrl: 'http://api.hangar.test',
    publicContentUrl: 'http://cdn.hangar.test',
    defaultPlan: { name: 'default', trialDays: 14, storageLimitBytes: 1, fileCountLimit: 1, maxUploadSizeBytes: 1 },
    defaultMaxUploadSizeBytes: 1,
  });
}
