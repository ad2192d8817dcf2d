import cors from '@koa/cors';
import { resumableRoutes, TUS_EXPOSED_HEADERS, TUS_REQUEST_HEADERS } from './routes/resumable.js';
import Koa, { type Context, type Next } from 'koa';
import helmet from 'koa-helmet';
import { DomainError } from '../../core/shared/errors.js';
import { clientAddressMiddleware } from '../http/client-address.js';
import type { Hangar } from '../../core/hangar.js';
import { errorsMiddleware, streamErrorHandler } from '../http/errors-middleware.js';
import { accessLogMiddleware, type RequestObserver } from '../http/access-log.js';
import { sendJsonBodiesAsBuffers } from '../http/json-body.js';
import type { Logger } from '../../core/shared/logger.js';
import { activityMiddleware } from '../http/activity-middleware.js';
import { allowedMethodsMiddleware, singleHostMiddleware } from '../http/request-guards.js';
import { bodyPacingMiddleware, DEFAULT_UPLOAD_PACING, type UploadPacing } from '../http/upload-pacing.js';
import { buildRoutes, type Route } from '../http/route.js';
import { accountRoutes } from './routes/account.js';
import { apiKeyRoutes } from './routes/api-keys.js';
import { authRoutes } from './routes/auth.js';
import { passkeyRoutes } from './routes/passkeys.js';
import { accountSecurityRoutes } from './routes/account-security.js';
import { ssoRoutes } from './routes/sso.js';
import { fileRoutes } from './routes/files.js';
import { SIGNED_UPLOAD_PATH, uploadUrlRoutes } from './routes/upload-urls.js';
import { type ReferenceOptions, referenceRoutes } from './routes/reference.js';
import { settingsRoutes } from './routes/settings.js';
import { webhookRoutes } from './routes/webhooks.js';
import { deletionLinkRoutes, sharingRoutes } from './routes/sharing.js';
import { dashboardStatic } from './dashboard-static.js';
import { type AdminInstance, adminRoutes } from './routes/admin.js';

/**
 * What the API's route table needs besides the use cases: what the reference tells (including
 * `allRoutes`, every route of both servers, which apps/server/route-table.ts assembles), the
 * instance `GET /admin/stats` describes, and where the SSO routes log.
 */
export interface ApiRouteOptions extends ReferenceOptions {
  /** What `GET /admin/stats` says of the instance: its configuration without secrets (AdminInstance). */
  instance?: AdminInstance;
  /** Where the SSO routes log failed sign-ins (default: nowhere). */
  logger?: Logger;
}

/** Options of the API app that are not use cases. */
export interface ApiAppOptions {
  /**
   * The route table (apps/server/route-table.ts): the app serves every route of it that is not
   * marked `server: 'content'` (those are the content server's, listed for the reference).
   */
  routes: readonly Route[];
  /** {base_url} and {cdn_url}: the API refuses requests whose `Host` is the content origin's. */
  publicApiUrl: string;
  publicContentUrl: string;
  /** Where the access log, aborted requests and internal errors go. */
  logger: Logger;
  /** Told about every request (Prometheus metrics), when metrics are on. */
  observer?: RequestObserver;
  /** Directory of the built dashboard (default dist/dashboard, from `npm run build`). */
  dashboardDir?: string;
  /** TRUST_PROXY: reverse proxies whose `X-Forwarded-For` entries are believed (0: none; see client-address.ts). */
  trustProxyHops?: number;
  /** CORS_ORIGINS: origins whose browser pages may call the API (none by default). */
  corsOrigins?: readonly string[];
  /** UPLOAD_IDLE_TIMEOUT_SECONDS & co.: how slowly any request body (JSON, upload, tus) may arrive (default DEFAULT_UPLOAD_PACING). */
  uploadPacing?: UploadPacing;
}

/**
 * Security headers of every API response (OWASP ASVS 14.4, koa-helmet): a CSP that lets a JSON
 * answer load nothing and be framed nowhere (pages set their own, nonce-based, after this), HSTS,
 * `nosniff`, `Referrer-Policy: no-referrer`, `X-Frame-Options: DENY`, COOP/CORP same-origin.
 */
function securityHeaders() {
  return helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"], baseUri: ["'none'"], formAction: ["'self'"] },
    },
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'no-referrer' },
  });
}

/**
 * CORS (Fetch standard §3.2) for the origins in `origins` only: their requests get
 * `Access-Control-Allow-Origin: <origin>` (never `*`, no credentials: tokens travel in headers),
 * preflights are answered with the methods and headers the API uses; any other origin gets no
 * CORS headers at all, so browsers keep its pages from reading answers (OWASP ASVS 14.5.3).
 */
