import type { Context, Next } from 'koa';
import type { Principal } from '../../core/accounts/authenticate.js';
import type { Logger } from '../../core/shared/logger.js';

/**
 * First middleware of both servers: one `info` entry `request` per request, written when the
 * response has been sent (or the connection closed before that), with
 * - `request_id`, `method`, `route` (the route template, e.g. `/files/:id`; null when no route
 *   matched): never the path's values or the query string, which may carry a signature or token;
 * - `status`, `duration_ms` (from the first middleware to the last byte handed to the socket, ms,
 *   0.1 ms precision), `bytes_in` (request body bytes read: an upload's stored size, else the
 *   Content-Length of a body read whole, else 0), `bytes_out` (bytes written to the socket for this
 *   response, headers included);
 * - `account_id` and `credential` (`jwt` | `api_key`) when the request carried a valid credential,
 *   else null: never the credential itself;
 * - `aborted: true` when the client closed the connection before the response was complete.
 */
export function accessLogMiddleware(logger: Logger) {
  return async (ctx: Context, next: Next): Promise<void> => {
    if (!logger.enabled('info')) return next();
    const started = performance.now();
    const socket = ctx.req.socket;
    const writtenBefore = socket.bytesWritten;
    let logged = false;
    const write = () => {
      if (logged) return;
      logged = true;
      const principal = ctx.state.principal as Principal | undefined;
      const declared = Number(ctx.req.headers['content-length']);
      const received = ctx.state.requestBytes as number | undefined;
      logger.info('request', {
        request_id: ctx.state.requestId ?? null,
        method: ctx.method,
        route: (ctx.state.route as string | undefined) ?? null,
        status: ctx.status,
        duration_ms: Math.round((performance.now() - started) * 10) / 10,
        bytes_in: received ?? (ctx.req.complete && Number.isSafeInteger(declared) ? declared : 0),
        bytes_out: socket.bytesWritten - writtenBefore,
        account_id: principal?.userId ?? null,
        credential: principal ? (principal.kind === 'session' ? 'jwt' : 'api_key') : null,
        ...(ctx.res.writableFinished ? {} : { aborted: true }),
      });
    };
    ctx.res.once('finish', write);
    ctx.res.once('close', write);
    await next();
  };
}
