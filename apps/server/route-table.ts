import type { Hangar } from '../../core/hangar.js';
import { type ApiRouteOptions, apiRoutes } from '../api/api-app.js';
import { contentRoutes } from '../content/content-app.js';
import type { Route } from '../http/route.js';

/**
 * The route table of both servers: the API's routes, then the content server's (marked
 * `server: 'content'`). The single source for the OpenAPI document and the agent guide (the API's
 * reference routes are handed the whole table), and for the API app, which serves its own part
 * (apps/api/api-app.ts). The content server builds its routes itself (apps/content/content-app.ts);
 * here they are listed for the reference, so neither app imports the other.
 */
export function routeTable(hangar: Hangar, options: Omit<ApiRouteOptions, 'allRoutes'>): Route[] {
  const routes: Route[] = [];
  routes.push(...apiRoutes(hangar, { ...options, allRoutes: () => routes }), ...contentRoutes(hangar));
  return routes;
}
