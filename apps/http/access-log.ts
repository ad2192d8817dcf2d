import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Context, Next } from 'koa';
import type { Principal } from '../../core/accounts/principal.js';
import type { Logger } from '../../core/shared/logger.js';
import { peerAddress } from './client-address.js';

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

/** The status logged for a request whose client closed the connection before the response was complete (nginx's 499, "client closed request"). */
export const CLIENT_CLOSED_STATUS = 499;

/** Longest User-Agent kept in a log entry, in characters: enough for any real browser's, not a 16 KB header. */
const USER_AGENT_MAX = 512;

/** One finished request, as {@link recordRequest} writes it. */
export interface FinishedRequest extends RequestObservation {
  requestId: string | null;
  /** The client's address after TRUST_PROXY (apps/http/client-address.ts), IPv4-mapped IPv6 as IPv4; null when unknown. */
  clientIp: string | null;
  /** The `User-Agent` header (at most 512 characters); null without one. */
  userAgent: string | null;
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
    client_ip: request.clientIp,
    user_agent: request.userAgent,
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
 * The client address and user agent of an access-log entry: the address after TRUST_PROXY
 * (`trustProxyHops` entries of X-Forwarded-For from the right, as rate limits see it, but not
 * reduced to a /64), with `::ffff:1.2.3.4` written as `1.2.3.4` so one client has one spelling.
 */
export function clientOf(ctx: Pick<Context, 'get' | 'socket'>, trustProxyHops: number): { clientIp: string | null; userAgent: string | null } {
  const raw = peerAddress(ctx, trustProxyHops).trim();
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(raw);
  const userAgent = ctx.get('User-Agent');
  return { clientIp: (mapped ? mapped[1] : raw.slice(0, 64)) || null, userAgent: userAgent === '' ? null : userAgent.slice(0, USER_AGENT_MAX) };
}

/**
 * Counts the request body bytes Node's HTTP parser hands to `req` (each `push`), whether or not
 * the app reads them: what arrived from the client, also of a body cut midway or never read.
 * @returns a function giving the count so far, in bytes
 */
export function countReceivedBytes(req: IncomingMessage): () => number {
  let received = 0;
  // eslint-disable-next-line @typescript-eslint/unbound-method -- the stream's own push, called below with the stream as `this`
  const push = req.push;
  req.push = function countedPush(this: IncomingMessage, chunk: unknown, encoding?: BufferEncoding): boolean {
    if (chunk !== null && chunk !== undefined) received += typeof chunk === 'string' ? Buffer.byteLength(chunk, encoding) : (chunk as Uint8Array).byteLength;
    return push.call(this, chunk, encoding);
  };
  return () => received;
}

/**
 * First middleware of both servers: one `info` entry `request` per request, written when the
 * response has been sent, or, when the client closed the connection before that, once the app
 * has also finished with the request (so a cut tus PATCH is logged with what it kept), with
 * - `request_id`, `method`, `route` (the route template, e.g. `/files/:id`; null when no route
 *   matched): never the path's values or the query string, which may carry a signature or token;
 * - `client_ip` (the client's address after TRUST_PROXY: the peer, or the X-Forwarded-For entry
 *   that many hops from the right; `::ffff:` IPv4 addresses as IPv4) and `user_agent` (the header,
 *   at most 512 characters; null without one), for fail2ban-style tools and abuse reports;
 * - `status`: the status sent, or 499 ("client closed request", as nginx logs it) when the client
 *   closed the connection before the response was complete, whatever the app had set;
 * - `duration_ms` (from the first middleware to the last byte handed to the socket, or to the
 *   close, ms, 0.1 ms precision), `bytes_in` (request body bytes: an upload's stored size, the bytes
 *   a tus PATCH kept, else the body bytes received from the client, counted as they arrive, so a
 *   body cut midway counts what came), `bytes_out` (bytes written to the socket for this response,
 *   headers included);
 * - `account_id` and `credential` (`jwt` | `api_key`) when the request carried a valid credential,
 *   else null: never the credential itself;
 * - `aborted: true` when the client closed the connection before the response was complete.
 * The same figures go to `options.observer` (metrics), when given. `options.trustProxyHops` is
 * TRUST_PROXY (default 0: the socket's peer).
 */
export function accessLogMiddleware(logger: Logger, options: { server: 'api' | 'content'; observer?: RequestObserver; trustProxyHops?: number }) {
  const { server, observer } = options;
  const trustProxyHops = options.trustProxyHops ?? 0;
  return async (ctx: Context, next: Next): Promise<void> => {
    const logging = logger.enabled('info');
    if (!logging && !observer) return next();
    const upload = observer !== undefined && ctx.method === 'POST' && ctx.path === '/files';
    if (upload) observer.uploadsInFlight(1);
    const received = countReceivedBytes(ctx.req);
    const client = clientOf(ctx, trustProxyHops);
    const write = ({ durationMs, bytesOut, aborted }: FinishFigures) => {
      if (upload) observer.uploadsInFlight(-1);
      const counted = ctx.state.requestBytes as number | undefined;
      recordRequest(logging ? logger : undefined, observer, {
        server,
        requestId: ctx.state.requestId ?? null,
        ...client,
        method: ctx.method,
        route: (ctx.state.route as string | undefined) ?? null,
        status: aborted ? CLIENT_CLOSED_STATUS : ctx.status,
        durationMs,
        bytesIn: counted ?? received(),
        bytesOut,
        principal: ctx.state.principal as Principal | undefined,
        aborted,
      });
    };
    // A response sent is written at once (the app is done by then); a connection closed early is
    // written when the app is done too, with what it counted (ctx.state.requestBytes).
    let appDone = false;
    let closedEarly: FinishFigures | undefined;
    whenFinished(ctx.req, ctx.res, (figures) => {
      if (appDone) write(figures);
      else closedEarly = figures;
    });
    try {
      await next();
    } finally {
      appDone = true;
      if (closedEarly) write(closedEarly);
    }
  };
}
