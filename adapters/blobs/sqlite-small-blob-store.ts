import { mkdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { BlobEntry, BlobReadOptions, BlobStore, ByteRange } from '../../core/files/blob-store.js';
import { type Failpoints, NO_FAILPOINTS } from '../../core/shared/failpoints.js';
import { assertBlobKey, assertMaxBytes, assertParentKey } from './blob-keys.js';
import { ByteMeter, meteredBody } from './body-meter.js';
import { alreadyExists, isAlreadyExists, unavailable } from './local-blob-errors.js';
import { MAX_SMALL_BLOB_MAX_BYTES } from './small-blob-limits.js';
import { SMALL_BLOB_PAGE, type SmallBlobEntry, SmallBlobDatabase } from './small-blob-database.js';

/** Options of {@link SqliteSmallBlobStore}. */
export interface SqliteSmallBlobStoreOptions {
  /** The database file; it and its directory are created on first use. */
  path: string;
  /** Flush every write to disk before it resolves (see SmallBlobDatabase). Default true; off only for tests. */
  fsync?: boolean;
  /** Crash and fault tests only: `blob_write` before a blob is written, `before_blob_link` before it becomes visible. */
  failpoints?: Failpoints;
  /**
   * Largest body `put` takes, in bytes: a body is held in memory until it is complete, then
   * inserted as one row. Default {@link MAX_SMALL_BLOB_MAX_BYTES} (1 MiB).
   */
  maxBlobBytes?: number;
}

/**
 * A {@link BlobStore} of small blobs, each one row of one SQLite database file
 * ({@link SmallBlobDatabase}): an insert and a share of one WAL flush instead of the nine
 * file-system calls and two disk flushes of a blob file. The service uses it as the small tier of
 * `FileAndSqliteBlobStore` (tiered-blob-store.ts), which sends it the bodies of at most
 * SMALL_BLOB_MAX_BYTES (64 KiB by default) through {@link insert}; `put` serves any other caller,
 * for bodies of at most `maxBlobBytes`. Crash safety is SQLite's: an insert is there whole or not at all.
 * `contentType` is not stored: the file record carries it.
 */
export class SqliteSmallBlobStore implements BlobStore {
  private readonly path: string;
  private readonly fsync: boolean;
  private readonly failpoints: Failpoints;
  private readonly maxBlobBytes: number;
  private ready: Promise<void> | undefined;
  /** The database, once opened by ensureReady. */
  private rows: SmallBlobDatabase | undefined;
  private closed = false;

  constructor(options: SqliteSmallBlobStoreOptions) {
    this.path = resolve(options.path);
    this.fsync = options.fsync ?? true;
    this.failpoints = options.failpoints ?? NO_FAILPOINTS;
    this.maxBlobBytes = options.maxBlobBytes ?? MAX_SMALL_BLOB_MAX_BYTES;
  }

  /**
   * Gathers the whole body in memory (counted and hashed), then inserts it as one row.
   * @throws DomainError FILE_TOO_LARGE past `maxBytes`; BLOB_STORE_UNAVAILABLE / STORAGE_FULL when the
   *         database fails; the body's own error; an AbortError when `signal` aborts; Error for a
   *         taken or invalid key, an invalid `maxBytes`, or a body longer than `maxBlobBytes` (this
   *         store is for small blobs). Nothing is stored on failure.
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
    await this.ensureReady();
    const meter = new ByteMeter(options.maxBytes);
    const chunks = meteredBody(options.body, meter, signal)[Symbol.asyncIterator]();
    const gathered = await gather(chunks, this.maxBlobBytes);
    if (!gathered.ended) {
      await chunks.return?.();
      throw new Error(`The small-blob store takes bodies of at most ${this.maxBlobBytes} bytes; store larger ones elsewhere.`);
    }
    await this.insert({ key, chunks: gathered.chunks, size: meter.size });
    return { size: meter.size, sha256: meter.digest() };
  }

  /**
   * Stores a complete body (`size` bytes in `chunks`, already counted and checked by the caller)
   * as a row under `key`: the `blob_write` and `before_blob_link` failpoints are reached as a file
   * store reaches them (before the bytes are written, and before they become visible under `key`).
   * The caller has checked the key.
   * @param options.taken asked before the insert: whether another store that shares this store's
   *        keys holds `key` (the tiered store's files); true refuses as a taken key
   * @throws Error when `key` is taken; DomainError BLOB_STORE_UNAVAILABLE / STORAGE_FULL
   */
  async insert(options: { key: string; chunks: Uint8Array[]; size: number; taken?: (key: string) => Promise<boolean> }): Promise<void> {
    const { key, chunks, size } = options;
    const rows = await this.opened();
    const bytes = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size);
    try {
      await this.failpoints.reach('blob_write');
      if (await options.taken?.(key)) throw alreadyExists(key);
      await this.failpoints.reach('before_blob_link');
      if (!(await rows.insert(key, bytes, Date.now()))) throw alreadyExists(key);
    } catch (error) {
      if (isAlreadyExists(error)) throw error;
      throw unavailable('store a blob', error);
    }
  }

  /**
   * The blob's bytes (or an inclusive range of them), in chunks of up to 256 KiB (one for a blob
   * the tiered store keeps here), views of the row read at once.
   * @returns the bytes, or undefined when there is no such blob
   * @throws DomainError BLOB_STORE_UNAVAILABLE; Error for an invalid key
   */
  async get(key: string, range?: ByteRange, _options?: BlobReadOptions): Promise<AsyncIterable<Uint8Array> | undefined> {
    assertBlobKey(key);
    const rows = await this.opened();
    let bytes: Buffer | undefined;
    try {
      bytes = rows.get(key);
    } catch (error) {
      throw unavailable('open a blob', error);
    }
    return bytes && new RowChunks(range ? bytes.subarray(range.start, range.end + 1) : bytes);
  }

  /**
   * Whether a blob is stored under `key` (the key already checked; the store opened by {@link ensureReady}).
   * @throws SQLite's error as it is
   */
  has(key: string): boolean {
    return this.rows?.has(key) ?? false;
  }

  /** @throws DomainError BLOB_STORE_UNAVAILABLE; Error for an invalid key */
  async delete(key: string): Promise<void> {
    await this.remove(key);
  }

  /**
   * Removes the blob under `key`, durably.
   * @returns whether there was one
   * @throws DomainError BLOB_STORE_UNAVAILABLE; Error for an invalid key
   */
  async remove(key: string): Promise<boolean> {
    assertBlobKey(key);
    const rows = await this.opened();
    try {
      return await rows.delete(key);
    } catch (error) {
      throw unavailable('delete a blob', error);
    }
  }

  /** Removes the rows under `parent` with one range delete. @throws DomainError BLOB_STORE_UNAVAILABLE; Error for an invalid key */
  async deleteUnder(parent: string): Promise<void> {
    assertParentKey(parent);
    const rows = await this.opened();
    try {
      await rows.deleteUnder(parent);
    } catch (error) {
      throw unavailable('delete derived blobs', error);
    }
  }

  /** Resolves when the database answers. @throws DomainError BLOB_STORE_UNAVAILABLE */
  async ping(): Promise<void> {
    const rows = await this.opened();
    try {
      rows.has('');
    } catch (error) {
      throw unavailable('reach the blob directory', error);
    }
  }

  /** Every row, in key order, {@link SMALL_BLOB_PAGE} at a time. @throws DomainError BLOB_STORE_UNAVAILABLE */
  async *list(): AsyncIterable<BlobEntry> {
    const rows = await this.opened();
    for (let after = ''; ;) {
      let page: SmallBlobEntry[];
      try {
        page = rows.page(after);
      } catch (error) {
        throw unavailable('list blobs', error);
      }
      for (const entry of page) yield { key: entry.key, size: entry.size, modifiedAt: new Date(entry.modifiedAt) };
      if (page.length < SMALL_BLOB_PAGE) return;
      after = page[page.length - 1].key;
    }
  }

  /** @throws DomainError BLOB_STORE_UNAVAILABLE; Error for an invalid key */
  async stat(key: string): Promise<BlobEntry | undefined> {
    assertBlobKey(key);
    const rows = await this.opened();
    try {
      const row = rows.stat(key);
      return row && { key, size: row.size, modifiedAt: new Date(row.modifiedAt) };
    } catch (error) {
      throw unavailable('read a blob', error);
    }
  }

  /**
   * Opens (creating when missing) the database and its directory, once; tried again on the next
   * call if it failed.
   * @throws DomainError BLOB_STORE_UNAVAILABLE; Error once the store is closed
   */
  async ensureReady(): Promise<void> {
    await this.opened();
  }

  /** Closes the database; the store must not be used afterwards. Never rejects. */
  async close(): Promise<void> {
    this.closed = true;
    await this.ready?.catch(() => undefined);
    const rows = this.rows;
    this.rows = undefined;
    await rows?.close();
  }

  /** The open database (see {@link ensureReady}). */
  private async opened(): Promise<SmallBlobDatabase> {
    if (this.rows) return this.rows;
    if (this.closed) throw new Error('The blob store is closed.');
    this.ready ??= (async () => {
      try {
        await mkdir(dirname(this.path), { recursive: true });
        const rows = await SmallBlobDatabase.open(this.path, { fsync: this.fsync });
        if (this.closed) await rows.close();
        else this.rows = rows;
      } catch (error) {
        this.ready = undefined;
        throw unavailable('open the blob directory', error);
      }
    })();
    await this.ready;
    if (!this.rows) throw new Error('The blob store is closed.');
    return this.rows;
  }
}

