import type { Readable } from 'node:stream';
import { DomainError } from '../../core/shared/errors.js';

/**
 * How slowly an upload's body may arrive (UPLOAD_IDLE_TIMEOUT_SECONDS, UPLOAD_MIN_BYTES_PER_SECOND,
 * UPLOAD_MIN_RATE_WINDOW_SECONDS). Only the time spent waiting for the client counts: while the
 * blob store is slow to take a chunk, the client is not read and is not to blame. 0 turns a rule off.
 */
export interface UploadPacing {
  /** Longest wait for the next chunk of the body, in ms. */
  idleTimeoutMs: number;
  /** Least average rate over each window of waiting, in bytes per second. */
  minBytesPerSecond: number;
  /** Length of that window, in ms of waiting for the client. */
  windowMs: number;
}

/**
 * The defaults: 30 s without a byte (the same bound as for the request headers), and 1 KiB/s on
 * average over each 60 s of waiting, far below any working link (2G moves several KiB/s), yet a
 * client trickling 1 byte every 10 s is cut off after a minute instead of holding a socket and a
 * temporary file for as long as it likes.
 */
export const DEFAULT_UPLOAD_PACING: UploadPacing = { idleTimeoutMs: 30_000, minBytesPerSecond: 1024, windowMs: 60_000 };

/**
 * `body` as an async iterable that fails with DomainError REQUEST_TIMEOUT (408) when the next
 * chunk takes longer than `pacing.idleTimeoutMs`, or when the bytes received over a window of
 * `pacing.windowMs` of waiting average less than `pacing.minBytesPerSecond` (RFC 9110 §15.5.9).
 * The consumer then stops and removes what it stored (the blob stores do); the request itself is
 * left open so that the 408 can still be written (the errors middleware closes the connection after it).
 * @throws DomainError REQUEST_TIMEOUT from `next()`
 */
export function pacedBody(body: Readable, pacing: UploadPacing): AsyncIterable<Uint8Array> {
  if (pacing.idleTimeoutMs <= 0 && pacing.minBytesPerSecond <= 0) return body;
  return {
    async *[Symbol.asyncIterator]() {
      // Not destroyed on return: a destroyed request takes its socket along, and the 408 with it.
      const source = body.iterator({ destroyOnReturn: false })[Symbol.asyncIterator]();
      let timedOut = false;
      let windowWaitMs = 0;
      let windowBytes = 0;
      try {
        for (;;) {
          const started = performance.now();
          const next = await nextWithin(source, pacing.idleTimeoutMs).catch((error: unknown) => {
            if (error === IDLE) {
              timedOut = true;
              throw new DomainError('REQUEST_TIMEOUT', `The upload sent nothing for ${pacing.idleTimeoutMs / 1000} s: nothing was stored.`);
            }
            throw error;
          });
          windowWaitMs += performance.now() - started;
          if (next.done) return;
          windowBytes += next.value.byteLength;
          if (pacing.minBytesPerSecond > 0 && windowWaitMs >= pacing.windowMs) {
            if (windowBytes * 1000 < pacing.minBytesPerSecond * windowWaitMs) {
              timedOut = true;
              throw new DomainError(
                'REQUEST_TIMEOUT',
                `The upload arrived slower than ${pacing.minBytesPerSecond} bytes per second over ${Math.round(pacing.windowMs / 1000)} s: nothing was stored.`,
              );
            }
            windowWaitMs = 0;
            windowBytes = 0;
          }
          yield next.value as Uint8Array;
        }
      } finally {
        // Stopped for another reason (a refusal mid-body): end the source as a plain loop would.
        if (!timedOut) await source.return?.();
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
    timer = setTimeout(() => reject(IDLE), ms);
  });
  return Promise.race([next, idle]).finally(() => clearTimeout(timer));
}
