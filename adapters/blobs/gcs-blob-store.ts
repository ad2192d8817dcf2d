import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { IdempotencyStrategy, Storage, type Bucket, type File } from '@google-cloud/storage';
import type { BlobEntry, BlobStore, ByteRange } from '../../core/files/blob-store.js';
import { DomainError } from '../../core/shared/errors.js';
import { assertBlobKey, assertMaxBytes, assertParentKey, isBlobKey } from './blob-keys.js';
import { BodyMeter, bodyStream } from './body-meter.js';
import { WatchedBody } from './watched-body.js';

/** Options of {@link GcsBlobStore}. */
export interface GcsBlobStoreOptions {
  /** Bucket name (it must exist; the store never creates it). */
  bucket: string;
  /** Object name prefix, without leading or trailing slash: objects are `<prefix>/<key>`, or `<key>` without one. */
  prefix?: string;
  /**
   * Base URL of the JSON API (`https://storage.googleapis.com` by default), e.g. an emulator or a test fake.
   * With a non-Google endpoint the client sends no credentials (the library's rule for custom endpoints).
   */
  apiEndpoint?: string;
  /**
   * Bytes, default 8 MiB. A body that ends before this many bytes goes in one multipart request
   * (retried whole on transient errors); a longer one goes as a resumable upload in chunks of this
   * size rounded up to 256 KiB (each chunk retried on its own). Also the memory one upload holds.
   */
  resumableThresholdBytes?: number;
  /**
   * Milliseconds, default 30 000: the longest GCS may keep one call waiting (one request, a stalled
   * upload or download, a health check) before the call fails with BLOB_STORE_UNAVAILABLE.
   */
  timeoutMs?: number;
  /** Retries of transient failures (408, 429, 5xx, connection errors): count (default 3) and longest delay in ms (default 4000, at least 1000). */
  retry?: { maxRetries?: number; maxDelayMs?: number };
  /** A ready client (tests, or a host that configures credentials itself); `apiEndpoint`, `timeoutMs` and `retry` are then not applied to it. */
  storage?: Storage;
}

/** Defaults of {@link GcsBlobStoreOptions}. */
export const GCS_DEFAULTS = { resumableThresholdBytes: 8 * 1024 * 1024, timeoutMs: 30_000, maxRetries: 3, maxDelayMs: 4_000 } as const;

/** GCS's resumable chunks must be multiples of 256 KiB (https://cloud.google.com/storage/docs/performing-resumable-uploads#chunked-upload). */
const CHUNK_GRANULARITY = 256 * 1024;

/**
 * A {@link BlobStore} on Google Cloud Storage, through `@google-cloud/storage` 7.
 *
 * Every object is created with the precondition `ifGenerationMatch: 0`, so an existing object is
 * never replaced (GCS answers 412), and writes count as idempotent for the library's retries.
 * The client's idempotency strategy is `RetryAlways`: all our writes carry that precondition and
 * deletes ignore "not found", and under the default strategy the library switches `autoRetry` off
 * on the shared client while a precondition-less call runs, which would silently stop retries of
 * concurrent calls.
 *
 * `put` counts and hashes (SHA-256) the body through {@link BodyMeter}. Bodies shorter than the
 * resumable threshold are held (at most that many bytes) and sent in one request; longer ones stream
 * into a resumable upload with backpressure, where the object appears only when the last chunk is
 * accepted. On any failure the adapter deletes the object in case GCS created it, except when the
 * failure was the 412 itself (the object there is someone else's). Uploads are checked with CRC32C.
 *
 * Content type is stored as the object's `contentType`; the file record remains the source of truth.
 */
export class GcsBlobStore implements BlobStore {
  private readonly storage: Storage;
  private readonly bucket: Bucket;
  private readonly probeBucket: Bucket;
  private readonly prefix: string;
  private readonly threshold: number;
  private readonly chunkSize: number;
  private readonly timeoutMs: number;

