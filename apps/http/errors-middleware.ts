import { randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';
import { DomainError } from '../../core/shared/errors.js';
import { ERROR_STATUS } from './error-status.js';

/** Logs unexpected errors; the default writes one JSON line to stderr. */
export type ErrorLogger = (entry: { requestId: string; method: string; path: string; error: unknown }) => void;

export const stderrLogger: ErrorLogger = ({ requestId, method, path, error }) => {
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.stderr.write(`${JSON.stringify({ level: 'error', request_id: requestId, method, path, error: detail })}\n`);
};

const INCOMING_ID = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * First middleware of both servers: gives every request an id (a well-formed incoming
 * `X-Request-Id` is kept, else a UUID), echoes it in `X-Request-Id`, and renders every error as
 * `{ code, message, request_id, details? }` with the status from ERROR_STATUS. Anything that is
 * not a DomainError is a bug: 500 INTERNAL_ERROR, no internals in the body, logged with the id.
 */
export function errorsMiddleware(log: ErrorLogger = stderrLogger) {
  return async (ctx: Context, next: Next): Promise<void> => {
    const incoming = ctx.get('X-Request-Id');
    const requestId = INCOMING_ID.test(incoming) ? incoming : randomUUID();
    ctx.state.requestId = requestId;
    ctx.set('X-Request-Id', requestId);
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        throw new DomainError('NOT_FOUND', `No route for ${ctx.method} ${ctx.path}.`);
      }
    } catch (error) {
      const domain = toDomainError(error);
      if (domain.code === 'INTERNAL_ERROR') log({ requestId, method: ctx.method, path: ctx.path, error });
      ctx.status = ERROR_STATUS[domain.code];
      // RFC 9110 §10.2.3 / RFC 6585 §4: a 429 says when to come back, in whole seconds.
      const retryAfter = (domain.details as { retry_after_seconds?: unknown } | undefined)?.retry_after_seconds;
      if (domain.code === 'RATE_LIMITED' && typeof retryAfter === 'number') ctx.set('Retry-After', String(Math.max(1, Math.ceil(retryAfter))));
      // The body of a refused upload may still be arriving: close the connection rather than read it.
      if (!ctx.req.complete) ctx.set('Connection', 'close');
      ctx.type = 'application/json';
      ctx.body = {
        code: domain.code,
        message: domain.message,
        request_id: requestId,
        ...(domain.details === undefined ? {} : { details: domain.details }),
      };
    }
  };
}

function toDomainError(error: unknown): DomainError {
  if (error instanceof DomainError) return error;
  // Errors raised by Koa/@koa/router (e.g. 405 from allowedMethods, 413/400 from body parsing).
  const status = (error as { status?: unknown })?.status;
  const expose = (error as { expose?: unknown })?.expose === true;
  if (status === 405) return new DomainError('METHOD_NOT_ALLOWED', 'This method is not allowed on this path.');
  if (status === 413) return new DomainError('PAYLOAD_TOO_LARGE', 'The request body is too large.');
  if (status === 415) return new DomainError('UNSUPPORTED_MEDIA_TYPE', 'Send the body as application/json.');
  if (expose && status === 400) return new DomainError('VALIDATION_FAILED', 'The request body is not valid JSON.');
  return new DomainError('INTERNAL_ERROR', 'Something went wrong on our side. Quote the request_id if you report it.');
}

/** Errors that only mean the client went away mid-response (a closed tab, a cancelled download). */
const CLIENT_GONE = new Set(['ERR_STREAM_PREMATURE_CLOSE', 'ECONNRESET', 'EPIPE', 'ECONNABORTED']);

/**
 * Koa `error` event handler for errors after the response started (a body stream failing):
 * a client that went away is normal and not logged; anything else is logged like a 500.
 */
export function streamErrorHandler(log: ErrorLogger = stderrLogger) {
  return (error: unknown, ctx?: Context): void => {
    if (CLIENT_GONE.has((error as NodeJS.ErrnoException)?.code ?? '')) return;
    log({ requestId: String(ctx?.state?.requestId ?? '-'), method: ctx?.method ?? '-', path: ctx?.path ?? '-', error });
  };
}
