import Koa from 'koa';
import type { Hangar } from '../../core/hangar.js';
import { errorsMiddleware, type ErrorLogger, streamErrorHandler } from '../http/errors-middleware.js';
import { activityMiddleware } from '../http/activity-middleware.js';
import { buildRouter, type Route } from '../http/route.js';
import { accountRoutes } from './routes/account.js';
import { apiKeyRoutes } from './routes/api-keys.js';
import { authRoutes } from './routes/auth.js';
import { fileRoutes } from './routes/files.js';
import { referenceRoutes } from './routes/reference.js';
import { settingsRoutes } from './routes/settings.js';

/** Options of the API app that are not use cases. */
export interface ApiAppOptions {
  allowedContentTypes: readonly string[];
  logError?: ErrorLogger;
}

/** The whole route table of the API: the single source for routing, validation and (later) OpenAPI. */
export function apiRoutes(hangar: Hangar, options: ApiAppOptions): Route[] {
  return [...authRoutes(hangar), ...apiKeyRoutes(hangar), ...fileRoutes(hangar), ...settingsRoutes(hangar), ...accountRoutes(hangar), ...referenceRoutes(hangar, options)];
}

/** The API server ({base_url}) as a Koa app: errors, request ids, then the route table. */
export function createApiApp(hangar: Hangar, options: ApiAppOptions): Koa {
  const app = new Koa({ proxy: false });
  const router = buildRouter(apiRoutes(hangar, options), hangar);
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
