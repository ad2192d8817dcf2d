import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Context, Next } from 'koa';
import type { Principal } from '../../core/accounts/authenticate.js';
import type { Logger } from '../../core/shared/logger.js';

/** One finished request as metrics see it (durations in ms, sizes in bytes). */
export interface RequestObservation {
  server: 'api' | 'content';
  method: string;
  /** The route template (`/files/:id`), or null when no route matched. */
  route: string | null;
  status: number;
  durationMs: number;
  bytesIn: number;
  bytesOut: number;
}

/** Who else wants to know about each request: Prometheus metrics (apps/server/metrics.ts). */
export interface RequestObserver {
  request(observation: RequestObservation): void;
  /** An upload (`POST /files`) began (+1) or ended (−1). */
  uploadsInFlight(delta: 1 | -1): void;
}

/** One finished request, as {@link recordRequest} writes it. */
export interface FinishedRequest extends RequestObservation {
  requestId: string | null;
  /** Who the request's valid credential named; undefined without one. */
  principal: Principal | undefined;
  /** The client closed the connection before the response was complete. */
  aborted: boolean;
}

/**
 * Writes one finished request: to `observer` (metrics) when given, and as the `request` entry
 * described at {@link accessLogMiddleware} to `logger` when given (undefined: `info` is off).
 */
export function recordRequest(logger: Logger | undefined, observer: RequestObserver | undefined, request: FinishedRequest): void {
  const { server, method, route, status, durationMs, bytesIn, bytesOut, principal } = request;
  observer?.request({ server, method, route, status, durationMs, bytesIn, bytesOut });
  logger?.info('request', {
    request_id: request.requestId,
    method,
    route,
    status,
    duration_ms: durationMs,
    bytes_in: bytesIn,
    bytes_out: bytesOut,
    account_id: principal?.userId ?? null,
    credential: principal ? (principal.kind === 'session' ? 'jwt' : 'api_key') : null,
    ...(request.aborted ? { aborted: true } : {}),
  });
}

/** What {@link whenFinished} measured of one response. */
export interface FinishFigures {
  /** From the call of whenFinished to the response's end (or its connection's close), ms, 0.1 ms precision. */
  durationMs: number;
  /** Bytes written to the socket for this response since then, headers included. */
  bytesOut: number;
  /** The connection closed before the response was complete. */
  aborted: boolean;
}

/**
 * Calls `done` once, when `res` has been sent or its connection closed before that (whichever
 * comes first), with the figures of the access-log entry measured from this call.
 */
export function whenFinished(req: IncomingMessage, res: ServerResponse, done: (figures: FinishFigures) => void): void {
  const started = performance.now();
  const socket = req.socket;
  const writtenBefore = socket.bytesWritten;
  let called = false;
  const finished = () => {
    if (called) return;
    called = true;
    done({ durationMs: Math.round((performance.now() - started) * 10) / 10, bytesOut: socket.bytesWritten - writtenBefore, aborted: !res.writableFinished });
  };
  res.once('finish', finished);
  res.once('close', finished);
}

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
 * The same figures go to `options.observer` (metrics), when given.
 */
export function accessLogMiddleware(logger: Logger, options: { server: 'api' | 'content'; observer?: RequestObserver }) {
  const { server, observer } = options;
  return async (ctx: Context, next: Next): Promise<void> => {
    const logging = logger.enabled('info');
    if (!logging && !observer) return next();
    const upload = observer !== undefined && ctx.method === 'POST' && ctx.path === '/files';
    if (upload) observer.uploadsInFlight(1);
    whenFinished(ctx.req, ctx.res, ({ durationMs, bytesOut, aborted }) => {
      if (upload) observer.uploadsInFlight(-1);
      const declared = Number(ctx.req.headers['content-length']);
      const received = ctx.state.requestBytes as number | undefined;
      const bytesIn = received ?? (ctx.req.complete && Number.isSafeInteger(declared) ? declared : 0);
      recordRequest(logging ? logger : undefined, observer, {
        server, requestId: ctx.state.requestId ?? null, method: ctx.method, route: (ctx.state.route as string | undefined) ?? null, status: ctx.status,
        durationMs, bytesIn, bytesOut, principal: ctx.state.principal as Principal | undefined, aborted,
      });
    });
    await next();
  };
}
