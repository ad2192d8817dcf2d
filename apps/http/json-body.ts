import type { Context, Next } from 'koa';

/** Statuses whose answers carry no content (RFC 9110 §15.3.5, §15.3.6, §15.4.5), as Koa's `statuses.empty`. */
const NO_CONTENT = new Set([204, 205, 304]);

/**
 * Sends a JSON body as Koa would, encoded once: after every later middleware has run, a body that is
 * a plain object or an array (what Koa's `respond` serialises with `JSON.stringify`) becomes the
 * UTF-8 Buffer of that same text, with the same `Content-Type` and a `Content-Length` of its bytes.
 *
 * Why: for a string body, Koa's `respond` counts its UTF-8 bytes (`Buffer.byteLength`), Node's
 * `res.end` counts them again, and the socket encodes the string: three passes over the text. A
 * Buffer is encoded once and its length is known. A listing's 15 KB body spent ~17 µs in those
 * counts alone (decision 0013, docs/decisions/).
 *
 * Left as they are: strings, Buffers, streams and other objects; answers whose status has no body
 * (204, 205, 304: Koa drops the body); and a body whose `Content-Type` a middleware removed (Koa
 * would send it without one, a Buffer would get `application/octet-stream`). Goes first in the
 * app, so that what it converts is the body Koa would have sent.
 * @throws what later middleware throws, unchanged (nothing is converted then)
 */
export function jsonBodyMiddleware() {
  return async (ctx: Context, next: Next): Promise<void> => {
    await next();
    const body: unknown = ctx.body;
    if (body === null || typeof body !== 'object' || NO_CONTENT.has(ctx.status) || !isPlainJson(body)) return;
    if (!ctx.response.get('Content-Type')) return;
    ctx.body = Buffer.from(JSON.stringify(body), 'utf8');
  };
}

/** A plain object (its prototype `Object.prototype` or null) or an array: what Koa sends as JSON and nothing else would treat otherwise. */
function isPlainJson(body: object): boolean {
  if (Array.isArray(body)) return true;
  const prototype: unknown = Object.getPrototypeOf(body);
  return prototype === Object.prototype || prototype === null;
}
