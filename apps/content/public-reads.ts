import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { PublicFile } from '../../core/files/read-public-file.js';
import type { Hangar } from '../../core/hangar.js';
import type { Logger } from '../../core/shared/logger.js';
import { CLIENT_CLOSED_STATUS, clientOf, recordRequest, type RequestObserver, whenFinished } from '../http/access-log.js';
import { ERROR_STATUS } from '../http/error-status.js';
import { CLIENT_GONE, errorJson, logInternalError, type RequestLabel, requestIdFor, toDomainError } from '../http/errors-middleware.js';
import { hostHeaders } from '../http/request-guards.js';
import { sendBody } from '../http/send-body.js';
import type { RangeResult } from '../http/http-range.js';
import {
  contentRange,
  contentTypeHeader,
  fileEtag,
  fileHeaders,
  fileLastModified,
  notModified,
  PUBLIC_CACHE_CONTROL,
  rangeNotSatisfiable,
  requestedRange,
  SUCCESS_ONLY_HEADERS,
  UNSATISFIABLE_DROPPED,
} from '../http/serve-file.js';

/** Options of {@link publicReadsFirst}. */
export interface PublicReadsOptions {
  logger: Logger;
  observer?: RequestObserver;
  /** The content origin's own headers on every answer (contentOriginHeaders: nosniff, HSTS). */
  originHeaders: Record<string, string>;
  /** TRUST_PROXY: proxies whose X-Forwarded-For entry names the client in the access log (default 0). */
  trustProxyHops?: number;
}

/** `/m/<file id>` or `/d/<file id>`, nothing else: no query string, no escapes, no trailing slash (file ids: stored-file.ts, isFileId). */
const PLAIN_READ = /^\/([md])\/([0-9A-Za-z]{10})$/;

/** Request headers that make a read more than plain: a body. */
const NOT_PLAIN = ['content-length', 'transfer-encoding'] as const;

/**
 * The content server's request listener: answers plain reads of public files itself and hands
 * every other request to `app` (the Koa app of createContentApp, unchanged).
 *
 * A plain read is `GET` or `HEAD` of `/m/<file id>` or `/d/<file id>` with no query string, no
 * request body, and one `Host` header naming a host without `[`, `,` or `@` (so that its hostname
 * is the text before any `:`, as Koa reads it). That is nearly every read of a file host: a
 * browser's revalidation (`If-None-Match`, `If-Modified-Since`: 304 when its copy is current,
 * {@link notModified}) and a byte range (`Range`, `If-Range`: 206, or 416 outside the file,
 * {@link requestedRange}) included, decided as serveFile decides them; the rest (image
 * parameters, malformed requests) goes through the app as before.
 *
 * It answers exactly what the app answers for the same request: the same use case
 * (`ReadPublicFile`: host rules, expiry, `origin_reads` and read counts), the same headers
 * ({@link fileHeaders}, {@link contentTypeHeader}, the origin's headers, `X-Request-Id` from
 * {@link requestIdFor}), the same error answers ({@link errorJson} with ERROR_STATUS; a bug is a 500
 * logged as `internal_error`), the body through the same {@link sendBody}, and the same access-log
 * entry and metrics ({@link recordRequest}, route `/m/:id` or `/d/:id`).
 * `test/http/public-reads.test.ts` compares the two answer for answer. What it saves is the app's
 * per-request machinery (context objects, middleware chain, routing, validation of parameters
 * that a plain read does not have): about a third of a small read's CPU (decision 0011,
 * docs/decisions/).
 */
export function publicReadsFirst(
  hangar: Hangar,
  app: (req: IncomingMessage, res: ServerResponse) => void | Promise<void>,
  options: PublicReadsOptions,
): RequestListener {
  const origin = Object.entries(options.originHeaders).flat();
  return (req, res) => {
    const plain = plainRead(req);
    // Koa's callback answers every error itself: its promise never rejects.
    if (!plain) return void app(req, res);
    answer(hangar, options, origin, req, res, plain).catch((error: unknown) => {
      // Not expected (answer handles its own failures): a bug, logged as the app logs one; the connection is cut.
      logInternalError(options.logger, { requestId: null, method: req.method ?? null, route: null }, error);
      res.destroy();
    });
  };
}

/** What a plain read asks for, or undefined when the request is not one (see {@link publicReadsFirst}). */
function plainRead(req: IncomingMessage): { disposition: 'inline' | 'attachment'; fileId: string; host: string } | undefined {
  if (req.method !== 'GET' && req.method !== 'HEAD') return undefined;
  const match = PLAIN_READ.exec(req.url ?? '');
  if (!match) return undefined;
  const headers = req.headers;
  for (const name of NOT_PLAIN) if (headers[name] !== undefined) return undefined;
  const host = headers.host;
  if (!host || host.includes('[') || host.includes(',') || host.includes('@') || hostHeaders(req.rawHeaders) !== 1) return undefined;
  return { disposition: match[1] === 'd' ? 'attachment' : 'inline', fileId: match[2], host: host.split(':', 1)[0].toLowerCase() };
}