  constructor(options: GcsBlobStoreOptions) {
    if (!/^[a-z0-9][a-z0-9._-]{1,220}[a-z0-9]$/.test(options.bucket)) throw new Error(`Invalid GCS bucket name ${JSON.stringify(options.bucket)}.`);
    this.prefix = (options.prefix ?? '').replace(/^\/+|\/+$/g, '');
    this.threshold = options.resumableThresholdBytes ?? GCS_DEFAULTS.resumableThresholdBytes;
    if (!Number.isSafeInteger(this.threshold) || this.threshold < 1) throw new Error('resumableThresholdBytes must be a positive integer.');
    this.chunkSize = Math.ceil(this.threshold / CHUNK_GRANULARITY) * CHUNK_GRANULARITY;
    this.timeoutMs = options.timeoutMs ?? GCS_DEFAULTS.timeoutMs;
    // At least 1 s: single-request saves retry through async-retry, whose first delay is 1 s and which refuses a smaller cap.
    const maxDelayMs = Math.max(1_000, options.retry?.maxDelayMs ?? GCS_DEFAULTS.maxDelayMs);
    const client = (autoRetry: boolean) =>
      new Storage({
        ...(options.apiEndpoint ? { apiEndpoint: options.apiEndpoint, projectId: 'hangar-emulator' } : {}),
        timeout: this.timeoutMs,
        retryOptions: {
          autoRetry,
          maxRetries: options.retry?.maxRetries ?? GCS_DEFAULTS.maxRetries,
          retryDelayMultiplier: 2,
          // Seconds, as the library counts them.
          maxRetryDelay: maxDelayMs / 1000,
          totalTimeout: (this.timeoutMs * 4) / 1000,
          idempotencyStrategy: IdempotencyStrategy.RetryAlways,
        },
      });
    this.storage = options.storage ?? client(true);
    this.bucket = this.storage.bucket(options.bucket);
    // Health checks answer at once, without retries: a probe that waits out backoffs is itself a hang.
    this.probeBucket = options.storage ? this.bucket : client(false).bucket(options.bucket);
  }

  /**
   * @throws DomainError FILE_TOO_LARGE past `maxBytes` (stops reading there); BLOB_STORE_UNAVAILABLE when GCS
   *         fails, cannot be reached or stalls past `timeoutMs`; the body's own error; an AbortError when
   *         `signal` aborts; Error when an object already exists under `key` or for an invalid key or `maxBytes`
   *         (bugs in the caller). Nothing is left behind on failure.
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
    const file = this.fileOf(key);
    // The body's own errors go out as they are, so tell them from the store's: a pipeline destroys every stream with the first error.
    const watched = new WatchedBody(options.body);
    const source = bodyStream(watched.chunks());
    const meter = new BodyMeter(options.maxBytes);
    const sink = new GcsSink({ file, contentType: options.contentType, threshold: this.threshold, chunkSize: this.chunkSize, timeoutMs: this.timeoutMs });
    try {
      await pipeline(source, meter, sink, signal ? { signal } : {});
      return { size: meter.size, sha256: meter.digest() };
    } catch (error) {
      const preconditionFailed = statusOf(error) === 412;
      // The object exists only if GCS completed the request that creates it while we failed (a lost
      // response, a timeout on the last chunk); before that request there is nothing to remove.
      if (!preconditionFailed && sink.finalRequestSent) {
        await deadline(file.delete({ ignoreNotFound: true, timeout: this.timeoutMs } as object), this.timeoutMs, 'clean up').catch(() => undefined);
      }
      if (signal?.aborted || error instanceof DomainError || watched.threw(error)) throw error;
      if (preconditionFailed)
        throw new Error(`A blob already exists under ${key}; blobs are never replaced (the caller must use a fresh key).`, { cause: error });
      throw unavailable('store a blob', error);
    }
  }

  /**
   * Checks the object's metadata, then streams it (a ranged media download for a range). A stall
   * of `timeoutMs` while the consumer waits for the next chunk ends the stream with BLOB_STORE_UNAVAILABLE;
   * other failures mid-stream surface as the stream's own error. Chunks are always the consumer's
   * (each arrives in its own buffer from the socket), so `borrowChunks` (BlobReadOptions) needs nothing here.
   * @returns the bytes, or undefined when there is no such object
   * @throws DomainError BLOB_STORE_UNAVAILABLE; Error for an invalid key
   */
  async get(key: string, range?: ByteRange): Promise<AsyncIterable<Uint8Array> | undefined> {
    assertBlobKey(key);
    const file = this.fileOf(key);
    try {
      await this.withTimeout(file.getMetadata(), 'read blob metadata');
    } catch (error) {
      if (statusOf(error) === 404) return undefined;
      throw error instanceof DomainError ? error : unavailable('read blob metadata', error);
    }
    const stream = file.createReadStream({ validation: false, ...(range ? { start: range.start, end: range.end } : {}) });
    return guardedRead(stream, this.timeoutMs);
  }

  /** @throws DomainError BLOB_STORE_UNAVAILABLE; Error for an invalid key */
  async delete(key: string): Promise<void> {
    assertBlobKey(key);
    try {
      await this.withTimeout(this.fileOf(key).delete({ ignoreNotFound: true }), 'delete a blob');
    } catch (error) {
      throw error instanceof DomainError ? error : unavailable('delete a blob', error);
    }
  }

