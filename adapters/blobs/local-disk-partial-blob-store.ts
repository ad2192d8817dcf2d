import { randomUUID } from 'node:crypto';
import type { IHasher } from 'hash-wasm';
import { mkdir, open, rm, type FileHandle } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { BlobStore } from '../../core/files/blob-store.js';
import type { AppendResult, PartialBlobState, PartialBlobStore } from '../../core/files/partial-blob-store.js';
import { DomainError } from '../../core/shared/errors.js';
import { assertBlobKey } from './blob-keys.js';
import { canAdoptFiles } from './file-adoption.js';
import { assertLength, tooLong } from './memory-partial-blob-store.js';

/** Options of {@link LocalDiskPartialBlobStore}. */
export interface LocalDiskPartialBlobStoreOptions {
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
 * arrived before the cut is durable and counted. The SHA-256 is computed as bytes are written and
 * carried in the state. `complete` links the file into the blob store when it can adopt files (no
 * byte written twice; the hash from the state, or from one read of the file), else streams it into
 * the {@link BlobStore} (`put`, which hashes it and flushes the blob), and then removes it.
 */
export class LocalDiskPartialBlobStore implements PartialBlobStore {
  private readonly directory: string;
  private readonly fsync: boolean;
  private ready: Promise<void> | undefined;

  constructor(private readonly options: LocalDiskPartialBlobStoreOptions) {
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
    return { file, length: options.length, contentType: options.contentType, ...hashState(await newHasher(), 0) };
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
      const hasher = options.state.hashed === options.offset ? await restoreHasher(options.state.hash) : undefined;
      let position = options.offset;
      let interruptedBy: unknown;
      try {
        options.signal?.throwIfAborted();
        for await (const chunk of options.body) {
          if (position + chunk.length > length) {
            await fileSystem('write a partial blob', () => handle.truncate(options.offset));
            throw tooLong(length);
          }
          await fileSystem('write a partial blob', () => writeAll(handle, chunk, position));
          hasher?.update(chunk);
          position += chunk.length;
          options.signal?.throwIfAborted();
        }
      } catch (error) {
        if (error instanceof DomainError && (error.code === 'FILE_TOO_LARGE' || error.code === 'BLOB_STORE_UNAVAILABLE' || error.code === 'STORAGE_FULL')) throw error;
        interruptedBy = error;
      }
      if (this.fsync) await fileSystem('flush a partial blob', () => handle.sync());
      const { hash: _hash, hashed: _hashed, ...rest } = options.state;
      const state = hasher ? { ...rest, ...hashState(hasher, position) } : rest;
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
        const sha256 = await sha256Of(options.state, handle, length);
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

async function writeAll(handle: FileHandle, chunk: Uint8Array, position: number): Promise<void> {
  for (let written = 0; written < chunk.length; ) {
    const { bytesWritten } = await handle.write(chunk, written, chunk.length - written, position + written);
    written += bytesWritten;
  }
}

/** The file's first `length` bytes in chunks of {@link READ_CHUNK_BYTES}, each a new buffer (`put` may keep them). */
async function* readAll(handle: FileHandle, length: number): AsyncGenerator<Uint8Array> {
  for (let position = 0; position < length; ) {
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

async function newHasher(): Promise<IHasher> {
  // Imported on the first resumable upload: a process that never serves one does not load hash-wasm.
  const { createSHA256 } = await import('hash-wasm');
  const hasher = await createSHA256();
  hasher.init();
  return hasher;
}

/** The hasher saved in a state, or undefined when the state holds none (or not one this code reads). */
async function restoreHasher(saved: unknown): Promise<IHasher | undefined> {
  if (typeof saved !== 'string') return undefined;
  const hasher = await newHasher();
  try {
    hasher.load(Buffer.from(saved, 'base64'));
  } catch {
    return undefined;
  }
  return hasher;
}

/** The state members that carry `hasher` over the first `hashed` bytes. */
function hashState(hasher: IHasher, hashed: number): { hash: string; hashed: number } {
  return { hash: Buffer.from(hasher.save()).toString('base64'), hashed };
}

/** SHA-256 (hex) of the complete partial: from the state's running hash, else by reading the file once. */
async function sha256Of(state: PartialBlobState, handle: FileHandle, length: number): Promise<string> {
  const hasher = state.hashed === length ? await restoreHasher(state.hash) : undefined;
  if (hasher) return hasher.digest('hex');
  const fresh = await newHasher();
  for await (const chunk of readAll(handle, length)) fresh.update(chunk);
  return fresh.digest('hex');
}
