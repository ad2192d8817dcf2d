import { createHash, randomUUID, type Hash } from 'node:crypto';
import { mkdir, open, rm, type FileHandle } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { BlobStore } from '../../core/files/blob-store.js';
import type { AppendResult, PartialBlobState, PartialBlobStore } from '../../core/files/partial-blob-store.js';
import { DomainError } from '../../core/shared/errors.js';
import { assertBlobKey } from './blob-keys.js';
import { canAdoptFiles } from './file-adoption.js';
import { assertLength, tooLong } from './memory-partial-blob-store.js';
import { writeBuffers } from './write-buffers.js';

/** Options of {@link FilePartialBlobStore}. */
export interface FilePartialBlobStoreOptions {
  /**
   * Directory of the partial files, created on first use. The server uses `<blob directory>/.partial`
   * (the blob store's listing skips names that are not shards), so partials stay on the blob store's
   * file system.
   */
  directory: string;
  /**
   * Where a complete partial becomes a blob: linked into place when the store can adopt files
   * (FileAdoptingBlobStore, the local-disk store on the same file system), else copied with `put`.
   */
  blobs: BlobStore;
  /** Flush each append to the disk before it is acknowledged. Default true; off only for tests. */
  fsync?: boolean;
}

/** Bytes per read when a complete partial is copied into the blob store. */
const READ_CHUNK_BYTES = 256 * 1024;
/** A partial file's name: what `create` draws (a UUID), checked before it is joined to the directory. */
const PARTIAL_NAME = /^[0-9a-f-]{36}$/;

/**
 * A {@link PartialBlobStore} on a local file system: each partial blob is one file,
 * `<directory>/<uuid>`, written in place at the offsets the caller gives. State is
 * `{ file, length, contentType }`, so any process that sees the directory can continue an upload.
 *
 * `append` truncates the file to the caller's offset first (bytes a killed process wrote but never
 * acknowledged are dropped), writes each chunk of the body as it arrives (memory does not grow with
 * the body), and flushes the file (`fsync`) before it resolves, also when the body was cut: what
 * arrived before the cut is durable and counted.
 *
 * The SHA-256 runs (node:crypto) over the bytes as they are written and is kept in this process's
 * memory under a token that the returned state carries (`hashToken`, with `hashed`, the bytes it
 * covers). The next append continues it when its state carries that token and the process still
 * holds it; a token is taken out when it is used, so a state the caller never committed (an append
 * whose offset was not recorded) cannot be continued. When the next append lands on another
 * process (or after a restart, or past {@link RUNNING_HASHES_KEPT} uploads) the running hash is
 * dropped and `complete` hashes the file with one read (from the page cache, about 0.6 ms per MiB).
 * `complete` links the file into the blob store when it can adopt files (no byte written twice),
 * else streams it into the {@link BlobStore} (`put`, which hashes it and flushes the blob), and then
 * removes it.
 */
export class FilePartialBlobStore implements PartialBlobStore {
  private readonly directory: string;
  private readonly fsync: boolean;
  private readonly runningHashes = new RunningHashes();
  private ready: Promise<void> | undefined;

  constructor(private readonly options: FilePartialBlobStoreOptions) {
    this.directory = resolve(options.directory);
    this.fsync = options.fsync ?? true;
  }

  /** @throws DomainError BLOB_STORE_UNAVAILABLE (or STORAGE_FULL) when the file cannot be created */
  async create(options: { key: string; length: number; contentType: string }): Promise<PartialBlobState> {
    assertBlobKey(options.key);
    assertLength(options.length);
    await this.ensureReady();
    const file = randomUUID();
    await fileSystem('create a partial blob', async () => {
      const handle = await open(join(this.directory, file), 'wx');
      await handle.close();
      if (this.fsync) await syncDirectory(this.directory);
    });
    return { file, length: options.length, contentType: options.contentType, ...this.runningHashes.keep(createHash('sha256'), 0) };
  }

