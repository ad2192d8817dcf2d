import { randomUUID } from 'node:crypto';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import type { AppendResult, PartialBlobState, PartialBlobStore } from '../../core/files/partial-blob-store.js';
import { DomainError } from '../../core/shared/errors.js';
import { assertBlobKey } from './blob-keys.js';
import { AlignedPartialUpload, alignedStateOf, freshTailName, type AlignedState } from './aligned-partial-upload.js';
import { S3_LIMITS } from './s3-limits.js';

/** Options of {@link S3PartialBlobStore}: the bucket, prefix, endpoint and credentials of the {@link S3BlobStore} it completes into. */
export interface S3PartialBlobStoreOptions {
  bucket: string;
  /** Object key prefix, without leading or trailing slash, as the blob store's. */
  prefix?: string;
  /** Base URL of an S3-compatible service; unset for AWS S3. */
  endpoint?: string;
  /** Signing region, default `us-east-1`. */
  region?: string;
  forcePathStyle?: boolean;
  /** Static credentials; without them the SDK's default provider chain applies. */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  /**
   * Bytes of every part but the last, default 8 MiB, at least 5 MiB (S3's smallest part but the
   * last): the memory one append holds, and the largest tail object. 10 000 parts of it bound the
   * size of one upload (80 GiB by default).
   */
  partSizeBytes?: number;
  /** Milliseconds, default 30 000: the longest one request may wait on the store. */
  timeoutMs?: number;
  /** Attempts per request, the first included, default 3 (the SDK's standard retries). */
  maxAttempts?: number;
  /**
   * Default true: CompleteMultipartUpload carries `If-None-Match: *`, so an existing object is
   * never replaced. False for stores that reject the header (docs/s3.md).
   */
  ifNoneMatch?: boolean;
}

interface S3PartialState extends AlignedState {
  uploadId: string;
  /** The object key the upload completes into, `<prefix>/<key>`. */
  object: string;
  /** ETags of the parts sent, part number − 1 as index. */
  parts: string[];
  /** Directory of this upload's tail objects, `<prefix>/.partial/<uuid>`: not a blob key, so never listed as a blob. */
  tails: string;
  /** Bytes of every part but the last, fixed at creation so that part numbers follow from offsets. */
  partSize: number;
}

/**
 * A {@link PartialBlobStore} on S3 or an S3-compatible service: one multipart upload per partial blob
 * (CreateMultipartUpload, UploadPart, CompleteMultipartUpload, AbortMultipartUpload;
 * https://docs.aws.amazon.com/AmazonS3/latest/userguide/mpuoverview.html).
 *
 * Parts are all `partSize` bytes but the last (S3 refuses parts under 5 MiB but the last), so part
 * number n holds bytes from (n − 1) × partSize: a part sent again after a process died is simply
 * replaced. An append sends the whole parts it gathers and stores the rest as a tail object under
 * `<prefix>/.partial/<uuid>/` that the next append, in any process, reads back first
 * ({@link AlignedPartialUpload}); the part ETags travel in the state. `complete` sends the last
 * tail as the last part and completes the upload: the object appears only then. `abort` aborts the
 * multipart upload (S3 deletes its parts) and deletes the tails.
 */
export class S3PartialBlobStore implements PartialBlobStore {
  private readonly client: S3Client;
  private readonly bucket: string;
  private readonly prefix: string;
  private readonly partSize: number;
  private readonly ifNoneMatch: boolean;
  private readonly uploads = new Map<number, AlignedPartialUpload<S3PartialState>>();

  constructor(options: S3PartialBlobStoreOptions) {
    this.bucket = options.bucket;
    this.prefix = (options.prefix ?? '').replace(/^\/+|\/+$/g, '');
    this.partSize = options.partSizeBytes ?? 8 * 1024 * 1024;
    if (!Number.isSafeInteger(this.partSize) || this.partSize < S3_LIMITS.minPartSizeBytes)
      throw new Error(`partSizeBytes must be an integer of at least ${S3_LIMITS.minPartSizeBytes}.`);
    this.ifNoneMatch = options.ifNoneMatch ?? true;
    const timeoutMs = options.timeoutMs ?? 30_000;
    const config: S3ClientConfig = {
      region: options.region ?? S3_LIMITS.defaultRegion,
      ...(options.endpoint ? { endpoint: options.endpoint } : {}),
      forcePathStyle: options.forcePathStyle ?? false,
      ...(options.credentials ? { credentials: options.credentials } : {}),
      retryMode: 'standard',
      maxAttempts: options.maxAttempts ?? 3,
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      requestHandler: { connectionTimeout: timeoutMs, requestTimeout: timeoutMs, throwOnRequestTimeout: true },
    };
    this.client = new S3Client(config);
  }

  /** Starts a multipart upload for `<prefix>/<key>`. @throws DomainError FILE_TOO_LARGE past 10 000 parts; BLOB_STORE_UNAVAILABLE */
  async create(options: { key: string; length: number; contentType: string }): Promise<PartialBlobState> {
    assertBlobKey(options.key);
    if (Math.ceil(options.length / this.partSize) > S3_LIMITS.maxParts) {
      throw new DomainError('FILE_TOO_LARGE', `A resumable upload on this store holds at most ${S3_LIMITS.maxParts * this.partSize} bytes.`);
    }
    const object = this.objectName(options.key);
    const created = await this.call('start an upload', () =>
      this.client.send(new CreateMultipartUploadCommand({ Bucket: this.bucket, Key: object, ContentType: options.contentType })),
    );
    if (!created.UploadId) throw unavailable('start an upload', new Error('no UploadId in the answer'));
    const state: S3PartialState = {
      ...(await AlignedPartialUpload.initialState(options)),
      uploadId: created.UploadId,
      object,
      parts: [],
      tails: this.objectName(`.partial/${randomUUID()}`),
      partSize: this.partSize,
    };
    return state as unknown as PartialBlobState;
  }

