import Koa from 'koa';
import type { Hangar } from '../../core/hangar.js';
import { errorsMiddleware, type ErrorLogger, streamErrorHandler } from '../http/errors-middleware.js';
import { activityMiddleware } from '../http/activity-middleware.js';
import { buildRouter, type Route } from '../http/route.js';
import { accountRoutes } from './routes/account.js';
import { apiKeyRoutes } from './routes/api-keys.js';
import { authRoutes } from './routes/auth.js';
import { fileRoutes } from './routes/files.js';
import { type ReferenceOptions, referenceRoutes } from './routes/reference.js';
import { contentRoutes } from '../content/content-app.js';
import { settingsRoutes } from './routes/settings.js';

/** Options of the API app that are not use cases. */
export interface ApiAppOptions extends Omit<ReferenceOptions, 'allRoutes'> {
  logError?: ErrorLogger;
}

/**
 * The whole route table of both servers: the single source for routing, validation, the OpenAPI
 * document and the agent guide. Content routes are served by the content app, listed here for the reference.
 */
export function apiRoutes(hangar: Hangar, options: ApiAppOptions): Route[] {
  const routes: Route[] = [];
  routes.push(
    ...authRoutes(hangar), ...apiKeyRoutes(hangar), ...fileRoutes(hangar), ...settingsRoutes(hangar), ...accountRoutes(hangar),
    ...referenceRoutes(hangar, { ...options, allRoutes: () => routes }),
    ...contentRoutes(hangar),
  );
  return routes;
}

/** The API server ({base_url}) as a Koa app: errors, request ids, then the route table. */
export function createApiApp(hangar: Hangar, options: ApiAppOptions): Koa {
  const app = new Koa({ proxy: false });
  const router = buildRouter(apiRoutes(hangar, options).filter((route) => route.server !== 'content'), hangar);
  app.on('error', streamErrorHandler(options.logError));
  app.use(activityMiddleware(hangar.activity));
  app.use(errorsMiddleware(options.logError));
  app.use(async (ctx, next) => {
    ctx.set('X-Content-Type-Options', 'nosniff');
    await next();
  });
  app.use(router.routes());
  app.use(router.allowedMethods({ throw: true }));
  return app;
}
