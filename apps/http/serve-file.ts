import type { Context } from 'koa';
import { contentType as mimeContentType } from 'mime-types';
import type { BlobReadOptions, ByteRange } from '../../core/files/blob-store.js';
import type { StoredFile } from '../../core/files/stored-file.js';
import { DomainError } from '../../core/shared/errors.js';
import { contentDisposition, etagMatches, parseRange, type RangeResult } from './http-range.js';
import { sendBody } from './send-body.js';

/** Files are immutable (a new upload gets a new id), so a public address may be cached for a year. */
export const PUBLIC_CACHE_CONTROL = 'public, max-age=31536000, immutable';

/**
 * Types a browser would run as a document (scripts, markup): served under
 * `Content-Security-Policy: sandbox` so an uploaded SVG or HTML file cannot act on the origin that serves it.
 */
const ACTIVE_TYPES = new Set([
  'image/svg+xml',
  'text/html',
  'application/xhtml+xml',
  'text/xml',
  'application/xml',
  'text/javascript',
  'application/javascript',
  'application/ecmascript',
  'text/ecmascript',
  'application/pdf+xml',
  // A PDF may carry scripts and forms that a browser's viewer runs on the origin that serves it.
  'application/pdf',
]);

/** The sandbox policy of active types (and of every file served on the API origin). */
const SANDBOX_POLICY = "sandbox; default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'";

/** A file ready to be served: its record and a way to open its bytes (as `ReadPublicFile` and `ReadOwnFile` return it). */
export interface ServableFile {
  file: StoredFile;
  /** Opens the bytes, whole or an inclusive range already checked against `file.size` (BlobStore.get's rules). */
  open: (range?: ByteRange, options?: BlobReadOptions) => Promise<AsyncIterable<Uint8Array>>;
}

/** How {@link serveFile} answers. */
export interface ServeFileOptions {
  /** `Content-Disposition` type; the file name is the stored name (its file id when it has none). */
  disposition: 'inline' | 'attachment';
  /** `Cache-Control` of a successful answer (e.g. {@link PUBLIC_CACHE_CONTROL}, or `private, no-cache`). */
  cacheControl: string;
  /** Sandbox every type, not only active ones (files served on an origin that holds credentials). */
  sandboxAll?: boolean;
}

/** A file's strong ETag (RFC 9110 §8.8.3): its SHA-256, quoted. */
export function fileEtag(file: StoredFile): string {
  return `"${file.sha256}"`;
}

/** A file's `Last-Modified` (RFC 9110 §8.8.2): its upload time, to the second below (HTTP dates have no fractions). */
export function fileLastModified(file: StoredFile): Date {
  return new Date(Math.floor(file.createdAt.getTime() / 1000) * 1000);
}

/**
 * The headers of every successful answer with a file's bytes (200, 206, 304), as a flat list of
 * names and values (`[name, value, name, value…]`, as `res.writeHead` takes them): ETag,
 * Last-Modified, Cache-Control, nosniff, `Accept-Ranges: bytes`, Content-Disposition (RFC 6266),
 * the sandbox policy for active types (or every type with `sandboxAll`), and
 * `Cross-Origin-Resource-Policy: cross-origin`. Not Content-Type or Content-Length, which depend on the answer.
 */
export function fileHeaders(file: StoredFile, options: ServeFileOptions): string[] {
  const headers = [
    'ETag',
    fileEtag(file),
    'Last-Modified',
    fileLastModified(file).toUTCString(),
    'Cache-Control',
    options.cacheControl,
    'X-Content-Type-Options',
    'nosniff',
    'Accept-Ranges',
    'bytes',
    'Content-Disposition',
    contentDisposition(options.disposition, file.name ?? file.fileId),
  ];
  if (options.sandboxAll || ACTIVE_TYPES.has(file.contentType)) headers.push('Content-Security-Policy', SANDBOX_POLICY);
  headers.push('Cross-Origin-Resource-Policy', 'cross-origin');
  return headers;
}

/**
 * The `Content-Type` header of a file's bytes: its stored content type, with the charset that
 * `mime-types` knows for it added (`text/plain; charset=utf-8`), as Koa's `ctx.type` sets it;
 * undefined for a value that is not a content type (then the answer has none).
 */
export function contentTypeHeader(contentType: string): string | undefined {
  return mimeContentType(contentType) || undefined;
}

/**
 * Answers a GET or HEAD for one file's bytes, the HTTP semantics of every address that serves a
 * file (`/m`, `/d`, `/files/:id/content`, signed URLs): one byte range (206, or 416 with
 * `Content-Range: bytes *\/size`; RFC 9110 §14), `If-Range`, the strong ETag (the SHA-256), 304 on
 * `If-None-Match` / `If-Modified-Since` (§13.1), `Last-Modified` (the upload time), `nosniff`,
 * `Content-Disposition` (RFC 6266) and a sandbox policy for active types. The body is streamed
 * through borrowed chunks ({@link sendStreamed}); nothing is buffered.
 * @throws DomainError RANGE_NOT_SATISFIABLE (416); what `open` throws (FILE_NOT_FOUND, BLOB_STORE_UNAVAILABLE)
 */
