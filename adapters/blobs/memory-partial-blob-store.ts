import { randomUUID } from 'node:crypto';
import type { BlobStore } from '../../core/files/blob-store.js';
import type { AppendResult, PartialBlobState, PartialBlobStore } from '../../core/files/partial-blob-store.js';
import { DomainError } from '../../core/shared/errors.js';
import { assertBlobKey } from './blob-keys.js';

interface MemoryPartial {
  key: string;
  length: number;
  contentType: string;
  chunks: Buffer[];
  size: number;
}

/**
 * A {@link PartialBlobStore} that keeps partial blobs in a Map, for tests and embedding: state is
 * `{ id }`, valid only in this process. Completion stores the bytes in `blobs` (the same process's
 * {@link BlobStore}, usually a MemoryBlobStore) through `put`, which counts and hashes them.
 * Every partial occupies its size in memory.
 */
export class MemoryPartialBlobStore implements PartialBlobStore {
  private readonly partials = new Map<string, MemoryPartial>();

  constructor(private readonly blobs: BlobStore) {}

  async create(options: { key: string; length: number; contentType: string }): Promise<PartialBlobState> {
    assertBlobKey(options.key);
    assertLength(options.length);
    const id = randomUUID();
    this.partials.set(id, { key: options.key, length: options.length, contentType: options.contentType, chunks: [], size: 0 });
    return { id };
  }

  async append(options: { state: PartialBlobState; offset: number; body: AsyncIterable<Uint8Array>; signal?: AbortSignal }): Promise<AppendResult> {
    const partial = this.find(options.state);
    if (options.offset > partial.size) throw new Error(`Append at ${options.offset}, but the partial blob holds ${partial.size} bytes.`);
    // Bytes past the caller's offset were never acknowledged: dropped, as a disk store truncates.
    this.truncate(partial, options.offset);
    const start = partial.size;
    try {
      options.signal?.throwIfAborted();
      for await (const chunk of options.body) {
        if (partial.size + chunk.length > partial.length) {
          this.truncate(partial, start);
          throw tooLong(partial.length);
        }
        partial.chunks.push(Buffer.from(chunk));
        partial.size += chunk.length;
        options.signal?.throwIfAborted();
      }
    } catch (error) {
      if (error instanceof DomainError && error.code === 'FILE_TOO_LARGE') throw error;
      return { offset: partial.size, state: options.state, interruptedBy: error };
    }
    return { offset: partial.size, state: options.state };
  }

  async complete(options: { state: PartialBlobState; key: string }): Promise<{ size: number; sha256: string }> {
    const partial = this.find(options.state);
    if (partial.size !== partial.length) throw new Error(`The partial blob holds ${partial.size} of ${partial.length} bytes: not complete.`);
    const chunks = partial.chunks;
    const stored = await this.blobs.put({
      key: options.key,
      body: (async function* () {
        yield* chunks;
      })(),
      contentType: partial.contentType,
      maxBytes: partial.length,
    });
    this.partials.delete(options.state.id as string);
    return stored;
  }

  async abort(state: PartialBlobState): Promise<void> {
    this.partials.delete(state.id as string);
  }

  /** Test helper: how many partial blobs are held. */
  get count(): number {
    return this.partials.size;
  }

  private find(state: PartialBlobState): MemoryPartial {
    const partial = this.partials.get(state.id as string);
    if (!partial)
      throw new DomainError('BLOB_STORE_UNAVAILABLE', 'The partial blob is gone (a memory store keeps partial blobs only in the process that created them).');
    return partial;
  }

  private truncate(partial: MemoryPartial, size: number): void {
    if (partial.size === size) return;
    const kept = Buffer.concat(partial.chunks, partial.size).subarray(0, size);
    partial.chunks = [Buffer.from(kept)];
    partial.size = size;
  }
}

/** @throws Error unless `length` is a positive safe integer (a bug in the caller) */
export function assertLength(length: number): void {
  if (!Number.isSafeInteger(length) || length < 1) throw new Error(`Invalid length ${String(length)}: expected a positive integer number of bytes.`);
}

/** The refusal of a body that goes past the partial blob's declared length. */
export function tooLong(length: number): DomainError {
  return new DomainError('FILE_TOO_LARGE', `The body goes past the upload's length of ${length} bytes.`, { upload_length: length });
}