  /**
   * Lists the objects named `<prefix>/<parent>/…` (objects.list, 1 000 per request) and deletes each.
   * @throws DomainError BLOB_STORE_UNAVAILABLE; Error for an invalid key
   */
  async deleteUnder(parent: string): Promise<void> {
    assertParentKey(parent);
    for await (const files of this.objectPages(`${this.objectName(parent)}/`, 'list derived blobs')) {
      try {
        for (const file of files) await this.withTimeout(file.delete({ ignoreNotFound: true }), 'delete a blob');
      } catch (error) {
        throw error instanceof DomainError ? error : unavailable('delete derived blobs', error);
      }
    }
  }

  /** Resolves when the bucket answers and exists (one request, no retries). @throws DomainError BLOB_STORE_UNAVAILABLE */
  async ping(): Promise<void> {
    let exists: boolean;
    try {
      [exists] = await this.withTimeout(this.probeBucket.exists(), 'reach the bucket');
    } catch (error) {
      throw error instanceof DomainError ? error : unavailable('reach the bucket', error);
    }
    if (!exists) throw unavailable('find its bucket', new Error(`bucket ${this.bucket.name} does not exist`));
  }

  /**
   * Lists the objects under the prefix, 1 000 per request (objects.list); names that are not blob
   * keys are skipped. An unfinished resumable upload is no object yet, so it is never listed.
   * @throws DomainError BLOB_STORE_UNAVAILABLE (after the library's retries)
   */
  async *list(): AsyncIterable<BlobEntry> {
    const prefix = this.prefix === '' ? '' : `${this.prefix}/`;
    for await (const files of this.objectPages(prefix, 'list blobs')) {
      for (const file of files) {
        const key = file.name.slice(prefix.length);
        if (!file.name.startsWith(prefix) || !isBlobKey(key)) continue;
        yield entryOf(key, file.metadata);
      }
    }
  }

  /**
   * The objects whose names start with `prefix` (all of them for ''), one page of up to
   * LIST_PAGE_SIZE per objects.list request, following the page tokens.
   * @param action what the listing is for, in the timeout's and the error's message
   * @throws DomainError BLOB_STORE_UNAVAILABLE when a request fails or times out
   */
  private async *objectPages(prefix: string, action: string): AsyncGenerator<File[]> {
    let pageToken: string | undefined;
    do {
      let files: File[];
      let next: { pageToken?: string } | null | undefined;
      try {
        [files, next] = (await this.withTimeout(
          this.bucket.getFiles({ prefix: prefix || undefined, autoPaginate: false, maxResults: LIST_PAGE_SIZE, pageToken }),
          action,
        )) as unknown as [File[], { pageToken?: string } | null];
      } catch (error) {
        throw error instanceof DomainError ? error : unavailable(action, error);
      }
      yield files;
      pageToken = next?.pageToken;
    } while (pageToken);
  }

  /** @throws DomainError BLOB_STORE_UNAVAILABLE; Error for an invalid key */
  async stat(key: string): Promise<BlobEntry | undefined> {
    assertBlobKey(key);
    try {
      const [metadata] = await this.withTimeout(this.fileOf(key).getMetadata(), 'read blob metadata');
      return entryOf(key, metadata);
    } catch (error) {
      if (statusOf(error) === 404) return undefined;
      throw error instanceof DomainError ? error : unavailable('read blob metadata', error);
    }
  }

  /** The object name of `key`: `<prefix>/<key>`. */
  objectName(key: string): string {
    return this.prefix === '' ? key : `${this.prefix}/${key}`;
  }

  private fileOf(key: string): File {
    return this.bucket.file(this.objectName(key));
  }

  private withTimeout<T>(promise: Promise<T>, action: string): Promise<T> {
    return deadline(promise, this.timeoutMs, action);
  }
}

/**
 * The end of the put pipeline: holds the first `threshold` bytes; if the body ends there, sends
 * them in one multipart request (`file.save`, retried whole); otherwise opens a resumable upload,
 * hands over what it held and forwards the rest with backpressure. A watchdog fails the upload
 * when GCS leaves a write or the final response pending for `timeoutMs`.
 */
class GcsSink extends Writable {
  /** Whether the request that creates the object (single request, or last resumable chunk) may have been sent. */
  finalRequestSent = false;
  private held: Buffer[] = [];
  private heldBytes = 0;
  private upload: Writable | undefined;
  private watchdog: NodeJS.Timeout | undefined;

