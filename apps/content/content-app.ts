import { Type } from '@sinclair/typebox';
import Koa, { type Context } from 'koa';
import type { Hangar } from '../../core/hangar.js';
import { DomainError, isDomainError } from '../../core/shared/errors.js';
import { parseImageRequest, type QueryValues } from '../../core/images/image-params.js';
import { IMAGE_BUSY_RETRY_AFTER_SECONDS } from '../../core/images/transform-slots.js';
import { errorsMiddleware, streamErrorHandler } from '../http/errors-middleware.js';
import { accessLogMiddleware, type RequestObserver } from '../http/access-log.js';
import type { Logger } from '../../core/shared/logger.js';
import { BINARY, buildRouter, defineRoute, type Route } from '../http/route.js';
import { ErrorBody } from '../api/schemas.js';
import { operationalRoutes, type OperationalOptions } from '../http/health.js';
import { contentDisposition, etagMatches, parseRange } from './http-range.js';
import { sendBody } from './send-body.js';

/** Files are immutable (a new upload gets a new id), so they may be cached for a year. */
const CACHE_CONTROL = 'public, max-age=31536000, immutable';

/**
 * Types a browser would run as a document (scripts, markup): served under
 * `Content-Security-Policy: sandbox` so an uploaded SVG or HTML file cannot act on the content origin.
 */
const ACTIVE_TYPES = new Set([
  'image/svg+xml', 'text/html', 'application/xhtml+xml', 'text/xml', 'application/xml',
  'text/javascript', 'application/javascript', 'application/ecmascript', 'text/ecmascript', 'application/pdf+xml',
]);

/**
 * The public content server ({cdn_url}): `GET`/`HEAD` `/m/:file_id` (inline view) and
 * `/d/:file_id` (download, `Content-Disposition: attachment`), plus `/healthz`, `/readyz` and `/version`.
 * Serves byte ranges (206/416, RFC 9110 §14), a strong ETag from the SHA-256, 304 on
 * `If-None-Match`/`If-Modified-Since` (§13.1), `Last-Modified`, long-lived `Cache-Control`, `nosniff`.
 * Private and missing files are both 404 FILE_NOT_FOUND. Bodies are streamed, never buffered.
 */
export function createContentApp(hangar: Hangar, options: { logger: Logger; operational: OperationalOptions; observer?: RequestObserver }): Koa {
  const app = new Koa({ proxy: false });
  const router = buildRouter([...contentRoutes(hangar), ...operationalRoutes(hangar, options.operational)], hangar);
  app.on('error', streamErrorHandler(options.logger));
  app.use(accessLogMiddleware(options.logger, { server: 'content', observer: options.observer }));
  app.use(errorsMiddleware(options.logger));
  app.use(router.routes());
  app.use(router.allowedMethods({ throw: true }));
  return app;
}

const ContentParams = Type.Object({ id: Type.String({ description: 'The file’s `file_id`', maxLength: 64 }) });
const ContentHeaders = Type.Object({
  range: Type.Optional(Type.String({ description: 'One byte range, `bytes=a-b`, `bytes=a-` or `bytes=-n` (RFC 9110 §14.1.2)' })),
  'if-range': Type.Optional(Type.String({ description: 'Apply Range only while this ETag still matches' })),
  'if-none-match': Type.Optional(Type.String({ description: 'ETags; a match answers 304' })),
  'if-modified-since': Type.Optional(Type.String({ description: 'HTTP date; not modified since answers 304' })),
});
const contentResponses = { 200: BINARY, 206: BINARY, 304: null, 404: ErrorBody, 416: ErrorBody, 503: ErrorBody };

/**
 * Image parameters of the view address (docs/images.md). Taken as text (a repeated one as a list)
 * and checked by the core, so every bad value answers the same INVALID_TRANSFORM.
 */
