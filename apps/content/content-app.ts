import { Type } from '@sinclair/typebox';
import Koa, { type Context } from 'koa';
import type { Hangar } from '../../core/hangar.js';
import { isDomainError } from '../../core/shared/errors.js';
import { FITS, MAX_IMAGE_SIDE, parseImageRequest, REQUESTABLE_FORMATS } from '../../core/images/image-params.js';
import { IMAGE_BUSY_RETRY_AFTER_SECONDS } from '../../core/images/transform-slots.js';
import { errorsMiddleware, streamErrorHandler } from '../http/errors-middleware.js';
import { accessLogMiddleware, type RequestObserver } from '../http/access-log.js';
import type { Logger } from '../../core/shared/logger.js';
import { allowedMethodsMiddleware, singleHostMiddleware } from '../http/request-guards.js';
import { DOCUMENTED_AS } from '../http/openapi.js';
import { BINARY, buildRoutes, defineRoute, type Route } from '../http/route.js';
import { ErrorBody } from '../api/schemas.js';
import { operationalRoutes, type OperationalOptions } from '../http/health.js';
import { clientAddress } from '../http/client-address.js';
import { bodyPacingMiddleware, DEFAULT_UPLOAD_PACING, type UploadPacing } from '../http/upload-pacing.js';
import { fileLastModified, notModified, PUBLIC_CACHE_CONTROL, sendStreamed, serveFile } from './serve-file.js';
import { contentDisposition } from './http-range.js';
import type { PublicImage } from '../../core/images/transform-public-image.js';
import { signedContentRoutes } from './signed-routes.js';
import { shareContentRoutes } from './share-routes.js';
import { previewRoutes } from './preview-routes.js';

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
  app.use(bodyPacingMiddleware({ pacing: options.bodyPacing ?? DEFAULT_UPLOAD_PACING, limits: hangar.rateLimits, trustProxyHops: options.trustProxyHops ?? 0 }));
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

export const ContentParams = Type.Object({ id: Type.String({ description: 'The file’s `file_id`', maxLength: 64 }) });
export const ContentHeaders = Type.Object({
  range: Type.Optional(Type.String({ description: 'One byte range, `bytes=a-b`, `bytes=a-` or `bytes=-n` (RFC 9110 §14.1.2)' })),
  'if-range': Type.Optional(Type.String({ description: 'Apply Range only while this ETag still matches' })),
  'if-none-match': Type.Optional(Type.String({ description: 'ETags; a match answers 304' })),
  'if-modified-since': Type.Optional(Type.String({ description: 'HTTP date; not modified since answers 304' })),
});
const contentResponses = { 200: BINARY, 206: BINARY, 304: null, 404: ErrorBody, 416: ErrorBody, 503: ErrorBody };

/**
 * Image parameters of the view address (docs/images.md). Taken as text (a repeated one as a list)
 * and checked by the core, so every bad value answers the same INVALID_TRANSFORM; the reference
 * publishes each one's real type and range (`documented`).
 */
const imageParameter = (description: string, documented: Record<string, unknown>) =>
  Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())], { description, [DOCUMENTED_AS]: documented }));
export const ImageQuery = Type.Object({
  w: imageParameter('Width in px, 1–4096. Image files only.', { type: 'integer', minimum: 1, maximum: MAX_IMAGE_SIDE }),
  h: imageParameter('Height in px, 1–4096. Image files only.', { type: 'integer', minimum: 1, maximum: MAX_IMAGE_SIDE }),
  fit: imageParameter('With both `w` and `h`: `cover` (default), `contain`, `fill`, `inside` or `outside`.', { type: 'string', enum: [...FITS] }),
  format: imageParameter('`webp`, `avif`, `jpeg`, `png`, or `auto` (AVIF or WebP when `Accept` lists it; the response then has `Vary: Accept`). Default: the source’s format.', { type: 'string', enum: [...REQUESTABLE_FORMATS] }),
  q: imageParameter('Quality 1–100 for WebP, AVIF and JPEG (defaults 80, 50, 80).', { type: 'integer', minimum: 1, maximum: 100 }),
});
export const ViewHeaders = Type.Object({
  ...ContentHeaders.properties,
  accept: Type.Optional(Type.String({ description: 'With `format=auto`: `image/avif` or `image/webp` listed picks that format' })),
});
const viewResponses = { ...contentResponses, 400: ErrorBody, 403: ErrorBody, 422: ErrorBody, 429: ErrorBody };

/**
 * The public addresses of files, as routes (documented in the OpenAPI document under {cdn_url}).
 * `trustProxyHops`: as `TRUST_PROXY`, for the client address image transformations are rate-limited by.
 */
