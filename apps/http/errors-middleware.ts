import { randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';
import { DomainError } from '../../core/shared/errors.js';
import type { Logger } from '../../core/shared/logger.js';
import { ERROR_STATUS } from './error-status.js';

/**
 * The entry of an unexpected error (a bug or an outage without a DomainError): level `error`,
 * event `internal_error`, with `request_id`, `method`, `route` and the error with its stack.
 */
export const INTERNAL_ERROR_EVENT = 'internal_error';

/**
 * A request whose client went away while its body was still arriving (a closed tab, a cancelled
 * upload): nothing anyone must act on, so level `info`, one line, no stack (docs/operations.md).
 */
export const REQUEST_ABORTED_EVENT = 'request_aborted';

/** Which request an entry is about: its id, method and route template (null when unknown). */
export interface RequestLabel {
  requestId: string | null;
  method: string | null;
  route: string | null;
}

function labelOf(ctx: Context | undefined): RequestLabel {
  return { requestId: ctx?.state?.requestId ?? null, method: ctx?.method ?? null, route: (ctx?.state?.route as string | undefined) ?? null };
}

/** Logs an unexpected error ({@link INTERNAL_ERROR_EVENT}) of the request `label`, with the error and its stack. */
export function logInternalError(logger: Logger, label: RequestLabel, error: unknown): void {
  logger.error(INTERNAL_ERROR_EVENT, {
    request_id: label.requestId,
    method: label.method,
    route: label.route,
    error: error instanceof Error ? error : String(error),
  });
}

const INCOMING_ID = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * A request's id: the incoming `X-Request-Id` when it is well formed (1–64 of `A-Z a-z 0-9 . _ -`),
 * so a proxy's id carries through, else a new UUID.
 */
export function requestIdFor(incoming: string | undefined): string {
  return incoming !== undefined && INCOMING_ID.test(incoming) ? incoming : randomUUID();
}

/** The JSON body of an error answer (spec: `{ code, message, request_id, details? }`). */
export function errorJson(domain: DomainError, requestId: string) {
  return {
    code: domain.code,
    message: domain.message,
    request_id: requestId,
    ...(domain.details === undefined ? {} : { details: domain.details }),
  };
}

/**
 * First middleware of both servers: gives every request an id (a well-formed incoming
 * `X-Request-Id` is kept, else a UUID), echoes it in `X-Request-Id`, and renders every error as
 * `{ code, message, request_id, details? }` with the status from ERROR_STATUS. Anything that is
 * not a DomainError is a bug: 500 INTERNAL_ERROR, no internals in the body, logged with the id.
 */
export function errorsMiddleware(logger: Logger) {
  return async (ctx: Context, next: Next): Promise<void> => {
    const requestId = requestIdFor(ctx.get('X-Request-Id'));
    ctx.state.requestId = requestId;
    ctx.set('X-Request-Id', requestId);
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        throw new DomainError('NOT_FOUND', `No route for ${ctx.method} ${ctx.path}.`);
      }
    } catch (error) {
      let domain = toDomainError(error);
      // A body cut off by its client: failing its read, or refused by the upload for it (UPLOAD_INCOMPLETE).
      if ((domain.code === 'INTERNAL_ERROR' || domain.code === 'UPLOAD_INCOMPLETE') && clientAbortedBody(ctx, error)) {
        logAborted(logger, ctx, error);
        if (domain.code === 'INTERNAL_ERROR') domain = new DomainError('UPLOAD_INCOMPLETE', 'The client closed the connection before the whole body arrived.');
      } else if (domain.code === 'INTERNAL_ERROR') {
        logInternalError(logger, labelOf(ctx), error);
      }
      ctx.status = ERROR_STATUS[domain.code];
      // RFC 9110 §10.2.3 / RFC 6585 §4: a 429 says when to come back, in whole seconds.
      const retryAfter = (domain.details as { retry_after_seconds?: unknown } | undefined)?.retry_after_seconds;
      if (domain.code === 'RATE_LIMITED' && typeof retryAfter === 'number') ctx.set('Retry-After', String(Math.max(1, Math.ceil(retryAfter))));
      // A collision of random file ids is over at once: the next draw is free.
      if (domain.code === 'FILE_ID_COLLISION') ctx.set('Retry-After', '1');
      // The body of a refused upload may still be arriving: close the connection rather than read it.
      if (!ctx.req.complete) ctx.set('Connection', 'close');
      ctx.type = 'application/json';
      ctx.body = errorJson(domain, requestId);
    }
  };
}

/**
 * The DomainError an error answers as: itself, the matching code for errors Koa and its middleware
 * raise (405, 413, 415, a body that is not JSON), else INTERNAL_ERROR (a bug).
 */
export function toDomainError(error: unknown): DomainError {
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
export const CLIENT_GONE: ReadonlySet<string> = new Set(['ERR_STREAM_PREMATURE_CLOSE', 'ECONNRESET', 'EPIPE', 'ECONNABORTED']);

/**
 * The request's body stopped arriving because its client went away: the request was not complete
 * and reading it failed with a connection error, Node's HTTP parser met the end of the connection
 * mid-body (`HPE_INVALID_EOF_STATE` and its kin), or the request stream was aborted or destroyed.
 */
function clientAbortedBody(ctx: Context | undefined, error: unknown): boolean {
  if (!ctx || ctx.req.complete) return false;
  const code = (error as NodeJS.ErrnoException)?.code ?? '';
  return CLIENT_GONE.has(code) || code.startsWith('HPE_') || ctx.req.destroyed || (error as Error)?.message === 'aborted';
}

function logAborted(logger: Logger, ctx: Context, error: unknown): void {
  logger.info(REQUEST_ABORTED_EVENT, { request_id: ctx.state.requestId ?? null, method: ctx.method, route: ctx.state.route ?? null, reason: errorText(error) });
}

function errorText(error: unknown): string {
  const code = (error as NodeJS.ErrnoException)?.code;
  const message = error instanceof Error ? error.message : String(error);
  return code ? `${code}: ${message}` : message;
}

/**
 * Koa `error` event handler for errors outside the middleware chain (a response body stream
 * failing, the connection failing while a request body arrives): a client that went away during
 * the response is normal and not logged; one that went away during its request's body is logged as
 * `request_aborted` (info); anything else is logged like a 500.
 */
export function streamErrorHandler(logger: Logger) {
  return (error: unknown, ctx?: Context): void => {
    if (ctx && clientAbortedBody(ctx, error)) return logAborted(logger, ctx, error);
    if (CLIENT_GONE.has((error as NodeJS.ErrnoException)?.code ?? '')) return;
    logInternalError(logger, labelOf(ctx), error);
  };
}
