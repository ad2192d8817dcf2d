import { createHash, type Hash } from 'node:crypto';
import { Readable, Transform, type TransformCallback } from 'node:stream';
import { DomainError } from '../../core/shared/errors.js';

/**
 * Counts and hashes (SHA-256) the bytes of a body, and fails with `DomainError('FILE_TOO_LARGE')`
 * as soon as more than `maxBytes` bytes went through. Shared by the blob stores so that they count,
 * hash and refuse in exactly the same way.
 */
export class ByteMeter {
  /** Bytes seen so far. */
  size = 0;
  private readonly hash: Hash = createHash('sha256');

  /** @param maxBytes the largest accepted body, in bytes (inclusive) */
  constructor(private readonly maxBytes: number) {}

  /** Counts and hashes one chunk. @throws DomainError FILE_TOO_LARGE when the body has now passed `maxBytes` */
  take(chunk: Uint8Array): void {
    this.size += chunk.length;
    if (this.size > this.maxBytes) {
      throw new DomainError('FILE_TOO_LARGE', `The body is larger than the limit of ${this.maxBytes} bytes.`, { max_bytes: this.maxBytes });
    }
    this.hash.update(chunk);
  }

  /** SHA-256 of everything seen, as 64 lower-case hex characters. Call once, after the body ended. */
  digest(): string {
    return this.hash.digest('hex');
  }
}

/**
 * A {@link ByteMeter} as a pass-through stream, for stores that write through a stream pipeline:
 * it fails the pipeline at the first chunk past `maxBytes`, so the pipeline stops reading the body
 * there rather than after it.
 */
export class BodyMeter extends Transform {
  private readonly meter: ByteMeter;

  /** @param maxBytes the largest accepted body, in bytes (inclusive) */
  constructor(maxBytes: number) {
    super();
    this.meter = new ByteMeter(maxBytes);
  }

  /** Bytes seen so far. */
  get size(): number {
    return this.meter.size;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    try {
      this.meter.take(chunk);
    } catch (error) {
      callback(error as Error);
      return;
    }
    callback(null, chunk);
  }

  /** SHA-256 of everything seen, as 64 lower-case hex characters. Call once, after the stream finished. */
  digest(): string {
    return this.meter.digest();
  }
}

/**
 * Wraps a port body as a Node stream that holds at most one chunk ahead of its consumer, so
 * memory stays flat whatever the size of the body or of its chunks (backpressure).
 */
export function bodyStream(body: AsyncIterable<Uint8Array>): Readable {
  return Readable.from(body, { objectMode: true, highWaterMark: 1 });
}

/**
 * The non-empty chunks of `body`, each counted and hashed by `meter` before it is handed on, pulled
 * one at a time (the consumer's pace is the body's: backpressure, memory independent of the size).
 *
 * Stops at the first chunk past the meter's limit (FILE_TOO_LARGE), at the body's own error, or
 * with `signal.reason` as soon as `signal` aborts, even while waiting for the body. Whenever it
 * stops early, or the consumer stops pulling, the body's iterator is closed (`return()`, not
 * awaited: a body stalled mid-read would hold it up), which destroys a Node stream body.
 *
 * A plain loop rather than a stream pipeline (bodyStream → BodyMeter → a Writable): for a small
 * upload the pipeline's streams, listeners and abort plumbing cost more CPU than storing the bytes
 * (decision 0018, docs/decisions/).
 */
export async function* meteredBody(body: AsyncIterable<Uint8Array>, meter: ByteMeter, signal?: AbortSignal): AsyncGenerator<Uint8Array, void, undefined> {
  signal?.throwIfAborted();
  const iterator = body[Symbol.asyncIterator]();
  // One listener for the whole body, failing whichever wait is current. (Not Promise.race against
  // one long-lived "aborted" promise: every race leaves a reaction on it that keeps its chunk alive.)
  let failCurrentWait: ((reason: unknown) => void) | undefined;
  const onAbort = () => failCurrentWait?.(signal!.reason);
  signal?.addEventListener('abort', onAbort, { once: true });
  let ended = false;
  try {
    for (;;) {
      const next = iterator.next();
      const result = signal
        ? await new Promise<IteratorResult<Uint8Array>>((resolve, reject) => {
            next.then(resolve, reject);
            // The body may have aborted the signal itself while producing this chunk, before we listen.
            // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the abort reason is passed on as the aborter gave it
            if (signal.aborted) reject(signal.reason);
            else failCurrentWait = reject;
          })
        : await next;
      failCurrentWait = undefined;
      if (result.done) {
        ended = true;
        return;
      }
      meter.take(result.value);
      if (result.value.length > 0) yield result.value;
    }
  } finally {
    signal?.removeEventListener('abort', onAbort);
    if (!ended) Promise.resolve(iterator.return?.()).catch(() => undefined);
  }
}
