import { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  S3Client,
  type S3ClientConfig,
  type _Object as S3Object,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { BlobEntry, BlobStore, ByteRange } from '../../core/files/blob-store.js';
import { DomainError } from '../../core/shared/errors.js';
import { assertBlobKey, assertMaxBytes, assertParentKey, isBlobKey } from './blob-keys.js';
import { ByteMeter, meteredBody } from './body-meter.js';
import { S3_LIMITS } from './s3-limits.js';
import { WatchedBody } from './watched-body.js';

/** Options of {@link S3BlobStore}. */
export interface S3BlobStoreOptions {
  /** Bucket name (it must exist; the store never creates it). */
  bucket: string;
  /** Object key prefix, without leading or trailing slash: objects are `<prefix>/<key>`, or `<key>` without one. */
  prefix?: string;
  /** Base URL of an S3-compatible service (MinIO, R2, B2, Garage, Wasabi, a test server); unset for AWS S3. */
  endpoint?: string;
  /** Signing region, default `us-east-1` (`auto` for Cloudflare R2). */
  region?: string;
  /** Path-style addressing (`<endpoint>/<bucket>/<key>`) instead of virtual-hosted (`<bucket>.<endpoint>/<key>`); default false. */
  forcePathStyle?: boolean;
  /**
   * Static credentials. Without them the SDK's default provider chain applies (environment,
   * shared config and credentials files, SSO, web identity, ECS and EC2 instance roles).
   */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  /**
   * Bytes, default 5 MiB, at least 5 MiB (S3's smallest part but the last). A body of at most this
   * many bytes is sent as one PutObject; a longer one as a multipart upload in parts of this size,
   * or of `maxBytes / 10 000` when that is larger (S3 allows 10 000 parts).
   */
  partSizeBytes?: number;
  /** Parts of one upload in flight at once, default 2. */
  queueSize?: number;
  /**
   * Default true: creates carry `If-None-Match: *` (PutObject and CompleteMultipartUpload), so the
   * store refuses to replace an existing object. False for stores that ignore or reject the header
   * (docs/s3.md): the store then checks with HeadObject before the upload, which a concurrent
   * writer of the same key could race (keys are fresh file ids, so only a bug would).
   */
  ifNoneMatch?: boolean;
  /**
   * Milliseconds, default 30 000: the longest one request may wait on the store (to connect, for
   * the answer, for the next bytes of a part or of a download) before it fails.
   */
  timeoutMs?: number;
  /** Attempts per request, the first included, default 3: the SDK's standard retries (5xx, throttling such as SlowDown, connection errors), with exponential backoff and jitter. */
  maxAttempts?: number;
}

/** Defaults of {@link S3BlobStoreOptions}. */
export const S3_DEFAULTS = {
  region: S3_LIMITS.defaultRegion,
  partSizeBytes: S3_LIMITS.defaultPartSizeBytes,
  queueSize: S3_LIMITS.defaultQueueSize,
  timeoutMs: 30_000,
  maxAttempts: 3,
} as const;

/** S3's smallest part, except the last. */
export const S3_MIN_PART_SIZE_BYTES = S3_LIMITS.minPartSizeBytes;

/** Objects per ListObjectsV2 request (the API's maximum is 1 000). */
const LIST_PAGE_SIZE = 1_000;

/**
 * A {@link BlobStore} on Amazon S3 or an S3-compatible service, through the AWS SDK v3
 * (`@aws-sdk/client-s3`, and `@aws-sdk/lib-storage` for uploads).
 *
 * `put` counts and hashes (SHA-256) the body as it streams ({@link meteredBody}) into a
 * lib-storage `Upload`: a body of at most `partSizeBytes` goes as one PutObject; a longer one as a
 * multipart upload whose parts are cut at `partSizeBytes` (larger when `maxBytes` needs more than
 * 10 000 parts) and sent `queueSize` at a time. Memory per upload: one part per uploader in flight
 * plus the part being gathered, so at most part size × (`queueSize` + 1) (15 MiB with the
 * defaults), whatever the size of the body. The object appears only when the PutObject or the
 * CompleteMultipartUpload succeeds; when the body
 * fails, passes `maxBytes`, is aborted, or a part fails after the SDK's retries, the multipart upload
 * is aborted (AbortMultipartUpload, deleting its parts) before `put` rejects, so nothing is left.
 *
 * Creates never replace: with `ifNoneMatch` (the default) PutObject and CompleteMultipartUpload
 * carry `If-None-Match: *` and the store answers 412 when the key exists; without it, a HeadObject
 * precedes the upload (see {@link S3BlobStoreOptions.ifNoneMatch}).
 *
 * Checksums: the SDK's default CRC32 request checksums (aws-chunked bodies with trailers) are
 * turned off (`WHEN_REQUIRED`), since several S3-compatible stores refuse them; payloads are still
 * signed (SigV4), and the SHA-256 this adapter computes is the one the file record keeps.
 *
 * Timeouts: every request has a connection timeout and fails when the store stays silent for
 * `timeoutMs`; reads wait at most `timeoutMs` for the answer's headers, then at most `timeoutMs` for
 * each chunk the consumer asks for (never while the consumer itself is slow). Health checks use a
 * client without retries. Content type is stored as the object's `Content-Type`; the file record
 * remains the source of truth.
 */
export class S3BlobStore implements BlobStore {
  private readonly client: S3Client;
  private readonly readClient: S3Client;
  private readonly probeClient: S3Client;
  private readonly bucket: string;
  private readonly prefix: string;
  private readonly partSize: number;
  private readonly queueSize: number;
  private readonly ifNoneMatch: boolean;
  private readonly timeoutMs: number;
  private readonly maxAttempts: number;

  constructor(options: S3BlobStoreOptions) {
    // Loose on purpose: S3-compatible stores differ (AWS: 3–63 of [a-z0-9.-]; others allow more).
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]{1,254}$/.test(options.bucket)) throw new Error(`Invalid S3 bucket name ${JSON.stringify(options.bucket)}.`);
    this.bucket = options.bucket;
    this.prefix = (options.prefix ?? '').replace(/^\/+|\/+$/g, '');
    this.partSize = options.partSizeBytes ?? S3_DEFAULTS.partSizeBytes;
    if (!Number.isSafeInteger(this.partSize) || this.partSize < S3_MIN_PART_SIZE_BYTES)
      throw new Error(`partSizeBytes must be an integer of at least ${S3_MIN_PART_SIZE_BYTES}.`);
    this.queueSize = options.queueSize ?? S3_DEFAULTS.queueSize;
    if (!Number.isSafeInteger(this.queueSize) || this.queueSize < 1) throw new Error('queueSize must be a positive integer.');
    this.ifNoneMatch = options.ifNoneMatch ?? true;
    this.timeoutMs = options.timeoutMs ?? S3_DEFAULTS.timeoutMs;
    this.maxAttempts = options.maxAttempts ?? S3_DEFAULTS.maxAttempts;
    const base: S3ClientConfig = {
      region: options.region ?? S3_DEFAULTS.region,
      ...(options.endpoint ? { endpoint: options.endpoint } : {}),
      forcePathStyle: options.forcePathStyle ?? false,
      ...(options.credentials ? { credentials: options.credentials } : {}),
      retryMode: 'standard',
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    };
    const timeoutMs = this.timeoutMs;
    // Writes, deletes, listings: silence on the socket for timeoutMs fails the request (parts are
    // gathered before they are sent, so an S3 socket never waits on the uploader's client).
    this.client = new S3Client({
      ...base,
      maxAttempts: this.maxAttempts,
      requestHandler: { connectionTimeout: timeoutMs, socketTimeout: timeoutMs },
    });
    // Reads: the headers within timeoutMs; then no socket timeout, since a slow consumer (a slow
    // download client, with backpressure) may leave the socket idle: guardedRead times the waits instead.
    this.readClient = new S3Client({
      ...base,
      maxAttempts: this.maxAttempts,
      requestHandler: { connectionTimeout: timeoutMs, requestTimeout: timeoutMs, throwOnRequestTimeout: true },
    });
    // Health checks answer at once, without retries: a probe that waits out backoffs is itself a hang.
    this.probeClient = new S3Client({
      ...base,
      maxAttempts: 1,
      requestHandler: { connectionTimeout: timeoutMs, requestTimeout: timeoutMs, throwOnRequestTimeout: true },
    });
  }

  /**
   * @throws DomainError FILE_TOO_LARGE past `maxBytes` (stops reading there); BLOB_STORE_UNAVAILABLE when the
   *         store fails after the SDK's retries, cannot be reached or stays silent past `timeoutMs`; the body's own
   *         error; `signal.reason` when `signal` aborts; Error when an object already exists under `key` or for an
   *         invalid key or `maxBytes` (bugs in the caller). Nothing is left behind on failure.
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
    const objectKey = this.objectName(key);
    if (!this.ifNoneMatch && (await this.stat(key)) !== undefined) throw alreadyExists(key);
    const meter = new ByteMeter(options.maxBytes);
    // The body's own errors go out as they are, so tell them from the store's.
    const watched = new WatchedBody(options.body);
    // One chunk ahead at most; lib-storage gathers the chunks into parts.
    const source = Readable.from(meteredBody(watched.chunks(), meter, signal), { objectMode: true, highWaterMark: 1 });
    const upload = new Upload({
      client: this.client,
      partSize: Math.max(this.partSize, Math.ceil(options.maxBytes / S3_LIMITS.maxParts)),
      queueSize: this.queueSize,
      leavePartsOnError: false,
      params: {
        Bucket: this.bucket,
        Key: objectKey,
        Body: source,
        ContentType: options.contentType,
        // Sent with PutObject and CompleteMultipartUpload (the SDK leaves it out of the other calls).
        ...(this.ifNoneMatch ? { IfNoneMatch: '*' } : {}),
      },
    });
    try {
      // A failure of the body (error, maxBytes, abort) or of a part rejects only once every part in
      // flight has settled and the multipart upload, if one was started, has been aborted.
      await upload.done();
      return { size: meter.size, sha256: meter.digest() };
    } catch (error) {
      source.destroy();
      // First the body's own outcome: closing the body past maxBytes may itself abort the signal (the
      // HTTP edge's signal follows its request), and the caller must still learn FILE_TOO_LARGE.
      if (error instanceof DomainError || watched.threw(error)) throw error;
      if (signal?.aborted) throw signal.reason;
      if (isPreconditionFailure(error)) throw alreadyExists(key);
      throw unavailable('store a blob', error);
    }
  }

  /**
   * Streams the object, or one inclusive range of it (GetObject with `Range`, RFC 9110 §14.1.2).
   * A wait of more than `timeoutMs` for the next chunk ends the body with BLOB_STORE_UNAVAILABLE, as
   * does a failure mid-stream. Chunks always belong to the consumer (each arrives in its own buffer
   * from the socket), so `borrowChunks` (BlobReadOptions) needs nothing here.
   * @returns the bytes, or undefined when there is no such object
   * @throws DomainError BLOB_STORE_UNAVAILABLE; Error for an invalid key
   */
  async get(key: string, range?: ByteRange): Promise<AsyncIterable<Uint8Array> | undefined> {
    assertBlobKey(key);
    let body: Readable;
    let window: { skip: number; length: number } | undefined;
    // A deadline for the answer only: the SDK keeps listening to the signal while the body streams,
    // and an abort then would cut a long download.
    const opening = new AbortController();
    const timer = setTimeout(() => opening.abort(), this.callDeadlineMs());
    try {
      const output = await this.readClient
        .send(new GetObjectCommand({ Bucket: this.bucket, Key: this.objectName(key), ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}) }), {
          abortSignal: opening.signal,
        })
        .finally(() => clearTimeout(timer));
      body = output.Body as Readable;
      if (range) {
        // Some stores answer more than the range asked for (a 200 with the whole object, or a longer
        // 206: s3rver for `bytes=0-0`); the caller has promised its client exactly the range's bytes.
        const answered = /^bytes (\d+)-/.exec(output.ContentRange ?? '');
        const answeredStart = answered ? Number(answered[1]) : 0;
        if (answeredStart > range.start) {
          body.destroy();
          throw new Error(`asked for bytes from ${range.start}, the store answered from ${answeredStart}`);
        }
        window = { skip: range.start - answeredStart, length: range.end - range.start + 1 };
      }
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw unavailable('read a blob', error);
    }
    return guardedRead(body, this.timeoutMs, window);
  }

  /** DeleteObject (S3 answers 204 for a missing key too). @throws DomainError BLOB_STORE_UNAVAILABLE; Error for an invalid key */
  async delete(key: string): Promise<void> {
    assertBlobKey(key);
    await this.deleteObject(this.objectName(key));
  }

  /**
   * Lists the objects named `<prefix>/<parent>/…` (ListObjectsV2, 1 000 per request) and deletes each.
   * One DeleteObject per object rather than DeleteObjects, which some S3-compatible stores only
   * accept with a Content-MD5 header: a file has a handful of derived blobs.
   * @throws DomainError BLOB_STORE_UNAVAILABLE; Error for an invalid key
   */
  async deleteUnder(parent: string): Promise<void> {
    assertParentKey(parent);
    for await (const objects of this.objectPages(`${this.objectName(parent)}/`, 'list derived blobs')) {
      for (const object of objects) if (object.Key !== undefined) await this.deleteObject(object.Key);
    }
  }

  /** HeadBucket, one request, no retries: resolves when the bucket exists and the key may use it. @throws DomainError BLOB_STORE_UNAVAILABLE */
  async ping(): Promise<void> {
    try {
      await this.probeClient.send(new HeadBucketCommand({ Bucket: this.bucket }), { abortSignal: AbortSignal.timeout(this.timeoutMs * 2) });
    } catch (error) {
      throw unavailable('reach its bucket', error);
    }
  }

  /**
   * Lists the objects under the prefix, 1 000 per ListObjectsV2 request; names that are not blob
   * keys are skipped. An unfinished multipart upload is no object yet, so it is never listed.
   * @throws DomainError BLOB_STORE_UNAVAILABLE (after the SDK's retries)
   */
  async *list(): AsyncIterable<BlobEntry> {
    const prefix = this.prefix === '' ? '' : `${this.prefix}/`;
    for await (const objects of this.objectPages(prefix, 'list blobs')) {
      for (const object of objects) {
        const name = object.Key ?? '';
        const key = name.slice(prefix.length);
        if (!name.startsWith(prefix) || !isBlobKey(key)) continue;
        yield { key, size: object.Size ?? 0, modifiedAt: object.LastModified ?? new Date(0) };
      }
    }
  }

  /** HeadObject. @throws DomainError BLOB_STORE_UNAVAILABLE; Error for an invalid key */
  async stat(key: string): Promise<BlobEntry | undefined> {
    assertBlobKey(key);
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.objectName(key) }), {
        abortSignal: AbortSignal.timeout(this.callDeadlineMs()),
      });
      return { key, size: head.ContentLength ?? 0, modifiedAt: head.LastModified ?? new Date(0) };
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw unavailable('read blob metadata', error);
    }
  }

  /** Lets go of the clients' pooled connections. Never rejects. */
  async close(): Promise<void> {
    for (const client of [this.client, this.readClient, this.probeClient]) client.destroy();
  }

  /** The object key of `key`: `<prefix>/<key>`. */
  objectName(key: string): string {
    return this.prefix === '' ? key : `${this.prefix}/${key}`;
  }

  /** The longest one SDK call (its attempts and backoffs) may take: a bound on top of the per-request timeouts. */
  private callDeadlineMs(): number {
    return this.timeoutMs * (this.maxAttempts + 1);
  }

  private async deleteObject(objectKey: string): Promise<void> {
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: objectKey }), { abortSignal: AbortSignal.timeout(this.callDeadlineMs()) });
    } catch (error) {
      if (isNotFound(error)) return;
      throw unavailable('delete a blob', error);
    }
  }

  /**
   * The objects whose keys start with `prefix` (all of them for ''), one page of up to
   * LIST_PAGE_SIZE per ListObjectsV2 request, following the continuation tokens.
   * @throws DomainError BLOB_STORE_UNAVAILABLE when a request fails or times out
   */
  private async *objectPages(prefix: string, action: string): AsyncGenerator<S3Object[]> {
    let token: string | undefined;
    do {
      let page;
      try {
        page = await this.client.send(
          new ListObjectsV2Command({
            Bucket: this.bucket,
            MaxKeys: LIST_PAGE_SIZE,
            ...(prefix ? { Prefix: prefix } : {}),
            ...(token ? { ContinuationToken: token } : {}),
          }),
          { abortSignal: AbortSignal.timeout(this.callDeadlineMs()) },
        );
      } catch (error) {
        throw unavailable(action, error);
      }
      yield page.Contents ?? [];
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }
}