const imageParameter = (description: string) => Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())], { description }));
const ImageQuery = Type.Object({
  w: imageParameter('Width in px, 1–4096. Image files only.'),
  h: imageParameter('Height in px, 1–4096. Image files only.'),
  fit: imageParameter('With both `w` and `h`: `cover` (default), `contain`, `fill`, `inside` or `outside`.'),
  format: imageParameter('`webp`, `avif`, `jpeg`, `png`, or `auto` (AVIF or WebP when `Accept` lists it; the response then has `Vary: Accept`). Default: the source’s format.'),
  q: imageParameter('Quality 1–100 for WebP, AVIF and JPEG (defaults 80, 50, 80).'),
});
const ViewHeaders = Type.Object({
  ...ContentHeaders.properties,
  accept: Type.Optional(Type.String({ description: 'With `format=auto`: `image/avif` or `image/webp` listed picks that format' })),
});
const viewResponses = { ...contentResponses, 400: ErrorBody, 403: ErrorBody, 422: ErrorBody };

/** The public addresses of files, as routes (documented in the OpenAPI document under {cdn_url}). */
export function contentRoutes(hangar: Hangar): Route[] {
  return [
    defineRoute({
      method: 'GET', path: '/m/:id', operationId: 'viewFile', tag: 'content', auth: 'none', server: 'content', alsoHead: true,
      summary: 'A public file, inline (view address)',
      description:
        'Byte ranges, strong ETag (the SHA-256), 304 on If-None-Match/If-Modified-Since, cached for a year (files never change). Private and missing files are 404.\n\n' +
        'With any of `w`, `h`, `fit`, `format`, `q` on an image file, a transformed image instead (docs/images.md): computed once, then cached; each computation counts in `image_ops`. ' +
        'Invalid values are 400 `INVALID_TRANSFORM`; parameters on a non-image file 400 `NOT_AN_IMAGE`; the plan’s limit 403 `IMAGE_OPS_LIMIT_REACHED`; ' +
        'an undecodable or oversized image 422 `IMAGE_UNREADABLE` / `IMAGE_TOO_LARGE`; busy 503 `IMAGE_BUSY` with `Retry-After`.',
      params: ContentParams, query: ImageQuery, headers: ViewHeaders, responses: viewResponses,
      handler: async ({ ctx, params, query }) => {
        const request = parseImageRequest(query as QueryValues);
        if (request) await serveImage(ctx, hangar, params.id, request);
        else await serve(ctx, hangar, params.id, 'inline');
      },
    }),
    defineRoute({
      method: 'GET', path: '/d/:id', operationId: 'downloadFile', tag: 'content', auth: 'none', server: 'content', alsoHead: true,
      summary: 'A public file, as an attachment (download address)',
      description: 'Same as the view address, with `Content-Disposition: attachment` and the file’s name (RFC 6266).',
      params: ContentParams, headers: ContentHeaders, responses: contentResponses,
      handler: ({ ctx, params }) => serve(ctx, hangar, params.id, 'attachment'),
    }),
  ];
}

async function serve(ctx: Context, hangar: Hangar, fileId: string, disposition: 'inline' | 'attachment'): Promise<void> {
  const { file, open } = await hangar.readPublicFile.execute({ fileId, host: ctx.hostname.toLowerCase() || undefined });
  const etag = `"${file.sha256}"`;
  const lastModified = new Date(Math.floor(file.createdAt.getTime() / 1000) * 1000);

  ctx.set('ETag', etag);
  ctx.set('Last-Modified', lastModified.toUTCString());
  ctx.set('Cache-Control', CACHE_CONTROL);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Accept-Ranges', 'bytes');
  ctx.set('Content-Disposition', contentDisposition(disposition, file.name ?? file.fileId));
  if (ACTIVE_TYPES.has(file.contentType)) ctx.set('Content-Security-Policy', "sandbox; default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'");
  ctx.set('Cross-Origin-Resource-Policy', 'cross-origin');

  if (notModified(ctx, etag, lastModified)) {
    ctx.status = 304;
    return;
  }

  // If-Range (RFC 9110 §13.1.5): a range only applies while the validator still matches.
  const ifRange = ctx.get('If-Range');
  const rangeHeader = !ifRange || ifRange === etag ? ctx.get('Range') : undefined;
  const range = parseRange(rangeHeader, file.size);
  if (range.kind === 'unsatisfiable') {
    ctx.remove('Cache-Control');
    ctx.remove('Content-Disposition');
    ctx.set('Content-Range', `bytes */${file.size}`);
    throw new DomainError('RANGE_NOT_SATISFIABLE', `The requested range is outside the file's ${file.size} bytes.`);
  }

  ctx.type = file.contentType;
  if (range.kind === 'range') {
    ctx.status = 206;
    ctx.set('Content-Range', `bytes ${range.range.start}-${range.range.end}/${file.size}`);
  } else {
    ctx.status = 200;
  }
  const length = range.kind === 'range' ? range.range.end - range.range.start + 1 : file.size;
  if (ctx.method === 'HEAD') {
    ctx.length = length;
    return;
  }
  // The whole file as a range too: the store then reads exactly its bytes (bench/README.md, "4 KiB reads").
  // Borrowed chunks: sendStreamed keeps their rule, so a large file goes through two reused buffers.
  const body = await withoutCaching(ctx, () =>
    open(range.kind === 'range' ? range.range : file.size > 0 ? { start: 0, end: file.size - 1 } : undefined, { borrowChunks: true }),
  );
  ctx.length = length;
  await sendStreamed(ctx, body, length);
}

