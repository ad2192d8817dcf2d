import { createHash, randomUUID } from 'node:crypto';
import { constants, statSync } from 'node:fs';
import { access, link, mkdir, open, opendir, readdir, rm, stat, unlink, type FileHandle } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { BlobEntry, BlobReadOptions, BlobStore, ByteRange } from '../../core/files/blob-store.js';
import { DomainError } from '../../core/shared/errors.js';
import { type Failpoints, NO_FAILPOINTS } from '../../core/shared/failpoints.js';
import { assertBlobKey, assertMaxBytes, assertParentKey, isBlobKey } from './blob-keys.js';
import { ByteMeter, meteredBody } from './body-meter.js';
import { alreadyExists, hasCode, isAlreadyExists, unavailable } from './local-blob-errors.js';
import { writeBuffers } from './write-buffers.js';

/** Options of {@link ShardedFileBlobStore}. */
export interface ShardedFileBlobStoreOptions {
  /** Root directory of the store; created (with parents) on first use. */
  directory: string;
  /**
   * Flush each new blob and its directory entry to the disk before `put` resolves, so a stored
   * file survives a power loss. Default true; turn off only for tests and throw-away data.
   */
  fsync?: boolean;
  /** Crash and fault tests only: `blob_write` before each write, `before_blob_link` before the link. */
  failpoints?: Failpoints;
}

/** Name of the directory, under the root, where bodies are written before they are complete. */
const TEMP_DIRECTORY = '.tmp';
/** Bytes gathered per write, and per read of `get`: large enough that a disk is never waiting on many small syscalls. */
const WRITE_BATCH_BYTES = 256 * 1024;
const READ_CHUNK_BYTES = 256 * 1024;
/** Buffers a body with borrowed chunks reads through: the current chunk and the one before it (BlobReadOptions). */
const BORROWED_BUFFERS = 2;
/**
 * A slow body is written at least this often (ms), even before a batch is full, so a temp file in
 * use is never older than the socket idle timeout (2 min) plus this: the sweep's age rule relies on it.
 */
const WRITE_AT_LEAST_EVERY_MS = 10_000;

/**
 * A {@link BlobStore} of one file per blob, on a local file system.
 *
 * Layout: `<directory>/<aa>/<bb>/<key with '/' as '~'>`, where `aa`/`bb` are the first four hex
 * characters of SHA-256 of the key's first two segments (the whole key for a file's blob):
 * 65 536 leaf directories filled evenly, so a leaf reaches about 65 000 entries only when the
 * store holds about 4 billion blobs. `~` is not allowed in keys, so the mapping is one to one.
 * Blobs derived from a file (`<account>/<file>/<name>`) share its leaf, so `deleteUnder` reads one
 * directory.
 *
 * `put` streams the body to `<directory>/.tmp/<random>` (same file system, so the final link is
 * atomic), counting and hashing as it goes, with backpressure: memory use does not depend on the
 * body's size. The blob appears under its key only once complete (and flushed, when `fsync`).
 * Temp files of a crashed process are removed by {@link ShardedFileBlobStore.sweepTempFiles}.
 * `contentType` is not stored: the file record carries it.
 *
 * The service uses it as the large tier of `FileAndSqliteBlobStore` (tiered-blob-store.ts), beside the
 * small blobs' database.
 */
export class ShardedFileBlobStore implements BlobStore {
  /** The root directory (absolute). */
  readonly directory: string;
  private readonly tempDirectory: string;
  private readonly fsync: boolean;
  private readonly failpoints: Failpoints;
  private ready: Promise<void> | undefined;
  private isReady = false;
  /**
   * Shard directories known to exist, one bit each (bit `n` for the directory of shard number `n`,
   * the first four hex characters read as a number): each is created (and checked) once per
   * process. 8 KiB whatever the store holds, where a Set of their paths would grow to 65 536
   * strings and make every full garbage collection dearer.
   */
  private readonly knownShards = new Uint8Array(SHARD_COUNT / 8);

