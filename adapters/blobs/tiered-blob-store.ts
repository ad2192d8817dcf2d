import type { BlobEntry, BlobReadOptions, BlobStore, ByteRange } from '../../core/files/blob-store.js';
import { assertBlobKey, assertMaxBytes, assertParentKey } from './blob-keys.js';
import { ByteMeter, meteredBody } from './body-meter.js';
import { unavailable } from './local-blob-errors.js';
import type { ShardedFileBlobStore } from './sharded-file-blob-store.js';
import { MAX_SMALL_BLOB_MAX_BYTES } from './small-blob-limits.js';
import { gather, type SqliteSmallBlobStore } from './sqlite-small-blob-store.js';

/** Options of {@link TieredBlobStore}. */
export interface TieredBlobStoreOptions {
  /** Where blobs larger than `smallBlobMaxBytes` go (and every blob where the small tier is not used). */
  files: ShardedFileBlobStore;
  /** Where blobs of at most `smallBlobMaxBytes` go. */
  small: SqliteSmallBlobStore;
  /**
   * Bodies of at most this many bytes go to `small`, 0–{@link MAX_SMALL_BLOB_MAX_BYTES}; 0 sends
   * every new blob to `files` (blobs already in `small` stay readable). An upload holds up to this
   * many bytes in memory until it knows which way it goes.
   */
  smallBlobMaxBytes: number;
  /**
   * Asked once, after `files` is ready: whether `small` may be used at all (the local-disk store
   * answers false on a network file system). False: every blob is a file and `small` is never opened.
   * Default: always.
   */
  useSmall?: () => Promise<boolean>;
}

/**
 * A {@link BlobStore} that keeps small blobs in one store and the others in another, chosen by
 * size: `put` gathers the first `smallBlobMaxBytes + 1` bytes in memory, and a body that ends
 * within the limit goes to the small store ({@link SqliteSmallBlobStore.insert}); a longer one
 * goes to the file store ({@link ShardedFileBlobStore.write}), the gathered bytes first. The body is
 * counted and hashed once, here. Every other operation asks the small store first, then the file
 * store, so blobs written under another limit (or before small blobs existed) read the same; a key
 * is never in both, as each store checks the other just before a blob becomes visible.
 */
export class TieredBlobStore implements BlobStore {
  private readonly files: ShardedFileBlobStore;
  private readonly small: SqliteSmallBlobStore;
  private readonly smallBlobMaxBytes: number;
  private readonly useSmall: () => Promise<boolean>;
  private ready: Promise<void> | undefined;
  /** The small store once ready; null where it is not used (useSmall answered false). */
  private smallTier: SqliteSmallBlobStore | null | undefined;
  private closed = false;

  /** @throws Error when `smallBlobMaxBytes` is not an integer from 0 to {@link MAX_SMALL_BLOB_MAX_BYTES} */
  constructor(options: TieredBlobStoreOptions) {
    const limit = options.smallBlobMaxBytes;
    if (!Number.isSafeInteger(limit) || limit < 0 || limit > MAX_SMALL_BLOB_MAX_BYTES) {
      throw new Error(`smallBlobMaxBytes must be an integer from 0 to ${MAX_SMALL_BLOB_MAX_BYTES}, got ${limit}`);
    }
    this.files = options.files;
    this.small = options.small;
    this.smallBlobMaxBytes = limit;
    this.useSmall = options.useSmall ?? (async () => true);
  }

  /**
   * @throws DomainError FILE_TOO_LARGE past `maxBytes` (stops reading there); BLOB_STORE_UNAVAILABLE /
   *         STORAGE_FULL when a store fails; the body's own error; an AbortError when `signal` aborts;
   *         Error for a taken or invalid key or `maxBytes` (a bug in the caller). Nothing is left behind on failure.
   */
  async put(options: {
    key: string;
    body: AsyncIterable<Uint8Array>;
    contentType: string;
    maxBytes: number;
    signal?: AbortSignal;
  }): Promise<{ size: number; sha256: string }> {
    const { key, signal } = options;
    assertBlobKey(key);
    assertMaxBytes(options.maxBytes);
    signal?.throwIfAborted();
    const small = await this.ensureReady();
    const meter = new ByteMeter(options.maxBytes);
    let body: AsyncIterable<Uint8Array> = meteredBody(options.body, meter, signal);
    /** The body's iterator once gathering has started it: finished on failure, whether or not the file store got to read it. */
    let started: AsyncIterator<Uint8Array> | undefined;
    if (small && this.smallBlobMaxBytes > 0) {
      const chunks = (started = body[Symbol.asyncIterator]());
      const gathered = await gather(chunks, this.smallBlobMaxBytes);
      if (gathered.ended) {
        // A key is in one place only: a blob file under it (stored with another limit) keeps it.
        await small.insert({ key, chunks: gathered.chunks, size: meter.size, taken: (taken) => this.files.has(taken) });
        return { size: meter.size, sha256: meter.digest() };
      }
      body = prefixed(gathered.chunks, chunks);
    }
    try {
      await this.files.write({ key, body, taken: small ? (taken) => small.has(taken) : undefined });
    } catch (error) {
      await started?.return?.().catch(() => undefined);
      throw error;
    }
    return { size: meter.size, sha256: meter.digest() };
  }

