import type { Context } from 'koa';
import type { PublicImage } from '../../core/images/transform-public-image.js';
import { IMAGE_BUSY_RETRY_AFTER_SECONDS } from '../../core/images/transform-slots.js';
import { isDomainError } from '../../core/shared/errors.js';
import { contentDisposition } from '../http/http-range.js';
import { fileLastModified, notModified, sendStreamed } from '../http/serve-file.js';

/**
 * Answers with a derived image (the view address's transforms in content-app.ts, signed URLs in
 * signed-routes.ts): 304 on a matching validator before anything is computed, otherwise the bytes
 * whole (Range is ignored, RFC 9110 §14.2). `cacheControl` and, when given, `disposition` (with
 * the source's name) are set on success only, so an error is never cached.
 * @throws DomainError from opening the image (IMAGE_BUSY with `Retry-After` set, IMAGE_UNREADABLE, …)
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