/** Answers one plain read (see {@link publicReadsFirst}): the file's bytes, or the error the app would answer. */
async function answer(
  hangar: Hangar,
  options: PublicReadsOptions,
  origin: string[],
  req: IncomingMessage,
  res: ServerResponse,
  plain: { disposition: 'inline' | 'attachment'; fileId: string; host: string },
): Promise<void> {
  const requestId = requestIdFor(req.headers['x-request-id'] as string | undefined);
  const label: RequestLabel = { requestId, method: req.method!, route: plain.disposition === 'inline' ? '/m/:id' : '/d/:id' };
  const logger = options.logger.enabled('info') ? options.logger : undefined;
  if (logger || options.observer) {
    const client = clientOf({ get: (name: string) => String(req.headers[name.toLowerCase()] ?? ''), socket: req.socket }, options.trustProxyHops ?? 0);
    whenFinished(req, res, ({ durationMs, bytesOut, aborted }) =>
      recordRequest(logger, options.observer, {
        server: 'content',
        requestId,
        ...client,
        method: req.method!,
        route: label.route,
        status: aborted ? CLIENT_CLOSED_STATUS : res.statusCode,
        durationMs,
        bytesIn: 0,
        bytesOut,
        principal: undefined,
        aborted,
      }),
    );
  }

  let found: PublicFile;
  try {
    found = await hangar.readPublicFile.execute({
      fileId: plain.fileId,
      host: plain.host || undefined,
      kind: plain.disposition === 'attachment' ? 'download' : 'view',
    });
  } catch (error) {
    return answerError(options.logger, origin, res, label, error);
  }
  const { file, open } = found;
  const etag = fileEtag(file);
  const headers = fileHeaders(file, { disposition: plain.disposition, cacheControl: PUBLIC_CACHE_CONTROL });
  withOrigin(headers, origin);
  headers.push('X-Request-Id', requestId);
  // As serveFile decides: a current copy is a 304 whatever the range; a range outside the file a 416.
  const current = notModified(req.headers['if-none-match'], req.headers['if-modified-since'], etag, fileLastModified(file));
  const range: RangeResult = current ? { kind: 'none' } : requestedRange(req.headers['if-range'] as string | undefined, req.headers.range, etag, file.size);
  if (range.kind === 'unsatisfiable') {
    return answerError(
      options.logger,
      [...without(headers, UNSATISFIED), 'Content-Range', contentRange(undefined, file.size)],
      res,
      label,
      rangeNotSatisfiable(file.size),
    );
  }
  const length = range.kind === 'range' ? range.range.end - range.range.start + 1 : file.size;
  // A 304 carries the file's headers but no Content-Type or Content-Length, as Koa answers one.
  if (!current) {
    const type = contentTypeHeader(file.contentType);
    if (type !== undefined) headers.push('Content-Type', type);
    if (range.kind === 'range') headers.push('Content-Range', contentRange(range.range, file.size));
    headers.push('Content-Length', String(length));
  }
  let chunks: AsyncIterator<Uint8Array> | undefined;
  let first: IteratorResult<Uint8Array> | undefined;
  if (req.method === 'GET' && !current) {
    try {
      // Opened and its first chunk read before anything is sent, so a missing or unreadable blob is still answered as an error.
      const body = await open(range.kind === 'range' ? range.range : file.size > 0 ? { start: 0, end: file.size - 1 } : undefined, { borrowChunks: true });
      chunks = body[Symbol.asyncIterator]();
      first = await chunks.next();
    } catch (error) {
      // The file was found: the error answer keeps its headers but those of a success, as serveFile's does.
      return answerError(options.logger, without(headers, DROPPED_ON_ERROR), res, label, error);
    }
  }
  if (res.destroyed) {
    void chunks?.return?.();
    return;
  }
  res.writeHead(current ? 304 : range.kind === 'range' ? 206 : 200, headers);
  if (!chunks) {
    res.end();
    return;
  }
  try {
    await sendBody(res, chunks, first!, length);
  } catch (error) {
    // Bytes went out: never a short body that looks whole. A client that went away is not an error.
    res.destroy();
    if (!CLIENT_GONE.has((error as NodeJS.ErrnoException)?.code ?? '')) logInternalError(options.logger, label, error);
  }
}

/** Adds to `headers` (flat names and values) the origin's headers it does not hold yet (by name, in any case). */
function withOrigin(headers: string[], origin: string[]): void {
  for (let i = 0; i < origin.length; i += 2) {
    const name = origin[i].toLowerCase();
    let held = false;
    for (let j = 0; j < headers.length && !held; j += 2) held = headers[j].toLowerCase() === name;
    if (!held) headers.push(origin[i], origin[i + 1]);
  }
}

/** `headers` (flat names and values) without those named in `dropped` (lower case). */
function without(headers: string[], dropped: ReadonlySet<string>): string[] {
  const kept: string[] = [];
  for (let i = 0; i < headers.length; i += 2) if (!dropped.has(headers[i].toLowerCase())) kept.push(headers[i], headers[i + 1]);
  return kept;
}

/** What an error answer drops of the headers gathered for a success ({@link SUCCESS_ONLY_HEADERS}; answerError adds its own X-Request-Id and type). */
const DROPPED_ON_ERROR = new Set([...SUCCESS_ONLY_HEADERS, 'Content-Type', 'X-Request-Id'].map((name) => name.toLowerCase()));
/** What a 416 drops of the file's headers, as serveFile's does. */
const UNSATISFIED = new Set([...UNSATISFIABLE_DROPPED, 'X-Request-Id'].map((name) => name.toLowerCase()));

/**
 * An error before anything was sent, answered as errorsMiddleware answers it on the content
 * origin, with `headers` (flat names and values: the origin's, and the file's that an error keeps).
 */
function answerError(logger: Logger, headers: string[], res: ServerResponse, label: RequestLabel, error: unknown): void {
  const domain = toDomainError(error);
  if (domain.code === 'INTERNAL_ERROR') logInternalError(logger, label, error);
  if (res.destroyed) return;
  const body = JSON.stringify(errorJson(domain, label.requestId!));
  res.writeHead(ERROR_STATUS[domain.code], [
    ...headers,
    'X-Request-Id',
    label.requestId!,
    'Content-Type',
    'application/json; charset=utf-8',
    'Content-Length',
    String(Buffer.byteLength(body)),
  ]);
  res.end(label.method === 'HEAD' ? undefined : body);
}
