import type { BlobEntry, BlobStore, ByteRange } from '../../core/files/blob-store.js';
import { assertBlobKey, assertMaxBytes, assertParentKey } from './blob-keys.js';
import { ByteMeter, meteredBody } from './body-meter.js';

/** Size of the chunks `get` yields, in bytes: like a disk read, so consumers see several chunks. */
const READ_CHUNK_BYTES = 64 * 1024;

/**
 * A {@link BlobStore} that keeps blobs in a Map, for tests and embedding. It reads bodies with
 * the same backpressure and refuses oversized ones at the same byte as the disk store (a blob is
 * stored only once it is complete, so a failed put leaves nothing behind). Contents are lost when
 * the process ends; every blob occupies its size in memory.
 */
export class MemoryBlobStore implements BlobStore {
  private readonly blobs = new Map<string, Buffer>();
  /** When each blob was stored. */
  private readonly stored = new Map<string, Date>();

  /**
   * @throws DomainError FILE_TOO_LARGE past `maxBytes`; the body's own error; an abort error when `signal` aborts;
   *         Error for an invalid key or `maxBytes` (a bug in the caller)
   */
  async put(options: {
    key: string;
    body: AsyncIterable<Uint8Array>;
    contentType: string;
    maxBytes: number;
    signal?: AbortSignal;
  }): Promise<{ size: number; sha256: string }> {
    assertBlobKey(options.key);
    assertMaxBytes(options.maxBytes);
    options.signal?.throwIfAborted();
    const meter = new ByteMeter(options.maxBytes);
    const chunks: Uint8Array[] = [];
    for await (const chunk of meteredBody(options.body, meter, options.signal)) chunks.push(chunk);
    if (this.blobs.has(options.key)) throw new Error(`A blob already exists under ${options.key}; blobs are never replaced.`);
    this.blobs.set(options.key, Buffer.concat(chunks, meter.size));
    this.stored.set(options.key, new Date());
    return { size: meter.size, sha256: meter.digest() };
  }

  /**
   * Yields copies, in chunks of 64 KiB, so callers can neither change stored bytes nor see later
   * writes; with `borrowChunks` (BlobReadOptions) too, as a chunk that is never reused keeps that rule.
   */
  async get(key: string, range?: ByteRange): Promise<AsyncIterable<Uint8Array> | undefined> {
    assertBlobKey(key);
    const bytes = this.blobs.get(key);
    if (!bytes) return undefined;
    return chunksOf(range ? bytes.subarray(range.start, range.end + 1) : bytes);
  }

  async delete(key: string): Promise<void> {
    assertBlobKey(key);
    this.blobs.delete(key);
    this.stored.delete(key);
  }

  async deleteUnder(parent: string): Promise<void> {
    assertParentKey(parent);
    for (const key of [...this.blobs.keys()]) if (key.startsWith(`${parent}/`)) this.blobs.delete(key);
  }

  async ping(): Promise<void> {}

  /** Every blob, from a snapshot of the keys taken when the listing starts. */
  async *list(): AsyncIterable<BlobEntry> {
    for (const key of [...this.blobs.keys()]) {
      const entry = await this.stat(key);
      if (entry) yield entry;
    }
  }

  async stat(key: string): Promise<BlobEntry | undefined> {
    assertBlobKey(key);
    const bytes = this.blobs.get(key);
    return bytes && { key, size: bytes.length, modifiedAt: new Date(this.stored.get(key)!) };
  }

  /**
   * Test helper: sets when a blob counts as stored (fsck's grace period works on this age).
   * @throws Error when there is no blob under `key`
   */
  setModifiedAt(key: string, modifiedAt: Date): void {
    if (!this.blobs.has(key)) throw new Error(`No blob under ${key}.`);
    this.stored.set(key, new Date(modifiedAt));
  }
}

async function* chunksOf(bytes: Buffer): AsyncGenerator<Uint8Array> {
  for (let offset = 0; offset < bytes.length; offset += READ_CHUNK_BYTES) {
    yield Buffer.from(bytes.subarray(offset, offset + READ_CHUNK_BYTES));
  }
}