  /**
   * @throws DomainError FILE_TOO_LARGE past the length (the file is cut back to `offset`);
   *         BLOB_STORE_UNAVAILABLE when the file is gone or the file system fails;
   *         Error when the file holds fewer than `offset` bytes
   */
  async append(options: { state: PartialBlobState; offset: number; body: AsyncIterable<Uint8Array>; signal?: AbortSignal }): Promise<AppendResult> {
    const { path, length } = this.locate(options.state);
    const handle = await fileSystem('open a partial blob', () => open(path, 'r+'));
    try {
      const { size } = await fileSystem('open a partial blob', () => handle.stat());
      if (size < options.offset) throw new Error(`Append at ${options.offset}, but the partial blob holds ${size} bytes.`);
      if (size > options.offset) await fileSystem('write a partial blob', () => handle.truncate(options.offset));
      // The running hash continues only from where it stopped; otherwise `complete` reads the file.
      const hasher = this.runningHashes.take(options.state, options.offset);
      let interruptedBy: unknown;
      const flusher = this.fsync ? new EarlyFlusher(handle) : undefined;
      const writer = new PositionedWriter(handle, options.offset, flusher);
      try {
        options.signal?.throwIfAborted();
        for await (const chunk of options.body) {
          if (writer.end + chunk.length > length) {
            await writer.settle();
            await flusher?.settle();
            await fileSystem('write a partial blob', () => handle.truncate(options.offset));
            throw tooLong(length);
          }
          hasher?.update(chunk);
          await writer.push(chunk);
          options.signal?.throwIfAborted();
        }
        await writer.drain();
      } catch (error) {
        // A body that ended early (cut, timed out, aborted) keeps what arrived: written and flushed below.
        // A refusal or a failed write is thrown, and the caller keeps its offset.
        const refused =
          error instanceof DomainError && (error.code === 'FILE_TOO_LARGE' || error.code === 'BLOB_STORE_UNAVAILABLE' || error.code === 'STORAGE_FULL');
        try {
          if (refused) await writer.settle();
          else await writer.drain();
        } finally {
          await flusher?.settle();
        }
        if (refused) throw error;
        interruptedBy = error;
      }
      if (flusher) await fileSystem('flush a partial blob', () => flusher.finish());
      const position = writer.end;
      const { hashToken: _token, hashed: _hashed, ...rest } = options.state;
      const state = hasher ? { ...rest, ...this.runningHashes.keep(hasher, position) } : rest;
      return interruptedBy === undefined ? { offset: position, state } : { offset: position, state, interruptedBy };
    } finally {
      await handle.close().catch(() => undefined);
    }
  }

  /** @throws DomainError BLOB_STORE_UNAVAILABLE; Error when the file does not hold `length` bytes */
  async complete(options: { state: PartialBlobState; key: string }): Promise<{ size: number; sha256: string }> {
    const { path, length, contentType } = this.locate(options.state);
    const handle = await fileSystem('open a partial blob', () => open(path, 'r'));
    let stored: { size: number; sha256: string };
    try {
      const { size } = await fileSystem('open a partial blob', () => handle.stat());
      if (size !== length) throw new Error(`The partial blob holds ${size} of ${length} bytes: not complete.`);
      const blobs = this.options.blobs;
      if (canAdoptFiles(blobs)) {
        const hasher = this.runningHashes.take(options.state, length);
        const sha256 = hasher ? hasher.digest('hex') : await sha256Of(handle, length);
        if (await blobs.adoptFile({ key: options.key, path, size: length })) return { size: length, sha256 };
      }
      stored = await blobs.put({ key: options.key, body: readAll(handle, length), contentType, maxBytes: length });
    } finally {
      await handle.close().catch(() => undefined);
    }
    await this.abort(options.state);
    return stored;
  }

