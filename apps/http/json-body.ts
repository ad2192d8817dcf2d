import type Koa from 'koa';

/**
 * Makes `app` take a body that is a plain object or an array (what Koa would serialise with
 * `JSON.stringify`) as the UTF-8 Buffer of that same text, at the moment a handler or middleware
 * sets it: `ctx.body = { … }` then works as in Koa (status 200 unless set, a `Content-Type` with
 * `json` in it unless it had one, the same bytes on the wire), plus a `Content-Length` of those
 * bytes. Strings, Buffers, streams, `null` and other objects (a `Date`, a `Response`…) go to Koa's
 * own setter unchanged.
 *
 * Why, both measured (decision 0013, docs/decisions/):
 * - encoded once: for a string body Koa's `respond` counts its UTF-8 bytes, Node's `res.end` counts
 *   them again and the socket encodes the string. A listing's 15 KB body spent ~17 µs in those
 *   counts alone;
 * - Koa's setter tests an object body against the global `Response` before treating it as JSON,
 *   and in Node that global is a lazy getter that loads undici (fetch): 40 ms of CPU and 9 MiB of
 *   memory in the first request of a process that otherwise never uses fetch. A Buffer is matched
 *   before that test.
 *
 * It redefines `body` on `app.response` (the prototype of every request's `ctx.response`, which
 * Koa lets an app extend), reading and writing through Koa's own accessor on its prototype.
 * @throws TypeError from `JSON.stringify` for a body that cannot be serialised (a cycle, a BigInt), as Koa would
 */
export function sendJsonBodiesAsBuffers(app: Koa): void {
  const koaResponse = Object.getPrototypeOf(app.response) as object;
  const enumerable = Object.getOwnPropertyDescriptor(koaResponse, 'body')?.enumerable;
  Object.defineProperty(app.response, 'body', {
    configurable: true,
    enumerable,
    get(this: Koa.Response): unknown {
      return Reflect.get(koaResponse, 'body', this);
    },
    set(this: Koa.Response, value: unknown) {
      if (value !== null && typeof value === 'object' && isPlainJson(value)) {
        // Koa's own rule for a JSON body's type.
        if (!this.type || !/\bjson\b/i.test(this.type)) this.type = 'json';
        value = Buffer.from(JSON.stringify(value), 'utf8');
      }
      Reflect.set(koaResponse, 'body', value, this);
    },
  });
}

/** A plain object (its prototype `Object.prototype` or null) or an array: what Koa sends as JSON and nothing else would treat otherwise. */
function isPlainJson(body: object): boolean {
  if (Array.isArray(body)) return true;
  const prototype: unknown = Object.getPrototypeOf(body);
  return prototype === Object.prototype || prototype === null;
}