/**
 * A transformed image (docs/images.md): 304 on a matching validator before anything is computed;
 * otherwise the cached or freshly computed bytes, whole (Range is ignored, RFC 9110 §14.2). Caching
 * headers are set only on success, so an error (403, 503…) is never cached for a year.
 */
async function serveImage(ctx: Context, hangar: Hangar, fileId: string, request: NonNullable<ReturnType<typeof parseImageRequest>>): Promise<void> {
  const image = await hangar.transformPublicImage.execute({
    fileId, host: ctx.hostname.toLowerCase() || undefined, request, accept: ctx.get('Accept') || undefined,
  });
  const lastModified = new Date(Math.floor(image.file.createdAt.getTime() / 1000) * 1000);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Cross-Origin-Resource-Policy', 'cross-origin');
  if (image.varyAccept) ctx.vary('Accept');
  const succeed = () => {
    ctx.set('ETag', image.etag);
    ctx.set('Last-Modified', lastModified.toUTCString());
    ctx.set('Cache-Control', CACHE_CONTROL);
  };
  if (notModified(ctx, image.etag, lastModified)) {
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

/**
 * Sends `body` as the response, status and headers already set (sendBody: backpressure, borrowed
 * chunks kept to their rule). The first chunk is read before anything is sent, so a body that
 * fails at once (BLOB_STORE_UNAVAILABLE) is still answered by the error middleware, without the
 * caching headers of a success. Once bytes went out, a failure or a client that went away destroys
 * the response (never a short body that looks whole) and is reported through the app's `error`
 * event, which logs it unless the client went away (streamErrorHandler).
 * @param length the body's length in bytes (already set as Content-Length), or undefined for chunked encoding
 */
async function sendStreamed(ctx: Context, body: AsyncIterable<Uint8Array>, length: number | undefined): Promise<void> {
  const chunks = body[Symbol.asyncIterator]();
  const first = await withoutCaching(ctx, () => chunks.next());
  // From here on this function writes the response itself; Koa must not.
  ctx.respond = false;
  try {
    await sendBody(ctx.res, chunks, first, length);
  } catch (error) {
    ctx.res.destroy();
    ctx.app.emit('error', error, ctx);
  }
}

/** Runs `step`; when it fails, removes the headers of a successful answer (an error is never cached for a year) and rethrows. */
async function withoutCaching<T>(ctx: Context, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    for (const name of ['ETag', 'Last-Modified', 'Cache-Control', 'Content-Disposition', 'Content-Range', 'Content-Length']) ctx.remove(name);
    throw error;
  }
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

function notModified(ctx: Context, etag: string, lastModified: Date): boolean {
  const ifNoneMatch = ctx.get('If-None-Match');
  if (ifNoneMatch) return etagMatches(ifNoneMatch, etag);
  const since = Date.parse(ctx.get('If-Modified-Since'));
  return !Number.isNaN(since) && lastModified.getTime() <= since;
}
