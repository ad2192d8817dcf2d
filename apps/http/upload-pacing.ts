import { pipeline, type Readable, type Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { Context, Next } from 'koa';
import { DomainError, isDomainError } from '../../core/shared/errors.js';
import type { RateLimits } from '../../core/shared/rate-limits.js';
import { clientAddress } from './client-address.js';

/**
 * How slowly a request body may arrive, whatever it is (JSON, a form, an upload, a tus PATCH):
 * UPLOAD_IDLE_TIMEOUT_SECONDS, UPLOAD_MIN_BYTES_PER_SECOND, UPLOAD_MIN_RATE_WINDOW_SECONDS, and
 * SLOW_BODY_AFTER_SECONDS for when a body counts as slow (SLOW_BODIES_PER_CLIENT). Only the time
 * spent waiting for the client counts: while the blob store is slow to take a chunk, the client is
 * not read and is not to blame. 0 turns a rule off.
 */
export interface UploadPacing {
  /** Longest wait for the next chunk of the body, in ms. */
  idleTimeoutMs: number;
  /** Least average rate over each window of waiting, in bytes per second. */
  minBytesPerSecond: number;
  /** Length of that window, in ms of waiting for the client. */
  windowMs: number;
  /**
   * Waiting for the client after which a body still arriving counts as slow, in ms: it then takes
   * one of its client address's places (SlowBodyGuard) until it ends. 0: no body counts as slow.
   */
  slowAfterMs?: number;
}

/**
 * The cap on concurrent slow bodies of one client address ({@link UploadPacing.slowAfterMs}): a slow
 * body takes a place when it becomes slow (and is refused, TOO_MANY_SLOW_BODIES, when there is none
 * left) and gives it back when it ends, however it ends.
 */
export interface SlowBodyGuard {
  /** Takes a place. @throws DomainError TOO_MANY_SLOW_BODIES (429) when the client has none left */
  enter(): Promise<void>;
  /** Gives the place back (called once, only after {@link enter} resolved). */
  leave(): void;
}

/**
 * The defaults: 30 s without a byte (the same bound as for the request headers), and 1 KiB/s on
 * average over each 60 s of waiting, far below any working link (2G moves several KiB/s), yet a
 * client trickling 1 byte every 10 s is cut off after a minute instead of holding a socket and a
 * temporary file for as long as it likes.
 */
export const DEFAULT_UPLOAD_PACING: UploadPacing = { idleTimeoutMs: 30_000, minBytesPerSecond: 1024, windowMs: 60_000, slowAfterMs: 10_000 };

/**
 * `body` as an async iterable that fails with DomainError REQUEST_TIMEOUT (408) when the next
 * chunk takes longer than `pacing.idleTimeoutMs`, or when the bytes received over a window of
 * `pacing.windowMs` of waiting average less than `pacing.minBytesPerSecond` (RFC 9110 §15.5.9).
 * With `guard`, a body that has waited `pacing.slowAfterMs` for the client in all takes a place
 * of its client address ({@link SlowBodyGuard}) and fails with TOO_MANY_SLOW_BODIES (429) when
 * there is none; the place is given back when the body ends.
 * The consumer then stops and removes what it stored (the blob stores do); the request itself is
 * left open so that the 408 or 429 can still be written (the errors middleware closes the connection after it).
 * @throws DomainError REQUEST_TIMEOUT, TOO_MANY_SLOW_BODIES from `next()`
 */
export function pacedBody(body: Readable, pacing: UploadPacing, guard?: SlowBodyGuard): AsyncIterable<Uint8Array> {
  const slowAfterMs = guard ? (pacing.slowAfterMs ?? 0) : 0;
  if (pacing.idleTimeoutMs <= 0 && pacing.minBytesPerSecond <= 0 && slowAfterMs <= 0) return body;
  return {
    async *[Symbol.asyncIterator]() {
      // Not destroyed on return: a destroyed request takes its socket along, and the 408 with it.
      const source = body.iterator({ destroyOnReturn: false })[Symbol.asyncIterator]();
      let refused = false;
      let windowWaitMs = 0;
      let windowBytes = 0;
      let waitedMs = 0;
      let entered = false;
      try {
        for (;;) {
          if (slowAfterMs > 0 && !entered && waitedMs >= slowAfterMs) {
            try {
              await guard!.enter();
            } catch (error) {
              refused = true;
              throw error;
            }
            entered = true;
          }
          const started = performance.now();
          const next = await nextWithin(source, pacing.idleTimeoutMs).catch((error: unknown) => {
            if (error === IDLE) {
              refused = true;
              throw new DomainError('REQUEST_TIMEOUT', `The request body sent nothing for ${pacing.idleTimeoutMs / 1000} s; the request was given up.`);
            }
            throw error;
          });
          const waited = performance.now() - started;
          windowWaitMs += waited;
          waitedMs += waited;
          if (next.done) return;
          windowBytes += next.value.byteLength;
          if (pacing.minBytesPerSecond > 0 && windowWaitMs >= pacing.windowMs) {
            if (windowBytes * 1000 < pacing.minBytesPerSecond * windowWaitMs) {
              refused = true;
              throw new DomainError(
                'REQUEST_TIMEOUT',
                `The request body arrived slower than ${pacing.minBytesPerSecond} bytes per second over ${Math.round(pacing.windowMs / 1000)} s; the request was given up.`,
              );
            }
            windowWaitMs = 0;
            windowBytes = 0;
          }
          yield next.value as Uint8Array;
        }
      } finally {
        if (entered) guard!.leave();
        // Stopped by the consumer (a refusal mid-body): end the source as a plain loop would; a
        // refusal of the pacing itself leaves it be, so the answer can still be written.
        if (!refused) await source.return?.();
      }
    },
  };
}

/** Thrown by {@link nextWithin} when the wait is over. */
const IDLE = Symbol('idle');

/** `iterator.next()`, or a rejection with {@link IDLE} after `ms` (0: no limit); a late result is dropped. */
function nextWithin<T>(iterator: AsyncIterator<T>, ms: number): Promise<IteratorResult<T>> {
  const next = iterator.next();
  if (ms <= 0) return next;
  next.catch(() => undefined);
  let timer: NodeJS.Timeout | undefined;
  const idle = new Promise<never>((_, reject) => {
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- IDLE is a sentinel the caller compares against, not an error to report
    timer = setTimeout(() => reject(IDLE), ms);
  });
  return Promise.race([next, idle]).finally(() => clearTimeout(timer));
}

/** What {@link bodyPacingMiddleware} leaves in `ctx.state.bodyPacing` for the readers of bodies. */
interface BodyPacing {
  pacing: UploadPacing;
  guard?: SlowBodyGuard;
}

/**
 * Middleware: the pacing rules and the slow-body guard of the request's client address (after
 * TRUST_PROXY: `clientAddress`), in `ctx.state.bodyPacing`, for {@link pacedRequestBody}. The guard
 * counts in `limits` (RateLimits.slowBodyStarted / slowBodyEnded), shared by every process that
 * shares the rate limits. Goes before the routes.
 */
export function bodyPacingMiddleware(options: {
  pacing: UploadPacing;
  limits?: Pick<RateLimits, 'slowBodyStarted' | 'slowBodyEnded'>;
  trustProxyHops: number;
}) {
  const { pacing, limits, trustProxyHops } = options;
  return async (ctx: Context, next: Next): Promise<void> => {
    const state: BodyPacing = { pacing };
    if (limits && (pacing.slowAfterMs ?? 0) > 0) {
      // The address is worked out only for a body that turns slow.
      let client: string | undefined;
      state.guard = {
        enter: () => limits.slowBodyStarted((client ??= clientAddress(ctx, trustProxyHops))),
        leave: () => void limits.slowBodyEnded(client),
      };
    }
    ctx.state.bodyPacing = state;
    await next();
  };
}

/**
 * The request's body under the rules {@link bodyPacingMiddleware} set (the defaults without it), as
 * an async iterable: what every reader of a body (JSON, form, upload, tus) goes through.
 * @throws DomainError REQUEST_TIMEOUT (408), TOO_MANY_SLOW_BODIES (429) while it is read
 */
export function pacedRequestBody(ctx: Context): AsyncIterable<Uint8Array> {
  const state = ctx.state.bodyPacing as BodyPacing | undefined;
  return pacedBody(ctx.req, state?.pacing ?? DEFAULT_UPLOAD_PACING, state?.guard);
}

/** Content codings a JSON or form body may arrive in (RFC 9110 §8.4.1), each with the stream that undoes it. */
const CONTENT_DECODERS: Record<string, () => Transform> = {
  gzip: () => createGunzip(),
  'x-gzip': () => createGunzip(),
  deflate: () => createInflate(),
  br: () => createBrotliDecompress(),
};

/**
 * The text of a small request body (JSON, a form): its bytes as paced by {@link pacedRequestBody},
 * undone from the `Content-Encoding` given (gzip, deflate, br or identity), decoded as UTF-8 (a
 * leading byte-order mark dropped, bytes that are not UTF-8 read as U+FFFD). A `charset` parameter
 * is not looked at: JSON is UTF-8 (RFC 8259 §8.1) and the service's forms are on UTF-8 pages.
 * At most `limitBytes` are read, counted after decompression; a `Content-Length` over it is refused
 * before reading. However it ends, the paced body is given up, so its pacing ends and a slow-body
 * place it took is given back.
 * @param what the body as the messages name it, e.g. "The JSON body"
 * @throws DomainError PAYLOAD_TOO_LARGE (413) over `limitBytes`; UNSUPPORTED_MEDIA_TYPE (415) for
 *   another content coding (RFC 9110 §15.5.16); VALIDATION_FAILED (400) for a compressed body that
 *   does not decompress or a body cut off by the client; REQUEST_TIMEOUT (408), TOO_MANY_SLOW_BODIES (429) while it is read
 */
export async function readPacedText(ctx: Context, limitBytes: number, what: string): Promise<string> {
  const tooLarge = () => new DomainError('PAYLOAD_TOO_LARGE', `${what} is larger than ${limitBytes} bytes.`);
  const coding = (ctx.get('Content-Encoding') || 'identity').trim().toLowerCase();
  const decoder = coding === 'identity' ? undefined : CONTENT_DECODERS[coding];
  if (coding !== 'identity' && !decoder) {
    throw new DomainError('UNSUPPORTED_MEDIA_TYPE', `${what} is sent with Content-Encoding "${coding}"; send it as it is, or with gzip, deflate or br.`);
  }
  const declared = ctx.get('Content-Length').trim();
  if (!decoder && declared !== '' && Number(declared) > limitBytes) throw tooLarge();
  const paced = pacedRequestBody(ctx);
  // With every pacing rule off, `paced` is the request itself: left open on an early end, so that the answer can still be written.
  const source = paced === ctx.req ? ctx.req.iterator({ destroyOnReturn: false }) : paced;
  const decoding = decoder?.();
  // The decompressor's stream ends the paced body when it is destroyed, and fails with the paced body's error.
  const body: AsyncIterable<Uint8Array> = decoding ? pipeline(source, decoding, () => {}) : source;
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      size += chunk.byteLength;
      if (size > limitBytes) throw tooLarge();
      chunks.push(chunk);
    }
  } catch (error) {
    if (isDomainError(error)) throw error;
    throw new DomainError('VALIDATION_FAILED', decoding ? `${what} does not decompress as ${coding}.` : `${what} could not be read to its end.`);
  } finally {
    decoding?.destroy();
  }
  return new TextDecoder().decode(Buffer.concat(chunks, size));
}