  /**
   * Makes the complete, flushed file at `path` (`size` bytes, on this store's file system) the blob
   * `key` without copying it, when it belongs in the file tier (larger than the small-blob limit, or
   * no small tier); see {@link ShardedFileBlobStore.adoptFile}.
   * @returns false, changing nothing, when the blob belongs in the small tier or `path` is on another
   *          file system: the caller stores it with `put` instead
   * @throws Error for a taken or invalid key; DomainError BLOB_STORE_UNAVAILABLE when the file system fails
   */
  async adoptFile(options: { key: string; path: string; size: number }): Promise<boolean> {
    assertBlobKey(options.key);
    const small = await this.ensureReady();
    if (small && this.smallBlobMaxBytes > 0 && options.size <= this.smallBlobMaxBytes) return false;
    return this.files.adoptFile({ key: options.key, path: options.path, taken: small ? (taken) => small.has(taken) : undefined });
  }

  /**
   * A small blob as one chunk, else the file read as the file store reads it (see
   * {@link ShardedFileBlobStore.get}, `borrowChunks` included).
   * @throws DomainError BLOB_STORE_UNAVAILABLE; Error for an invalid key
   */
  async get(key: string, range?: ByteRange, options?: BlobReadOptions): Promise<AsyncIterable<Uint8Array> | undefined> {
    assertBlobKey(key);
    const small = await this.ensureReady();
    return (await small?.get(key, range)) ?? this.files.get(key, range, options);
  }

  /** @throws DomainError BLOB_STORE_UNAVAILABLE; Error for an invalid key */
  async delete(key: string): Promise<void> {
    assertBlobKey(key);
    const small = await this.ensureReady();
    if (await small?.remove(key)) return;
    await this.files.delete(key);
  }

  /**
   * Removes the blobs under `parent`: the small ones with one range delete, then the files (one
   * directory read, see {@link ShardedFileBlobStore.deleteUnder}).
   * @throws DomainError BLOB_STORE_UNAVAILABLE; Error for an invalid key
   */
  async deleteUnder(parent: string): Promise<void> {
    assertParentKey(parent);
    const small = await this.ensureReady();
    await small?.deleteUnder(parent);
    await this.files.deleteUnder(parent);
  }

  /** Resolves when the small blobs' database answers and the directories are readable and writable. @throws DomainError BLOB_STORE_UNAVAILABLE */
  async ping(): Promise<void> {
    const small = await this.ensureReady();
    await small?.ping();
    await this.files.ping();
  }

  /** The files, then the small blobs (see each store's `list`). @throws DomainError BLOB_STORE_UNAVAILABLE */
  async *list(): AsyncIterable<BlobEntry> {
    await this.ensureReady();
    yield* this.files.list();
    const small = await this.ensureReady();
    if (small) yield* small.list();
  }

  /** @throws DomainError BLOB_STORE_UNAVAILABLE; Error for an invalid key */
  async stat(key: string): Promise<BlobEntry | undefined> {
    assertBlobKey(key);
    const small = await this.ensureReady();
    return (await small?.stat(key)) ?? this.files.stat(key);
  }

  /**
   * The file store's temp files (see {@link ShardedFileBlobStore.sweepTempFiles}). A sweep runs in
   * the background from the store's opening (openBlobStore), so a store closed before it got going
   * (a CLI command that ends at once) sweeps nothing and resolves 0: that is no failure.
   * @throws DomainError BLOB_STORE_UNAVAILABLE
   */
  async sweepTempFiles(olderThanMs: number): Promise<number> {
    try {
      await this.ensureReady();
    } catch (error) {
      if (this.closed) return 0;
      throw error;
    }
    return this.files.sweepTempFiles(olderThanMs);
  }

  /** Closes both stores; this one must not be used afterwards. Never rejects. */
  async close(): Promise<void> {
    this.closed = true;
    await this.ready?.catch(() => undefined);
    this.smallTier = undefined;
    await this.small.close();
    await this.files.close();
  }

  /**
   * Makes the file store ready, then opens the small store unless `useSmall` says otherwise, once;
   * tried again on the next call if it failed.
   * @returns the small store, or null where it is not used
   * @throws DomainError BLOB_STORE_UNAVAILABLE; Error once the store is closed
   */
  private async ensureReady(): Promise<SqliteSmallBlobStore | null> {
    if (this.smallTier !== undefined) return this.smallTier;
    if (this.closed) throw new Error('The blob store is closed.');
    this.ready ??= (async () => {
      try {
        await this.files.ensureReady();
        if (!(await this.useSmall())) {
          this.smallTier = null;
          return;
        }
        await this.small.ensureReady();
        if (!this.closed) this.smallTier = this.small;
      } catch (error) {
        this.ready = undefined;
        throw unavailable('open the blob directory', error);
      }
    })();
    await this.ready;
    if (this.smallTier === undefined) throw new Error('The blob store is closed.');
    return this.smallTier;
  }
}

/** `first`, then the rest of `rest`; finishing early finishes `rest` too. */
async function* prefixed(first: Uint8Array[], rest: AsyncIterator<Uint8Array>): AsyncGenerator<Uint8Array> {
  let done = false;
  try {
    yield* first;
    for (;;) {
      const step = await rest.next();
      if (step.done) {
        done = true;
        return;
      }
      yield step.value;
    }
  } finally {
    if (!done) await rest.return?.();
  }
}