  constructor(options: ShardedFileBlobStoreOptions) {
    this.directory = resolve(options.directory);
    this.tempDirectory = join(this.directory, TEMP_DIRECTORY);
    this.fsync = options.fsync ?? true;
    this.failpoints = options.failpoints ?? NO_FAILPOINTS;
  }

  /**
   * @throws DomainError FILE_TOO_LARGE past `maxBytes` (stops reading there); BLOB_STORE_UNAVAILABLE when
   *         the file system fails; the body's own error; an AbortError when `signal` aborts;
   *         Error for an invalid key or `maxBytes` (a bug in the caller). Nothing is left behind on failure.
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
    await this.write({ key, body: meteredBody(options.body, meter, signal) });
    return { size: meter.size, sha256: meter.digest() };
  }

  /**
   * Makes the complete file at `path` the blob `key` without copying it: a hard link into place (as
   * `write` links its temp file), then `path` is removed. `path` must be on this store's file system
   * and flushed already; the caller knows its size and SHA-256. The caller has checked the key.
   * @param options.taken as for {@link write}
   * @returns false, changing nothing, when `path` is on another file system (EXDEV): the caller copies instead
   * @throws Error when `key` is taken; DomainError BLOB_STORE_UNAVAILABLE when the file system fails
   */
  async adoptFile(options: { key: string; path: string; taken?: (key: string) => boolean }): Promise<boolean> {
    const { key } = options;
    await this.ensureReady();
    const { path: destination, shard } = this.locate(key);
    const shardDirectory = dirname(destination);
    if (options.taken?.(key)) throw alreadyExists(key);
    try {
      await this.makeShardDirectory(shard, shardDirectory);
      await linkInto(options.path, destination, () => this.makeShardDirectory(shard, shardDirectory, true));
    } catch (error) {
      if (hasCode(error, 'EXDEV')) return false;
      if (hasCode(error, 'EEXIST')) throw alreadyExists(key);
      throw unavailable('store a blob', error);
    }
    await Promise.all([unlink(options.path).catch(() => undefined), this.fsync ? syncDirectory(shardDirectory) : undefined]);
    return true;
  }

  /**
   * Writes `body` (already counted, checked and hashed by the caller: `put`, or the tiered store)
   * to a temp file and links it under `key` once complete. The caller has checked the key and
   * called {@link ensureReady}.
   * @param options.taken asked just before the blob becomes visible: whether another store that
   *        shares this store's keys holds `key` (the tiered store's small blobs); true refuses as a taken key
   * @throws Error when `key` is taken; DomainError BLOB_STORE_UNAVAILABLE / STORAGE_FULL; the body's own errors.
   *         Nothing is left behind on failure.
   */
  async write(options: { key: string; body: AsyncIterable<Uint8Array>; taken?: (key: string) => boolean }): Promise<void> {
    const { key, body } = options;
    const { path: destination, shard } = this.locate(key);
    const shardDirectory = dirname(destination);
    const tempPath = join(this.tempDirectory, randomUUID());
    let handle: FileHandle | undefined;
    let committed = false;
    try {
      handle = await fileSystem('write a blob', () => open(tempPath, 'wx'));
      await writeBody(handle, body, this.failpoints);
      if (this.fsync) await fileSystem('write a blob', () => handle!.sync());
      const closing = handle;
      handle = undefined;
      await fileSystem('write a blob', () => closing.close());
      try {
        await this.failpoints.reach('before_blob_link');
        if (options.taken?.(key)) throw alreadyExists(key);
        await this.makeShardDirectory(shard, shardDirectory);
        // link + unlink rather than rename: atomic like rename, but it never replaces an existing blob.
        await linkInto(tempPath, destination, () => this.makeShardDirectory(shard, shardDirectory, true));
        committed = true;
        // The temp name needs no flushing: only the new entry does.
        await Promise.all([unlink(tempPath), this.fsync ? syncDirectory(shardDirectory) : undefined]);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST' && !committed) throw alreadyExists(key);
        if (isAlreadyExists(error)) throw error;
        throw unavailable('store a blob', error);
      }
    } catch (error) {
      await handle?.close().catch(() => undefined);
      await rm(tempPath, { force: true }).catch(() => undefined);
      if (committed) await rm(destination, { force: true }).catch(() => undefined);
      throw error;
    }
  }