/**
 * Yields the stream's chunks, or only `window.length` bytes after the first `window.skip`; fails with
 * BLOB_STORE_UNAVAILABLE when a chunk takes longer than `timeoutMs` to arrive, or when a window's bytes
 * end early. Destroys the stream when it ends, fails or the consumer stops.
 */
async function* guardedRead(stream: Readable, timeoutMs: number, window?: { skip: number; length: number }): AsyncGenerator<Uint8Array> {
  const iterator = stream[Symbol.asyncIterator]() as AsyncIterator<Uint8Array>;
  let skip = window?.skip ?? 0;
  let remaining = window?.length ?? Number.POSITIVE_INFINITY;
  try {
    while (remaining > 0) {
      let result: IteratorResult<Uint8Array>;
      try {
        result = await deadline(iterator.next(), timeoutMs, 'read a blob');
      } catch (error) {
        throw error instanceof DomainError ? error : unavailable('read a blob', error);
      }
      if (result.done) {
        if (window && remaining > 0) throw unavailable('read a blob', new Error(`the range ended ${remaining} bytes early`));
        return;
      }
      let chunk = result.value;
      if (skip > 0) {
        const skipped = Math.min(skip, chunk.length);
        chunk = chunk.subarray(skipped);
        skip -= skipped;
      }
      if (chunk.length > remaining) chunk = chunk.subarray(0, remaining);
      remaining -= chunk.length;
      if (chunk.length > 0) yield chunk;
    }
  } finally {
    stream.destroy();
  }
}