  async abort(state: PartialBlobState): Promise<void> {
    const { path } = this.locate(state);
    this.runningHashes.take(state, state.hashed);
    await fileSystem('remove a partial blob', () => rm(path, { force: true }));
  }

  private locate(state: PartialBlobState): { path: string; length: number; contentType: string } {
    const { file, length, contentType } = state;
    if (typeof file !== 'string' || !PARTIAL_NAME.test(file) || typeof length !== 'number' || typeof contentType !== 'string') {
      throw new Error(`Not the state of a local-disk partial blob: ${JSON.stringify(state)}`);
    }
    return { path: join(this.directory, file), length, contentType };
  }

  private ensureReady(): Promise<void> {
    this.ready ??= fileSystem('create the partial blob directory', async () => {
      await mkdir(this.directory, { recursive: true });
    }).catch((error: unknown) => {
      this.ready = undefined;
      throw error;
    });
    return this.ready;
  }
}

/** Bytes written between two early flushes of an append ({@link EarlyFlusher}). */
const EARLY_FLUSH_BYTES = 4 * 1024 * 1024;

/**
 * Flushes an append's bytes to the disk while the rest of the body is still arriving: after each
 * {@link EARLY_FLUSH_BYTES} written, one `fdatasync` starts in the background (never two at once),
 * so the flush that acknowledges the append finds little left to write and the disk works while
 * the network does. `finish` waits for the background flush, then flushes the file (`fsync`); a
 * background flush that failed fails `finish`, since the kernel reports a write-back error once.
 */
class EarlyFlusher {
  private unflushed = 0;
  private inFlight: Promise<void> | undefined;
  private failure: unknown;

  constructor(private readonly handle: FileHandle) {}

  /** Counts `bytes` just written, and starts a background flush when enough are waiting and none runs. */
  written(bytes: number): void {
    this.unflushed += bytes;
    if (this.unflushed < EARLY_FLUSH_BYTES || this.inFlight) return;
    this.unflushed = 0;
    this.inFlight = this.handle
      .datasync()
      .then(
        () => undefined,
        (error: unknown) => {
          this.failure ??= error;
        },
      )
      .finally(() => {
        this.inFlight = undefined;
      });
  }

  /** Waits for the background flush, if one runs; never throws. */
  async settle(): Promise<void> {
    await this.inFlight;
  }

  /** Waits for the background flush, then flushes the file. @throws the first flush error */
  async finish(): Promise<void> {
    await this.settle();
    // eslint-disable-next-line @typescript-eslint/only-throw-error -- the flush's own error, rethrown as it was caught
    if (this.failure !== undefined) throw this.failure;
    await this.handle.sync();
  }
}

/** Bytes gathered into one positioned write of an append. */
const WRITE_BATCH_BYTES = 256 * 1024;

/**
 * Writes an append's chunks at their offsets, gathered into `writev` calls of up to
 * {@link WRITE_BATCH_BYTES}, with one write in flight while the next batch is gathered (reading
 * the request and writing the disk overlap). Holds two batches at most. `end` is the offset after
 * every chunk pushed; once `drain` resolved, every one of them is in the file.
 */
class PositionedWriter {
  /** Offset after the last chunk pushed, bytes. */
  end: number;
  private batch: Uint8Array[] = [];
  private batchBytes = 0;
  private writing: Promise<void> | undefined;

  constructor(
    private readonly handle: FileHandle,
    offset: number,
    private readonly flusher: EarlyFlusher | undefined,
  ) {
    this.end = offset;
  }

  /** Gathers `chunk`; writes the batch once it is full (after the write before it ended). @throws DomainError as `drain` */
  async push(chunk: Uint8Array): Promise<void> {
    this.batch.push(chunk);
    this.batchBytes += chunk.length;
    this.end += chunk.length;
    if (this.batchBytes >= WRITE_BATCH_BYTES) await this.startWrite();
  }

  /** Writes what is gathered and waits for every write. @throws DomainError BLOB_STORE_UNAVAILABLE, STORAGE_FULL */
  async drain(): Promise<void> {
    await this.startWrite();
    await this.writing;
  }