  /**
   * Opens the blob and reads it chunk by chunk as the consumer asks (`filehandle.read` at explicit
   * positions, chunks of up to 256 KiB, never larger than the range). The file handle is closed once
   * the last byte is read, on a read error, or when the consumer calls `return()` (even before the
   * first `next()`). The body reads from the file as it was opened, even if it is deleted meanwhile.
   * With `borrowChunks` it reads through two buffers taken in turn, allocated once per body
   * (the rule of {@link BlobReadOptions}); without it every chunk is a new buffer.
   * @returns an async iterable iterator of the bytes, or undefined when there is no such blob
   * @throws DomainError BLOB_STORE_UNAVAILABLE (here when opening, from `next()` when a read fails); Error for an invalid key
   */
  async get(key: string, range?: ByteRange, options?: BlobReadOptions): Promise<AsyncIterable<Uint8Array> | undefined> {
    assertBlobKey(key);
    await this.ensureReady();
    let handle: FileHandle;
    try {
      handle = await open(this.pathOf(key), 'r');
    } catch (error) {
      if (hasCode(error, 'ENOENT')) return undefined;
      throw unavailable('open a blob', error);
    }
    return new FileChunks(handle, range, options?.borrowChunks === true);
  }

  /** @throws DomainError BLOB_STORE_UNAVAILABLE; Error for an invalid key */
  async delete(key: string): Promise<void> {
    assertBlobKey(key);
    await this.ensureReady();
    try {
      await unlink(this.pathOf(key));
    } catch (error) {
      if (!hasCode(error, 'ENOENT')) throw unavailable('delete a blob', error);
    }
  }

  /**
   * Removes the blobs under `parent`, from the leaf directory of `parent`'s first two segments,
   * where they all live, so this reads that one directory.
   * @throws DomainError BLOB_STORE_UNAVAILABLE; Error for an invalid key
   */
  async deleteUnder(parent: string): Promise<void> {
    assertParentKey(parent);
    await this.ensureReady();
    const leaf = dirname(this.pathOf(`${parent}/x`));
    const prefix = `${parent.replaceAll('/', '~')}~`;
    let names: string[];
    try {
      names = await readdir(leaf);
    } catch (error) {
      if (hasCode(error, 'ENOENT')) return;
      throw unavailable('list derived blobs', error);
    }
    for (const name of names) {
      if (!name.startsWith(prefix)) continue;
      try {
        await unlink(join(leaf, name));
      } catch (error) {
        if (!hasCode(error, 'ENOENT')) throw unavailable('delete a blob', error);
      }
    }
  }

  /** Resolves when the root and temp directories exist and are readable and writable. @throws DomainError BLOB_STORE_UNAVAILABLE */
  async ping(): Promise<void> {
    await this.ensureReady();
    try {
      await access(this.tempDirectory, constants.R_OK | constants.W_OK);
      await access(this.directory, constants.R_OK | constants.W_OK);
    } catch (error) {
      throw unavailable('reach the blob directory', error);
    }
  }

  /**
   * Walks the shard directories (`<aa>/<bb>`) one entry at a time (the temp directory and names
   * that are not blob keys are skipped). Never lists a body still being written (those live in the
   * temp directory until complete).
   * @throws DomainError BLOB_STORE_UNAVAILABLE when a directory cannot be read
   */
  async *list(): AsyncIterable<BlobEntry> {
    await this.ensureReady();
    for (const top of await readDirectory(this.directory)) {
      if (!SHARD_NAME.test(top)) continue;
      for (const second of await readDirectory(join(this.directory, top))) {
        if (!SHARD_NAME.test(second)) continue;
        const leaf = join(this.directory, top, second);
        let entries: AsyncIterable<{ name: string; isFile(): boolean }>;
        try {
          entries = await opendir(leaf);
        } catch (error) {
          if (hasCode(error, 'ENOENT')) continue;
          throw unavailable('list blobs', error);
        }
        try {
          for await (const entry of entries) {
            const key = entry.name.replaceAll('~', '/');
            if (!entry.isFile() || !isBlobKey(key)) continue;
            const found = await this.stat(key);
            if (found) yield found;
          }
        } catch (error) {
          throw error instanceof DomainError ? error : unavailable('list blobs', error);
        }
      }
    }
  }