export function contentRoutes(hangar: Hangar, options: { trustProxyHops?: number } = {}): Route[] {
  return [
    defineRoute({
      method: 'GET', path: '/m/:id', operationId: 'viewFile', tag: 'content', auth: 'none', server: 'content', alsoHead: true,
      summary: 'A public file, inline (view address)',
      description:
        'Byte ranges, strong ETag (the SHA-256), 304 on If-None-Match/If-Modified-Since, cached for a year (files never change). Private and missing files are 404.\n\n' +
        'With any of `w`, `h`, `fit`, `format`, `q` on an image file, a transformed image instead (docs/images.md): computed once, then cached; each computation counts in `image_ops`. ' +
        'Invalid values are 400 `INVALID_TRANSFORM`; parameters on a non-image file 400 `NOT_AN_IMAGE`; the plan’s limit 403 `IMAGE_OPS_LIMIT_REACHED`; ' +
        'an undecodable or oversized image 422 `IMAGE_UNREADABLE` / `IMAGE_TOO_LARGE`; busy 503 `IMAGE_BUSY` with `Retry-After`. ' +
        '`w` and `h` are snapped up to the size ladder (`IMAGE_SIZE_LADDER`). A variant not yet stored counts toward the client address’s limit (`RATE_LIMIT_IMAGE_TRANSFORMS_PER_MINUTE`): past it 429 `RATE_LIMITED` with `Retry-After`.',
      params: ContentParams, query: ImageQuery, headers: ViewHeaders, responses: viewResponses,
      responseHeaders: { 503: { 'Retry-After': 'With IMAGE_BUSY: whole seconds to wait before asking again.' } },
      handler: async ({ ctx, params, query }) => {
        const request = parseImageRequest(query);
        if (request) await serveImage(ctx, hangar, params.id, request, clientAddress(ctx, options.trustProxyHops ?? 0));
        else await servePublic(ctx, hangar, params.id, 'inline');
      },
    }),
    defineRoute({
      method: 'GET', path: '/d/:id', operationId: 'downloadFile', tag: 'content', auth: 'none', server: 'content', alsoHead: true,
      summary: 'A public file, as an attachment (download address)',
      description: 'Same as the view address, with `Content-Disposition: attachment` and the file’s name (RFC 6266).',
      params: ContentParams, headers: ContentHeaders, responses: contentResponses,
      handler: ({ ctx, params }) => servePublic(ctx, hangar, params.id, 'attachment'),
    }),
    ...previewRoutes(hangar),
    ...signedContentRoutes(hangar),
    ...shareContentRoutes(hangar),
  ];
}

/** A public file at `/m` or `/d` (ReadPublicFile decides whether this host serves it). */
async function servePublic(ctx: Context, hangar: Hangar, fileId: string, disposition: 'inline' | 'attachment'): Promise<void> {
  const servable = await hangar.readPublicFile.execute({ fileId, host: ctx.hostname.toLowerCase() || undefined, kind: disposition === 'attachment' ? 'download' : 'view' });
  await serveFile(ctx, servable, { disposition, cacheControl: PUBLIC_CACHE_CONTROL });
}

/**
 * A transformed image (docs/images.md): 304 on a matching validator before anything is computed;
 * otherwise the cached or freshly computed bytes, whole (Range is ignored, RFC 9110 §14.2). Caching
 * headers are set only on success, so an error (403, 503…) is never cached for a year.
 */
async function serveImage(ctx: Context, hangar: Hangar, fileId: string, request: NonNullable<ReturnType<typeof parseImageRequest>>, client: string): Promise<void> {
  const image = await hangar.transformPublicImage.execute({
    fileId, host: ctx.hostname.toLowerCase() || undefined, request, accept: ctx.get('Accept') || undefined, client,
  });
  await sendImage(ctx, image, { cacheControl: PUBLIC_CACHE_CONTROL });
}

/**
 * Answers with a derived image (see serveImage): `cacheControl` and, when given, `disposition`
 * (with the source's name) are set on success only.
 */
export async function sendImage(ctx: Context, image: PublicImage, options: { cacheControl: string; disposition?: 'inline' | 'attachment' }): Promise<void> {
  const lastModified = fileLastModified(image.file);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Cross-Origin-Resource-Policy', 'cross-origin');
  if (image.varyAccept) ctx.vary('Accept');
  const succeed = () => {
    ctx.set('ETag', image.etag);
    ctx.set('Last-Modified', lastModified.toUTCString());
    ctx.set('Cache-Control', options.cacheControl);
    if (options.disposition) ctx.set('Content-Disposition', contentDisposition(options.disposition, image.file.name ?? image.file.fileId));
  };
  if (notModified(ctx.get('If-None-Match'), ctx.get('If-Modified-Since'), image.etag, lastModified)) {
    succeed();
    ctx.status = 304;
    return;
  }
  let opened: Awaited<ReturnType<typeof image.open>>;
  try {
    opened = await image.open();
  } catch (error) {
    if (isDomainError(error, 'IMAGE_BUSY')) ctx.set('Retry-After', String(IMAGE_BUSY_RETRY_AFTER_SECONDS));
    throw error;
  }
  succeed();
  ctx.status = 200;
  ctx.type = image.contentType;
  if (opened.size !== undefined) ctx.length = opened.size;
  if (ctx.method === 'HEAD') {
    // A cached image was opened from the store (a file handle): close it unread.
    closeUnread(opened.body);
    return;
  }
  await sendStreamed(ctx, opened.body, opened.size);
}

/** Releases what an opened body holds (a file handle, a connection) without reading it. */
function closeUnread(body: AsyncIterable<Uint8Array>): void {
  const stream = body as { destroy?: () => void };
  if (typeof stream.destroy === 'function') {
    stream.destroy();
    return;
  }
  Promise.resolve(body[Symbol.asyncIterator]().return?.()).catch(() => undefined);
}