  /** Waits for the write in flight, if any, without throwing (before the file is cut or closed). */
  async settle(): Promise<void> {
    await this.writing?.catch(() => undefined);
  }

  private async startWrite(): Promise<void> {
    await this.writing;
    if (this.batch.length === 0) return;
    const buffers = this.batch;
    const position = this.end - this.batchBytes;
    const bytes = this.batchBytes;
    this.batch = [];
    this.batchBytes = 0;
    this.writing = fileSystem('write a partial blob', () => writeBuffers(this.handle, buffers, position)).then(() => this.flusher?.written(bytes));
    // Awaited by the next push or drain; handled here so a failure meanwhile is not an unhandled rejection.
    this.writing.catch(() => undefined);
  }
}

/** The file's first `length` bytes in chunks of {@link READ_CHUNK_BYTES}, each a new buffer (`put` may keep them). */
async function* readAll(handle: FileHandle, length: number): AsyncGenerator<Uint8Array> {
  for (let position = 0; position < length;) {
    const buffer = Buffer.allocUnsafe(Math.min(READ_CHUNK_BYTES, length - position));
    const { bytesRead } = await fileSystem('read a partial blob', () => handle.read(buffer, 0, buffer.length, position));
    if (bytesRead === 0) throw new DomainError('BLOB_STORE_UNAVAILABLE', 'The partial blob ended before its length.');
    position += bytesRead;
    yield buffer.subarray(0, bytesRead);
  }
}

async function syncDirectory(path: string): Promise<void> {
  if (process.platform === 'win32') return;
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

const NO_SPACE = new Set(['ENOSPC', 'EDQUOT']);

/** Runs a file-system step, turning its failure into BLOB_STORE_UNAVAILABLE (STORAGE_FULL when the disk is full). */
async function fileSystem<T>(action: string, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (error instanceof DomainError || !(error as { code?: unknown })?.code) throw error;
    const code = (error as { code: string }).code;
    const wrapped = NO_SPACE.has(code)
      ? new DomainError('STORAGE_FULL', 'The blob store has no space left. Try again later.')
      : new DomainError('BLOB_STORE_UNAVAILABLE', `The blob store could not ${action}.`);
    wrapped.cause = error;
    throw wrapped;
  }
}

/** Running hashes this process keeps at most; the oldest is dropped first (its upload is then hashed by one read). */
const RUNNING_HASHES_KEPT = 1024;

/**
 * The running SHA-256 of this process's partial blobs, by a random token that the upload's state
 * carries. `take` hands a hash out once, and only for a state whose `hashed` is the offset asked for.
 */
class RunningHashes {
  private readonly hashes = new Map<string, { hash: Hash; hashed: number }>();

  /** Keeps `hash` (over the first `hashed` bytes) and returns the state members that name it. */
  keep(hash: Hash, hashed: number): { hashToken: string; hashed: number } {
    const hashToken = randomUUID();
    this.hashes.set(hashToken, { hash, hashed });
    if (this.hashes.size > RUNNING_HASHES_KEPT) this.hashes.delete(this.hashes.keys().next().value!);
    return { hashToken, hashed };
  }

  /** The hash a state names, removed from the store, when it covers exactly `offset` bytes; else undefined. */
  take(state: PartialBlobState, offset: unknown): Hash | undefined {
    const token = state.hashToken;
    if (typeof token !== 'string') return undefined;
    const kept = this.hashes.get(token);
    if (!kept) return undefined;
    this.hashes.delete(token);
    return kept.hashed === offset && state.hashed === offset ? kept.hash : undefined;
  }
}

/** SHA-256 (hex) of the partial file's first `length` bytes, by one read. */
async function sha256Of(handle: FileHandle, length: number): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of readAll(handle, length)) hash.update(chunk);
  return hash.digest('hex');
}