function corsFor(origins: readonly string[]) {
  const allowed = new Set(origins);
  return cors({
    origin: (ctx: Context) => (allowed.has(ctx.get('Origin')) ? ctx.get('Origin') : ''),
    allowMethods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowHeaders: ['Authorization', 'Content-Type', 'X-Api-Key', 'X-File-Name', 'X-Request-Id', ...TUS_REQUEST_HEADERS],
    exposeHeaders: ['X-Request-Id', 'Retry-After', 'Content-Disposition', ...TUS_EXPOSED_HEADERS],
    maxAge: 600,
  });
}

/**
 * CORS for signed upload URLs ({@link SIGNED_UPLOAD_PATH}, docs/media.md): the URL itself is the
 * credential and the browser that sends to it runs on the app's own origin, unknown here, so every
 * origin may send (`Access-Control-Allow-Origin: *`, no credentials) and read the answer.
 */
function anyOriginCors() {
  return cors({
    origin: '*',
    allowMethods: ['PUT', 'POST', 'PATCH', 'HEAD', 'DELETE'],
    allowHeaders: ['Content-Type', 'X-File-Name', 'X-Request-Id', ...TUS_REQUEST_HEADERS],
    exposeHeaders: ['X-Request-Id', 'Retry-After', ...TUS_EXPOSED_HEADERS],
    maxAge: 600,
  });
}

/**
 * The API never answers on the content origin: a request whose `Host` is the content server's
 * public host (as a misrouting proxy would send) is 404, so no API page or token ever lives on the
 * origin that serves user files.
 */
function refuseContentHost(publicApiUrl: string, publicContentUrl: string) {
  const api = new URL(publicApiUrl).host.toLowerCase();
  const content = new URL(publicContentUrl).host.toLowerCase();
  return async (ctx: Context, next: Next): Promise<void> => {
    const host = (ctx.get('Host') || '').toLowerCase();
    if (content !== api && host === content) throw new DomainError('NOT_FOUND', 'This is the content origin: the API is not served here.');
    await next();
  };
}

/**
 * The API server's routes, in their order. The reference routes among them document
 * `options.allRoutes()`: the route table of both servers, which apps/server/route-table.ts
 * assembles from these and the content server's routes.
 */
export function apiRoutes(hangar: Hangar, options: ApiRouteOptions): Route[] {
  return [
    ...authRoutes(hangar),
    ...passkeyRoutes(hangar),
    ...accountSecurityRoutes(hangar),
    ...ssoRoutes(hangar, { publicApiUrl: options.publicApiUrl, logger: options.logger }),
    ...apiKeyRoutes(hangar),
    ...fileRoutes(hangar),
    ...uploadUrlRoutes(hangar, { publicApiUrl: options.publicApiUrl }),
    ...resumableRoutes(hangar, { publicApiUrl: options.publicApiUrl, maxSizeBytes: options.defaultPlan.maxUploadSizeBytes }),
    ...sharingRoutes(hangar),
    ...deletionLinkRoutes(hangar),
    ...settingsRoutes(hangar),
    ...accountRoutes(hangar),
    ...webhookRoutes(hangar),
    ...adminRoutes(hangar, { instance: options.instance, build: options.operational?.build }),
    ...referenceRoutes(hangar, options),
  ];
}

/** The API server ({base_url}) as a Koa app: errors, request ids, then the route table. */
export function createApiApp(hangar: Hangar, options: ApiAppOptions): Koa {
  const app = new Koa({ proxy: false });
  const routes = buildRoutes(
    options.routes.filter((route) => route.server !== 'content'),
    hangar,
  );
  app.on('error', streamErrorHandler(options.logger));
  sendJsonBodiesAsBuffers(app);
  app.use(accessLogMiddleware(options.logger, { server: 'api', observer: options.observer, trustProxyHops: options.trustProxyHops ?? 0 }));
  app.use(securityHeaders());
  const listedCors = corsFor(options.corsOrigins ?? []);
  const uploadCors = anyOriginCors();
  app.use((ctx, next) => (ctx.path.startsWith(SIGNED_UPLOAD_PATH) ? uploadCors(ctx, next) : listedCors(ctx, next)));
  app.use(clientAddressMiddleware(options.trustProxyHops ?? 0));
  app.use(activityMiddleware(hangar.activity));
  app.use(errorsMiddleware(options.logger));
  app.use(singleHostMiddleware());
  app.use(refuseContentHost(options.publicApiUrl, options.publicContentUrl));
  app.use(
    bodyPacingMiddleware({ pacing: options.uploadPacing ?? DEFAULT_UPLOAD_PACING, limits: hangar.rateLimits, trustProxyHops: options.trustProxyHops ?? 0 }),
  );
  app.use(async (ctx, next) => {
    ctx.set('X-Content-Type-Options', 'nosniff');
    await next();
  });
  // The dashboard at / and /assets/* (apps/dashboard, built by vite): after header middleware, so its CSP wins.
  app.use(dashboardStatic({ root: options.dashboardDir, publicContentUrl: options.publicContentUrl }));
  app.use(allowedMethodsMiddleware(routes));
  app.use(routes.middleware);
  return app;
}