  /** @throws DomainError BLOB_STORE_UNAVAILABLE; Error for an invalid key */
  async stat(key: string): Promise<BlobEntry | undefined> {
    assertBlobKey(key);
    await this.ensureReady();
    try {
      const found = await stat(this.pathOf(key));
      return { key, size: found.size, modifiedAt: found.mtime };
    } catch (error) {
      if (hasCode(error, 'ENOENT')) return undefined;
      throw unavailable('read a blob', error);
    }
  }

  /**
   * Whether a blob file exists under `key` (the key already checked). Asked before every small
   * blob is stored (the tiered store), where the answer is almost always no: one synchronous
   * `stat` that answers a missing file without an exception, rather than a trip through the
   * thread pool and an Error with its stack (decision 0018, docs/decisions/).
   * The small tier itself writes synchronously on the same local file system.
   * @throws DomainError BLOB_STORE_UNAVAILABLE when the file system fails
   */
  async has(key: string): Promise<boolean> {
    try {
      return statSync(this.pathOf(key), { throwIfNoEntry: false }) !== undefined;
    } catch (error) {
      throw unavailable('store a blob', error);
    }
  }

  /**
   * Removes temp files not modified for `olderThanMs` milliseconds: bodies left by a process that
   * crashed mid-upload. Call at start. A live upload writes to its temp file at least every
   * 10 s (WRITE_AT_LEAST_EVERY_MS) or is cut off by the idle timeout, so an age of a few minutes
   * or more never removes one in progress.
   * @returns how many files were removed
   * @throws DomainError BLOB_STORE_UNAVAILABLE when the temp directory cannot be read
   */
  async sweepTempFiles(olderThanMs: number): Promise<number> {
    await this.ensureReady();
    const cutoff = Date.now() - olderThanMs;
    let removed = 0;
    try {
      for await (const entry of await opendir(this.tempDirectory)) {
        const path = join(this.tempDirectory, entry.name);
        try {
          if ((await stat(path)).mtimeMs >= cutoff) continue;
          await rm(path, { force: true, recursive: true });
          removed += 1;
        } catch (error) {
          if (!hasCode(error, 'ENOENT')) throw error;
        }
      }
    } catch (error) {
      throw unavailable('sweep temporary files', error);
    }
    return removed;
  }

  /** Holds nothing open between calls: nothing to release. */
  async close(): Promise<void> {}

  /**
   * Creates the root and temp directories, once; tried again on the next call if it failed.
   * @throws DomainError BLOB_STORE_UNAVAILABLE
   */
  async ensureReady(): Promise<void> {
    if (this.isReady) return;
    this.ready ??= mkdir(this.tempDirectory, { recursive: true }).then(
      () => {
        this.isReady = true;
      },
      (error: unknown) => {
        this.ready = undefined;
        throw unavailable('open the blob directory', error);
      },
    );
    await this.ready;
  }

  private pathOf(key: string): string {
    return this.locate(key).path;
  }

  /** Where the blob `key` lives, and the number (0…65 535) of its shard directory. */
  private locate(key: string): { path: string; shard: number } {
    const segments = key.split('/');
    // Derived blobs shard with their file: hash only the first two segments.
    const hash = createHash('sha256')
      .update(segments.length > 2 ? segments.slice(0, 2).join('/') : key)
      .digest('hex');
    return { path: join(this.directory, hash.slice(0, 2), hash.slice(2, 4), key.replaceAll('/', '~')), shard: Number.parseInt(hash.slice(0, 4), 16) };
  }