const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

/**
 * Reads chunks of `chunks` until the body ends or more than `limit` bytes have come.
 * @returns the chunks read, and whether the body ended (then it is at most `limit` bytes); when it
 *          did not, the rest is still to be read from `chunks`
 * @throws the body's own errors (the iterator is finished then)
 */
export async function gather(chunks: AsyncIterator<Uint8Array>, limit: number): Promise<{ chunks: Uint8Array[]; ended: boolean }> {
  const gathered: Uint8Array[] = [];
  let size = 0;
  while (size <= limit) {
    const step = await chunks.next();
    if (step.done) return { chunks: gathered, ended: true };
    gathered.push(step.value);
    size += step.value.length;
  }
  return { chunks: gathered, ended: false };
}

/** Largest chunk of a body read from a row, in bytes, as the file store reads files. */
const CHUNK_BYTES = 256 * 1024;

/**
 * A small blob's bytes (or a range of them) as a body: views of the row's bytes (no copy) of up to
 * {@link CHUNK_BYTES}, so one chunk for the blobs the tiered store keeps here. Holds nothing open,
 * so `return()` has nothing to release.
 */
class RowChunks implements AsyncIterableIterator<Uint8Array> {
  private offset = 0;

  constructor(private bytes: Uint8Array | undefined) {}

  [Symbol.asyncIterator](): this {
    return this;
  }

  async next(): Promise<IteratorResult<Uint8Array>> {
    const bytes = this.bytes;
    if (!bytes || this.offset >= bytes.length) {
      this.bytes = undefined;
      return DONE;
    }
    const start = this.offset;
    this.offset = Math.min(bytes.length, start + CHUNK_BYTES);
    const chunk = start === 0 && this.offset === bytes.length ? bytes : bytes.subarray(start, this.offset);
    if (this.offset === bytes.length) this.bytes = undefined;
    return { done: false, value: chunk };
  }

  async return(): Promise<IteratorResult<Uint8Array>> {
    this.bytes = undefined;
    return DONE;
  }
}