export async function serveFile(ctx: Context, servable: ServableFile, options: ServeFileOptions): Promise<void> {
  const { file, open } = servable;
  const etag = fileEtag(file);
  const lastModified = fileLastModified(file);
  const headers = fileHeaders(file, options);
  for (let i = 0; i < headers.length; i += 2) ctx.set(headers[i], headers[i + 1]);

  if (notModified(ctx.get('If-None-Match'), ctx.get('If-Modified-Since'), etag, lastModified)) {
    ctx.status = 304;
    return;
  }

  const range = requestedRange(ctx.get('If-Range'), ctx.get('Range'), etag, file.size);
  if (range.kind === 'unsatisfiable') {
    for (const name of UNSATISFIABLE_DROPPED) ctx.remove(name);
    ctx.set('Content-Range', contentRange(undefined, file.size));
    throw rangeNotSatisfiable(file.size);
  }

  const type = contentTypeHeader(file.contentType);
  if (type === undefined) ctx.remove('Content-Type');
  else ctx.set('Content-Type', type);
  if (range.kind === 'range') {
    ctx.status = 206;
    ctx.set('Content-Range', contentRange(range.range, file.size));
  } else {
    ctx.status = 200;
  }
  const length = range.kind === 'range' ? range.range.end - range.range.start + 1 : file.size;
  if (ctx.method === 'HEAD') {
    ctx.length = length;
    return;
  }
  // The whole file as a range too: the store then reads exactly its bytes (decision 0007, docs/decisions/).
  // Borrowed chunks: sendStreamed keeps their rule, so a large file goes through two reused buffers.
  const body = await withoutCaching(ctx, () =>
    open(range.kind === 'range' ? range.range : file.size > 0 ? { start: 0, end: file.size - 1 } : undefined, { borrowChunks: true }),
  );
  ctx.length = length;
  await sendStreamed(ctx, body, length);
}

/**
 * Sends `body` as the response, status and headers already set (sendBody: backpressure, borrowed
 * chunks kept to their rule). The first chunk is read before anything is sent, so a body that
 * fails at once (BLOB_STORE_UNAVAILABLE) is still answered by the error middleware, without the
 * caching headers of a success. Once bytes went out, a failure or a client that went away destroys
 * the response (never a short body that looks whole) and is reported through the app's `error`
 * event, which logs it unless the client went away (streamErrorHandler).
 * @param length the body's length in bytes (already set as Content-Length), or undefined for chunked encoding
 */
export async function sendStreamed(ctx: Context, body: AsyncIterable<Uint8Array>, length: number | undefined): Promise<void> {
  const chunks = body[Symbol.asyncIterator]();
  const first = await withoutCaching(ctx, () => chunks.next());
  // From here on this function writes the response itself; Koa must not.
  ctx.respond = false;
  try {
    await sendBody(ctx.res, chunks, first, length);
  } catch (error) {
    ctx.res.destroy();
    ctx.app.emit('error', error, ctx);
  }
}

/** Runs `step`; when it fails, removes the headers of a successful answer (an error is never cached for a year) and rethrows. */
export async function withoutCaching<T>(ctx: Context, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    for (const name of SUCCESS_ONLY_HEADERS) ctx.remove(name);
    throw error;
  }
}

/** The headers of a successful answer that an error answer must not carry (see {@link withoutCaching}). */
export const SUCCESS_ONLY_HEADERS: readonly string[] = ['ETag', 'Last-Modified', 'Cache-Control', 'Content-Disposition', 'Content-Range', 'Content-Length'];

/**
 * The byte range a read asks for: its `Range` (RFC 9110 §14.2, {@link parseRange}) while `If-Range`
 * is absent or still names the file's ETag (§13.1.5: a range only applies while the validator
 * matches), else the whole file. Header values as Node reads them (undefined or empty when absent).
 */
export function requestedRange(ifRange: string | undefined, range: string | undefined, etag: string, size: number): RangeResult {
  return parseRange(!ifRange || ifRange === etag ? range : undefined, size);
}

/** `Content-Range` (RFC 9110 §14.4) of a 206, `bytes <start>-<end>/<size>`, or of a 416 (`range` undefined), `bytes *\/<size>`. */
export function contentRange(range: ByteRange | undefined, size: number): string {
  return range ? `bytes ${range.start}-${range.end}/${size}` : `bytes */${size}`;
}

/** The error of a range outside a file of `size` bytes (416); its answer drops {@link UNSATISFIABLE_DROPPED} and carries `Content-Range: bytes *\/size`. */
export function rangeNotSatisfiable(size: number): DomainError {
  return new DomainError('RANGE_NOT_SATISFIABLE', `The requested range is outside the file's ${size} bytes.`);
}

/** The file's headers that a 416 does not carry (it is not cached, and names no file to save). */
export const UNSATISFIABLE_DROPPED: readonly string[] = ['Cache-Control', 'Content-Disposition'];

/**
 * True when the request's validators say the client's copy is current (If-None-Match first, else
 * If-Modified-Since; RFC 9110 §13.2.2). `ifNoneMatch` and `ifModifiedSince` are the request's header
 * values as Node reads them (undefined or empty when absent).
 */
export function notModified(ifNoneMatch: string | undefined, ifModifiedSince: string | undefined, etag: string, lastModified: Date): boolean {
  if (ifNoneMatch) return etagMatches(ifNoneMatch, etag);
  const since = Date.parse(ifModifiedSince ?? '');
  return !Number.isNaN(since) && lastModified.getTime() <= since;
}