/** Rejects with BLOB_STORE_UNAVAILABLE when `promise` has not settled within `ms`. */
function deadline<T>(promise: Promise<T>, ms: number, action: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(unavailable(action, new Error(`no data from the S3 store within ${ms} ms`))), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** The HTTP status of an SDK error (`$metadata.httpStatusCode`), if it had an answer. */
function statusOf(error: unknown): number | undefined {
  const status = (error as { $metadata?: { httpStatusCode?: unknown } } | null)?.$metadata?.httpStatusCode;
  return typeof status === 'number' ? status : undefined;
}

function isNotFound(error: unknown): boolean {
  const name = (error as { name?: unknown } | null)?.name;
  return statusOf(error) === 404 && (name === 'NoSuchKey' || name === 'NotFound');
}

/**
 * Whether the store refused a create because the key exists: 412 PreconditionFailed on
 * `If-None-Match: *`, or 409 ConditionalRequestConflict when another create of the key is in
 * progress (https://docs.aws.amazon.com/AmazonS3/latest/userguide/conditional-writes.html).
 */
function isPreconditionFailure(error: unknown): boolean {
  const status = statusOf(error);
  return status === 412 || (status === 409 && (error as { name?: unknown }).name === 'ConditionalRequestConflict');
}

function alreadyExists(key: string): Error {
  return new Error(`A blob already exists under ${key}; blobs are never replaced (the caller must use a fresh key).`);
}

/** The one error callers see for S3 failures; the cause stays for the logs only. */
function unavailable(action: string, cause: unknown): DomainError {
  const error = new DomainError('BLOB_STORE_UNAVAILABLE', `The blob store could not ${action}.`);
  error.cause = cause;
  return error;
}