  /**
   * Creates `<aa>/<bb>` when missing; with fsync, also flushes the parent entries it added. Remembers
   * the directories it made or found, unless `recheck` (the directory went away under us).
   */
  private async makeShardDirectory(shard: number, shardDirectory: string, recheck = false): Promise<void> {
    const byte = shard >> 3;
    const bit = 1 << (shard & 7);
    if (!recheck && (this.knownShards[byte] & bit) !== 0) return;
    const firstCreated = await mkdir(shardDirectory, { recursive: true });
    if (this.fsync && firstCreated !== undefined) {
      const top = dirname(firstCreated);
      for (let directory = dirname(shardDirectory); ; directory = dirname(directory)) {
        await syncDirectory(directory);
        if (directory === top || directory === dirname(directory)) break;
      }
    }
    this.knownShards[byte] |= bit;
  }
}

const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

/**
 * The bytes of an open file, whole or an inclusive range, read as the consumer asks: one
 * `filehandle.read` per `next()`, at an explicit position (so nothing is read ahead and nothing is
 * buffered but the chunk handed out). Owns the handle: closes it after the last byte of the range
 * (or at the end of the file), on a read error, and on `return()`/`throw()` in any state. Calls of
 * `next()` made before the previous one settled are queued, as async iterators must allow.
 *
 * With `borrow`, chunks are views of {@link BORROWED_BUFFERS} buffers taken in turn (allocated on
 * first use, sized to the range up to READ_CHUNK_BYTES): the chunk of the n-th `next()` is
 * overwritten by the (n+2)-th, as BlobReadOptions allows. Without it, each chunk is a new buffer.
 */
class FileChunks implements AsyncIterableIterator<Uint8Array> {
  /** File offset of the next read. */
  private position: number;
  /** Last byte to read (inclusive); Infinity: to the end of the file. */
  private readonly end: number;
  private readonly ring: Buffer[] | undefined;
  private turn = 0;
  private closed = false;
  private closing: Promise<void> | undefined;
  /** The `next()` in progress, when there is one (later calls wait for it). */
  private current: Promise<IteratorResult<Uint8Array>> | undefined;

