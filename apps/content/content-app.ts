import Koa, { type Context } from 'koa';
import type { Hangar } from '../../core/hangar.js';
import { parseImageRequest } from '../../core/images/image-params.js';
import { errorsMiddleware, streamErrorHandler } from '../http/errors-middleware.js';
import { accessLogMiddleware, type RequestObserver } from '../http/access-log.js';
import type { Logger } from '../../core/shared/logger.js';
import { allowedMethodsMiddleware, singleHostMiddleware } from '../http/request-guards.js';
import { buildRoutes, defineRoute, type Route } from '../http/route.js';
import { operationalRoutes, type OperationalOptions } from '../http/health.js';
import { clientAddress } from '../http/client-address.js';
import { bodyPacingMiddleware, DEFAULT_UPLOAD_PACING, type UploadPacing } from '../http/upload-pacing.js';
import { PUBLIC_CACHE_CONTROL, serveFile } from '../http/serve-file.js';
import { ContentHeaders, ContentParams, contentResponses, ImageQuery, ViewHeaders, viewResponses } from './content-schemas.js';
import { sendImage } from './send-image.js';
import { signedContentRoutes } from './signed-routes.js';
import { shareContentRoutes } from './share-routes.js';
import { previewRoutes } from './preview-routes.js';
import { sendJsonBodiesAsBuffers } from '../http/json-body.js';

/**
 * The public content server ({cdn_url}): `GET`/`HEAD` `/m/:file_id` (inline view) and
 * `/d/:file_id` (download, `Content-Disposition: attachment`), the link preview page `/v/:file_id`
 * and `/oembed` (preview-routes.ts), plus `/healthz`, `/readyz` and `/version`.
 * Serves byte ranges (206/416, RFC 9110 §14), a strong ETag from the SHA-256, 304 on
 * `If-None-Match`/`If-Modified-Since` (§13.1), `Last-Modified`, long-lived `Cache-Control`, `nosniff`.
 * Private and missing files are both 404 FILE_NOT_FOUND. Bodies are streamed, never buffered.
 * The server puts `publicReadsFirst` (public-reads.ts) in front of it, which answers plain reads of
 * `/m` and `/d` the same way without the app's per-request machinery.
 */
export function createContentApp(
  hangar: Hangar,
  options: {
    logger: Logger;
    operational: OperationalOptions;
    observer?: RequestObserver;
    trustProxyHops?: number;
    hsts?: boolean;
    /** UPLOAD_IDLE_TIMEOUT_SECONDS & co.: how slowly a request body (the share password form) may arrive (default DEFAULT_UPLOAD_PACING). */
    bodyPacing?: UploadPacing;
  },
): Koa {
  const app = new Koa({ proxy: false });
  sendJsonBodiesAsBuffers(app);
  const routes = buildRoutes([...contentRoutes(hangar, { trustProxyHops: options.trustProxyHops }), ...operationalRoutes(hangar, options.operational)], hangar);
  const headers = contentOriginHeaders(options);
  app.on('error', streamErrorHandler(options.logger));
  app.use(async (ctx, next) => {
    for (const [name, value] of Object.entries(headers)) ctx.set(name, value);
    await next();
  });
  app.use(accessLogMiddleware(options.logger, { server: 'content', observer: options.observer, trustProxyHops: options.trustProxyHops ?? 0 }));
  app.use(errorsMiddleware(options.logger));
  app.use(singleHostMiddleware());
  app.use(
    bodyPacingMiddleware({ pacing: options.bodyPacing ?? DEFAULT_UPLOAD_PACING, limits: hangar.rateLimits, trustProxyHops: options.trustProxyHops ?? 0 }),
  );
  app.use(allowedMethodsMiddleware(routes));
  app.use(routes.middleware);
  return app;
}

/**
 * Headers of every answer of the content origin, files and errors alike: `nosniff` (a JSON error
 * or a 404 is never run as a script), and with `hsts` (PUBLIC_CONTENT_URL is https)
 * `Strict-Transport-Security` for a year (RFC 6797), as the API sends it.
 */
export function contentOriginHeaders(options: { hsts?: boolean }): Record<string, string> {
  return { 'X-Content-Type-Options': 'nosniff', ...(options.hsts ? { 'Strict-Transport-Security': 'max-age=31536000' } : {}) };
}