  /** @throws DomainError FILE_TOO_LARGE, BLOB_STORE_UNAVAILABLE; Error for an offset past what the state holds */
  async append(options: { state: PartialBlobState; offset: number; body: AsyncIterable<Uint8Array>; signal?: AbortSignal }): Promise<AppendResult> {
    const state = this.stateOf(options.state);
    return this.algorithm(state.partSize).append({ ...options, state });
  }

  /** Sends the last part and completes the upload. @throws DomainError BLOB_STORE_UNAVAILABLE; Error when not complete or for another key */
  async complete(options: { state: PartialBlobState; key: string }): Promise<{ size: number; sha256: string }> {
    const state = this.stateOf(options.state);
    if (this.objectName(options.key) !== state.object) throw new Error(`This partial blob becomes ${state.object}, not ${options.key}.`);
    const { bytes, sha256 } = await this.algorithm(state.partSize).finalBytes(state);
    const parts = [...state.parts];
    if (bytes.length > 0 || parts.length === 0) parts.push(await this.uploadPart(state, parts.length + 1, bytes));
    await this.call('finish an upload', () =>
      this.client.send(
        new CompleteMultipartUploadCommand({
          Bucket: this.bucket,
          Key: state.object,
          UploadId: state.uploadId,
          MultipartUpload: { Parts: parts.map((ETag, index) => ({ ETag, PartNumber: index + 1 })) },
          ...(this.ifNoneMatch ? { IfNoneMatch: '*' } : {}),
        }),
      ),
    );
    await this.deleteTails(state);
    return { size: state.length, sha256 };
  }

  /** Aborts the multipart upload and deletes the tails; a gone upload, or a store that cannot abort, is no error. @throws DomainError BLOB_STORE_UNAVAILABLE */
  async abort(state: PartialBlobState): Promise<void> {
    const s3 = this.stateOf(state);
    try {
      await this.client.send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: s3.object, UploadId: s3.uploadId }));
    } catch (error) {
      // 404: gone already. 405/501: a store without AbortMultipartUpload (s3rver); its parts stay
      // until the bucket's lifecycle rule for incomplete multipart uploads (docs/s3.md) removes them.
      const status = statusOf(error);
      if (status !== 404 && status !== 405 && status !== 501) throw unavailable('cancel an upload', error);
    }
    await this.deleteTails(s3);
  }

  /** The append algorithm for one part size (fixed per upload, so an upload keeps its part size when the setting changes). */
  private algorithm(partSize: number): AlignedPartialUpload<S3PartialState> {
    let algorithm = this.uploads.get(partSize);
    if (!algorithm) {
      algorithm = new AlignedPartialUpload<S3PartialState>({
        unit: partSize,
        bufferBytes: partSize,
        tailName: (state) => freshTailName(state.tails),
        backend: {
          send: async ({ state, start, bytes }) => {
            const parts = [...state.parts];
            for (let at = 0; at < bytes.length; at += partSize) {
              const number = (start + at) / partSize + 1;
              parts[number - 1] = await this.uploadPart(state, number, bytes.subarray(at, at + partSize));
            }
            return { ...state, parts };
          },
          writeTail: async ({ name, bytes }) => {
            await this.call('store an upload tail', () =>
              this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: name, Body: bytes, ContentLength: bytes.length })),
            );
          },
          readTail: async (name) => {
            const answer = await this.call('read an upload tail', () => this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: name })));
            return Buffer.from(await this.call('read an upload tail', () => answer.Body!.transformToByteArray()));
          },
          deleteTail: async (name) => {
            await this.call('delete an upload tail', () => this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: name })));
          },
        },
      });
      this.uploads.set(partSize, algorithm);
    }
    return algorithm;
  }

  private async uploadPart(state: S3PartialState, number: number, bytes: Buffer): Promise<string> {
    const answer = await this.call('store part of an upload', () =>
      this.client.send(
        new UploadPartCommand({
          Bucket: this.bucket,
          Key: state.object,
          UploadId: state.uploadId,
          PartNumber: number,
          Body: bytes,
          ContentLength: bytes.length,
        }),
      ),
    );
    if (!answer.ETag) throw unavailable('store part of an upload', new Error('no ETag in the answer'));
    return answer.ETag;
  }

  private async deleteTails(state: S3PartialState): Promise<void> {
    let token: string | undefined;
    do {
      const page = await this.call('list upload tails', () =>
        this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: `${state.tails}/`, ContinuationToken: token })),
      );
      for (const object of page.Contents ?? []) {
        if (object.Key) await this.call('delete an upload tail', () => this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: object.Key })));
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  private async call<T>(action: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw error instanceof DomainError ? error : unavailable(action, error);
    }
  }

  private stateOf(state: PartialBlobState): S3PartialState {
    return alignedStateOf(state, ['uploadId', 'object', 'parts', 'tails', 'partSize']) as unknown as S3PartialState;
  }

  private objectName(key: string): string {
    return this.prefix === '' ? key : `${this.prefix}/${key}`;
  }
}

function statusOf(error: unknown): number | undefined {
  return (error as { $metadata?: { httpStatusCode?: number } } | undefined)?.$metadata?.httpStatusCode;
}

function unavailable(action: string, cause: unknown): DomainError {
  const error = new DomainError('BLOB_STORE_UNAVAILABLE', `The blob store could not ${action}.`);
  error.cause = cause;
  return error;
}
