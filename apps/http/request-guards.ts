import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Context, Next } from 'koa';
import { DomainError, type ErrorCode } from '../../core/shared/errors.js';
import { ERROR_STATUS } from './error-status.js';

/** How many `Host` header lines `rawHeaders` (IncomingMessage.rawHeaders: names and values in turn) holds. */
export function hostHeaders(rawHeaders: readonly string[]): number {
  let hosts = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i].length === 4 && rawHeaders[i].toLowerCase() === 'host') hosts++;
  return hosts;
}

/**
 * Refuses a request with more than one `Host` header with 400 MALFORMED_REQUEST (RFC 9112 §3.2:
 * "a server MUST respond with a 400"). Node keeps only the first, so the two servers, a proxy and
 * the content origin's host check could each read a different one. Goes after errorsMiddleware.
 * @throws DomainError MALFORMED_REQUEST (400)
 */
export function singleHostMiddleware() {
  return async (ctx: Context, next: Next): Promise<void> => {
    if (hostHeaders(ctx.req.rawHeaders) > 1) throw new DomainError('MALFORMED_REQUEST', 'The request has more than one Host header (RFC 9112 §3.2).');
    await next();
  };
}

/**
 * In place of @koa/router's `allowedMethods`: after the routes, a request no route answered gets
 * 405 METHOD_NOT_ALLOWED with `Allow` (RFC 9110 §15.5.6) when its path is served with other
 * methods, whatever its method (TRACE, PROPFIND, QUERY… included); else 501 NOT_IMPLEMENTED
 * (§15.6.2) when no route of this server uses its method; else it stays a 404. OPTIONS on a known
 * path answers 200 with `Allow`, as the router did. Goes after errorsMiddleware, before the routes.
 * @throws DomainError METHOD_NOT_ALLOWED (405), NOT_IMPLEMENTED (501)
 */
export function allowedMethodsMiddleware(routes: { methods: ReadonlySet<string> }) {
  const implemented = new Set(['HEAD', 'OPTIONS', ...routes.methods]);
  return async (ctx: Context, next: Next): Promise<void> => {
    await next();
    if (ctx.body !== undefined || ctx.status !== 404) return;
    const matched = ((ctx as { matched?: { methods: string[] }[] }).matched ?? []).flatMap((layer) => layer.methods);
    const allowed = [...new Set(matched)];
    if (allowed.length > 0) {
      ctx.set('Allow', allowed.join(', '));
      if (ctx.method === 'OPTIONS') {
        ctx.status = 200;
        ctx.body = '';
        return;
      }
      if (!allowed.includes(ctx.method)) throw new DomainError('METHOD_NOT_ALLOWED', `${ctx.method} is not allowed on this path; use ${allowed.join(', ')}.`);
      return;
    }
    if (!implemented.has(ctx.method)) throw new DomainError('NOT_IMPLEMENTED', `This server does not implement the ${ctx.method} method.`);
  };
}

/** What Node's HTTP parser reports, as an answer in the error format. */
function clientErrorAnswer(error: NodeJS.ErrnoException): { code: ErrorCode; message: string } {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return { code: 'HEADERS_TOO_LARGE', message: 'The request headers are larger than this server reads.' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { code: 'REQUEST_TIMEOUT', message: 'The request did not arrive in time.' };
    default:
      return { code: 'MALFORMED_REQUEST', message: 'The request is not valid HTTP/1.1.' };
  }
}

/**
 * Answers what Node's HTTP server refuses before any app sees the request (a malformed request
 * line or header, headers over the size limit, headers not complete within `headersTimeout`) in
 * the same error format as every other answer: `{ code, message, request_id }`, `X-Request-Id`,
 * `nosniff`, then closes the connection (Node's default answers 400/408/431 with no body at all).
 * `extraHeaders` are added to each such answer (e.g. HSTS). A socket that already got bytes or is
 * gone is only destroyed.
 */
export function answerClientErrors(server: Server, extraHeaders: Record<string, string> = {}): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (!socket.writable || (socket as Duplex & { bytesWritten?: number }).bytesWritten !== 0 || error.code === 'ECONNRESET') {
      socket.destroy();
      return;
    }
    const { code, message } = clientErrorAnswer(error);
    const status = ERROR_STATUS[code];
    const requestId = randomUUID();
    const body = JSON.stringify({ code, message, request_id: requestId });
    const headers = {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': String(Buffer.byteLength(body)),
      'X-Request-Id': requestId,
      'X-Content-Type-Options': 'nosniff',
      'Cache-Control': 'no-store',
      ...extraHeaders,
      Connection: 'close',
    };
    const head = Object.entries(headers)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${head}\r\n${body}`);
  });
}