/**
 * The public addresses of files, as routes (documented in the OpenAPI document under {cdn_url}).
 * `trustProxyHops`: as `TRUST_PROXY`, for the client address image transformations are rate-limited by.
 */
export function contentRoutes(hangar: Hangar, options: { trustProxyHops?: number } = {}): Route[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/m/:id',
      operationId: 'viewFile',
      tag: 'content',
      auth: 'none',
      server: 'content',
      alsoHead: true,
      summary: 'A public file, inline (view address)',
      description:
        'Byte ranges, strong ETag (the SHA-256), 304 on If-None-Match/If-Modified-Since, cached for a year (files never change). Private and missing files are 404.\n\n' +
        'With any of `w`, `h`, `fit`, `format`, `q` on an image file, a transformed image instead (docs/images.md): computed once, then cached; each computation counts in `image_ops`. ' +
        'Invalid values are 400 `INVALID_TRANSFORM`; parameters on a non-image file 400 `NOT_AN_IMAGE`; the plan’s limit 403 `IMAGE_OPS_LIMIT_REACHED`; ' +
        'an undecodable or oversized image 422 `IMAGE_UNREADABLE` / `IMAGE_TOO_LARGE`; busy 503 `IMAGE_BUSY` with `Retry-After`. ' +
        '`w` and `h` are snapped up to the size ladder (`IMAGE_SIZE_LADDER`). A variant not yet stored counts toward the client address’s limit (`RATE_LIMIT_IMAGE_TRANSFORMS_PER_MINUTE`): past it 429 `RATE_LIMITED` with `Retry-After`.',
      params: ContentParams,
      query: ImageQuery,
      headers: ViewHeaders,
      responses: viewResponses,
      responseHeaders: { 503: { 'Retry-After': 'With IMAGE_BUSY: whole seconds to wait before asking again.' } },
      handler: async ({ ctx, params, query }) => {
        const request = parseImageRequest(query);
        if (request) await serveImage(ctx, hangar, params.id, request, clientAddress(ctx, options.trustProxyHops ?? 0));
        else await servePublic(ctx, hangar, params.id, 'inline');
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/d/:id',
      operationId: 'downloadFile',
      tag: 'content',
      auth: 'none',
      server: 'content',
      alsoHead: true,
      summary: 'A public file, as an attachment (download address)',
      description: 'Same as the view address, with `Content-Disposition: attachment` and the file’s name (RFC 6266).',
      params: ContentParams,
      headers: ContentHeaders,
      responses: contentResponses,
      handler: ({ ctx, params }) => servePublic(ctx, hangar, params.id, 'attachment'),
    }),
    ...previewRoutes(hangar),
    ...signedContentRoutes(hangar),
    ...shareContentRoutes(hangar),
  ];
}

/** A public file at `/m` or `/d` (ReadPublicFile decides whether this host serves it). */
async function servePublic(ctx: Context, hangar: Hangar, fileId: string, disposition: 'inline' | 'attachment'): Promise<void> {
  const servable = await hangar.readPublicFile.execute({
    fileId,
    host: ctx.hostname.toLowerCase() || undefined,
    kind: disposition === 'attachment' ? 'download' : 'view',
  });
  await serveFile(ctx, servable, { disposition, cacheControl: PUBLIC_CACHE_CONTROL });
}

/**
 * A transformed image (docs/images.md): 304 on a matching validator before anything is computed;
 * otherwise the cached or freshly computed bytes, whole (Range is ignored, RFC 9110 §14.2). Caching
 * headers are set only on success, so an error (403, 503…) is never cached for a year.
 */
async function serveImage(
  ctx: Context,
  hangar: Hangar,
  fileId: string,
  request: NonNullable<ReturnType<typeof parseImageRequest>>,
  client: string,
): Promise<void> {
  const image = await hangar.transformPublicImage.execute({
    fileId,
    host: ctx.hostname.toLowerCase() || undefined,
    request,
    accept: ctx.get('Accept') || undefined,
    client,
  });
  await sendImage(ctx, image, { cacheControl: PUBLIC_CACHE_CONTROL });
}