  constructor(
    private readonly handle: FileHandle,
    range: ByteRange | undefined,
    borrow: boolean,
  ) {
    this.position = range?.start ?? 0;
    this.end = range?.end ?? Infinity;
    this.ring = borrow ? [] : undefined;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  /** @throws DomainError BLOB_STORE_UNAVAILABLE when reading fails (the handle is closed then) */
  next(): Promise<IteratorResult<Uint8Array>> {
    const previous = this.current;
    const step = previous
      ? previous.then(
          () => this.read(),
          () => this.read(),
        )
      : this.read();
    const current = step.finally(() => {
      if (this.current === current) this.current = undefined;
    });
    this.current = current;
    return current;
  }

  /** Stops reading and closes the file (after a read in progress). */
  async return(): Promise<IteratorResult<Uint8Array>> {
    await this.close();
    return DONE;
  }

  /** Closes the file and rethrows `error` (the iterator protocol's `throw`). */
  async throw(error?: unknown): Promise<IteratorResult<Uint8Array>> {
    await this.close();
    throw error;
  }

  private async read(): Promise<IteratorResult<Uint8Array>> {
    const wanted = Math.min(READ_CHUNK_BYTES, this.end - this.position + 1);
    if (this.closed || wanted <= 0) {
      await this.close();
      return DONE;
    }
    const buffer = this.bufferFor(wanted);
    let bytesRead: number;
    try {
      ({ bytesRead } = await this.handle.read(buffer, 0, wanted, this.position));
    } catch (error) {
      await this.close();
      throw unavailable('read a blob', error);
    }
    if (this.closed) return DONE;
    this.position += bytesRead;
    // The end of the range, or of the file: close now rather than on the consumer's next call.
    if (bytesRead === 0 || this.position > this.end) await this.close();
    if (bytesRead === 0) return DONE;
    return { done: false, value: bytesRead === buffer.length ? buffer : buffer.subarray(0, bytesRead) };
  }

  /** A buffer for the next read of `wanted` bytes: the next one of the ring when borrowing, else a new one. */
  private bufferFor(wanted: number): Buffer {
    if (!this.ring) return Buffer.allocUnsafe(wanted);
    const slot = this.turn;
    this.turn = (this.turn + 1) % BORROWED_BUFFERS;
    // Sized for the first read (the range's length up to a chunk): a later read of this body is never larger.
    const buffer = (this.ring[slot] ??= Buffer.allocUnsafeSlow(wanted));
    return buffer.length === wanted ? buffer : buffer.subarray(0, wanted);
  }

  /** Closes the handle once; a failure to close is ignored (the bytes were read). */
  private close(): Promise<void> {
    this.closed = true;
    this.closing ??= this.handle.close().catch(() => undefined);
    return this.closing;
  }
}

/**
 * Writes the body's chunks to `handle`, gathered into writes of up to WRITE_BATCH_BYTES; one write
 * is in flight while the next batch is gathered, so reading the request and writing the disk overlap.
 * Memory held: two batches at most, whatever the body's size.
 * @throws the body's own errors as they are; DomainError BLOB_STORE_UNAVAILABLE for a failed write
 */
async function writeBody(handle: FileHandle, chunks: AsyncIterable<Uint8Array>, failpoints: Failpoints): Promise<void> {
  let batch: Uint8Array[] = [];
  let batchBytes = 0;
  let writing: Promise<void> | undefined;
  let lastWrite = Date.now();
  const write = async (buffers: Uint8Array[]) => {
    try {
      await failpoints.reach('blob_write');
    } catch (error) {
      throw unavailable('write a blob', error);
    }
    await writeAll(handle, buffers);
  };
  try {
    for await (const chunk of chunks) {
      batch.push(chunk);
      batchBytes += chunk.length;
      if (batchBytes < WRITE_BATCH_BYTES && Date.now() - lastWrite < WRITE_AT_LEAST_EVERY_MS) continue;
      lastWrite = Date.now();
      await writing;
      writing = write(batch);
      // Handled here so a failure while the next batch is gathered is not an unhandled rejection; awaited above or below.
      writing.catch(() => undefined);
      batch = [];
      batchBytes = 0;
    }
    await writing;
    writing = undefined;
    if (batch.length > 0) await write(batch);
  } finally {
    // Never leave a write in flight on a handle the caller is about to close.
    await writing?.catch(() => undefined);
  }
}

/** Writes all of `buffers` at the file position, however many calls it takes. @throws DomainError BLOB_STORE_UNAVAILABLE */
async function writeAll(handle: FileHandle, buffers: Uint8Array[]): Promise<void> {
  try {
    await writeBuffers(handle, buffers, null);
  } catch (error) {
    throw unavailable('write a blob', error);
  }
}

/** Links `from` to `to`; when the shard directory vanished meanwhile (ENOENT), recreates it once and retries. */
async function linkInto(from: string, to: string, recreateDirectory: () => Promise<void>): Promise<void> {
  try {
    await link(from, to);
  } catch (error) {
    if (!hasCode(error, 'ENOENT')) throw error;
    await recreateDirectory();
    await link(from, to);
  }
}

/** Runs a file-system step; its failure becomes BLOB_STORE_UNAVAILABLE. */
async function fileSystem<T>(action: string, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    throw unavailable(action, error);
  }
}

/** Flushes a directory's entries (a rename or a new child) to the disk. Windows cannot open directories: skipped there. */
async function syncDirectory(path: string): Promise<void> {
  if (process.platform === 'win32') return;
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Shard directories: `<aa>/<bb>`, 256 × 256. */
const SHARD_COUNT = 65_536;

/** Names of shard directories: two lower-case hex characters. */
const SHARD_NAME = /^[0-9a-f]{2}$/;

/** The names in a directory; none when it does not exist. @throws DomainError BLOB_STORE_UNAVAILABLE */
async function readDirectory(path: string): Promise<string[]> {
  try {
    return (await readdir(path)).sort();
  } catch (error) {
    if (hasCode(error, 'ENOENT')) return [];
    throw unavailable('list blobs', error);
  }
}
