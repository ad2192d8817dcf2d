import { createHash, type Hash } from 'node:crypto';
import { Readable, Transform, type TransformCallback } from 'node:stream';
import { DomainError } from '../../core/shared/errors.js';

/**
 * A pass-through stream that counts bytes and hashes them (SHA-256) on the way, and fails with
 * `DomainError('FILE_TOO_LARGE')` as soon as more than `maxBytes` bytes went through, so a
 * pipeline stops reading the body at that point rather than after it. Shared by the blob stores
 * so that they count, hash and refuse in exactly the same way.
 */
export class BodyMeter extends Transform {
  /** Bytes seen so far. */
  size = 0;
  private readonly hash: Hash = createHash('sha256');

  /** @param maxBytes the largest accepted body, in bytes (inclusive) */
  constructor(private readonly maxBytes: number) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.size += chunk.length;
    if (this.size > this.maxBytes) {
      callback(new DomainError('FILE_TOO_LARGE', `The body is larger than the limit of ${this.maxBytes} bytes.`, { max_bytes: this.maxBytes }));
      return;
    }
    this.hash.update(chunk);
    callback(null, chunk);
  }

  /** SHA-256 of everything seen, as 64 lower-case hex characters. Call once, after the stream finished. */
  digest(): string {
    return this.hash.digest('hex');
  }
}

/**
 * Wraps a port body as a Node stream that holds at most one chunk ahead of its consumer, so
 * memory stays flat whatever the size of the body or of its chunks (backpressure).
 */
export function bodyStream(body: AsyncIterable<Uint8Array>): Readable {
  return Readable.from(body, { objectMode: true, highWaterMark: 1 });
}