  constructor(private readonly options: { file: File; contentType: string; threshold: number; chunkSize: number; timeoutMs: number }) {
    super({ highWaterMark: 64 * 1024 });
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (this.upload) {
      this.upload.write(chunk, (error) => callback(error));
      return;
    }
    this.held.push(chunk);
    this.heldBytes += chunk.length;
    if (this.heldBytes < this.options.threshold) return callback();
    this.openResumable();
    const held = this.held;
    this.held = [];
    this.upload!.write(Buffer.concat(held), (error) => callback(error));
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.finalRequestSent = true;
    if (this.upload) {
      const upload = this.upload;
      upload.once('finish', () => callback());
      upload.end();
      return;
    }
    const { file, contentType, timeoutMs } = this.options;
    const bytes = Buffer.concat(this.held, this.heldBytes);
    this.held = [];
    deadline(
      file.save(bytes, { resumable: false, contentType, timeout: timeoutMs, validation: 'crc32c', preconditionOpts: { ifGenerationMatch: 0 } }),
      // Retries included: the library's retry window is four request timeouts.
      timeoutMs * 5,
      'store a blob',
    ).then(
      () => callback(),
      (error: Error) => callback(error),
    );
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.stopWatchdog();
    if (this.upload && !this.upload.writableFinished) this.upload.destroy(error ?? undefined);
    callback(error);
  }

  private openResumable(): void {
    const { file, contentType, chunkSize, timeoutMs } = this.options;
    const upload = file.createWriteStream({
      resumable: true,
      chunkSize,
      contentType,
      validation: 'crc32c',
      preconditionOpts: { ifGenerationMatch: 0 },
    });
    this.upload = upload;
    upload.once('error', (error) => this.destroy(error));
    let lastActivity = Date.now();
    let waiting = false;
    const touch = () => (lastActivity = Date.now());
    upload.on('progress', touch);
    upload.on('drain', touch);
    upload.on('uri', touch);
    this.watchdog = setInterval(
      () => {
        // Waiting on GCS: a write it has not taken yet, or the end it has not confirmed. Not: waiting on the body.
        const nowWaiting = upload.writableLength > 0 || (upload.writableEnded && !upload.writableFinished);
        if (nowWaiting && !waiting) touch();
        waiting = nowWaiting;
        if (waiting && Date.now() - lastActivity > timeoutMs) {
          this.stopWatchdog();
          upload.destroy(unavailable('store a blob', new Error(`GCS stalled for ${timeoutMs} ms`)));
        }
      },
      Math.max(10, Math.min(1_000, timeoutMs / 5)),
    );
    this.watchdog.unref();
    upload.once('finish', () => this.stopWatchdog());
  }

  private stopWatchdog(): void {
    if (this.watchdog) clearInterval(this.watchdog);
    this.watchdog = undefined;
  }
}

/** Objects per objects.list request (the API's maximum is 1 000). */
const LIST_PAGE_SIZE = 1_000;

/** A listed object as a {@link BlobEntry}: `size` is an int64 string, `updated` an RFC 3339 time. */
function entryOf(key: string, metadata: { size?: string | number; updated?: string; timeCreated?: string }): BlobEntry {
  return { key, size: Number(metadata.size ?? 0), modifiedAt: new Date(metadata.updated ?? metadata.timeCreated ?? 0) };
}

/** Yields the stream's chunks; fails with BLOB_STORE_UNAVAILABLE when one takes longer than `timeoutMs` to arrive. */
async function* guardedRead(stream: NodeJS.ReadableStream & { destroy(error?: Error): void }, timeoutMs: number): AsyncGenerator<Uint8Array> {
  const iterator = stream[Symbol.asyncIterator]() as AsyncIterator<Uint8Array>;
  try {
    for (;;) {
      let result: IteratorResult<Uint8Array>;
      try {
        result = await deadline(iterator.next(), timeoutMs, 'read a blob');
      } catch (error) {
        throw error instanceof DomainError ? error : unavailable('read a blob', error);
      }
      if (result.done) return;
      yield result.value;
    }
  } finally {
    stream.destroy();
  }
}

/** Rejects with BLOB_STORE_UNAVAILABLE when `promise` has not settled within `ms`. */
function deadline<T>(promise: Promise<T>, ms: number, action: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(unavailable(action, new Error(`no answer from GCS within ${ms} ms`))), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** The HTTP status of a library error (ApiError `code`, a gaxios `status` or `response.status`), if any. */
function statusOf(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const e = error as { code?: unknown; status?: unknown; response?: { status?: unknown } };
  for (const candidate of [e.code, e.status, e.response?.status]) if (typeof candidate === 'number') return candidate;
  return undefined;
}

/** The one error callers see for GCS failures; the cause stays for the logs only. */
function unavailable(action: string, cause: unknown): DomainError {
  const error = new DomainError('BLOB_STORE_UNAVAILABLE', `The blob store could not ${action}.`);
  error.cause = cause;
  return error;
}
