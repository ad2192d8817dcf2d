import { randomUUID } from 'node:crypto';
import { Storage, type Bucket } from '@google-cloud/storage';
import type { AppendResult, PartialBlobState, PartialBlobStore } from '../../core/files/partial-blob-store.js';
import { DomainError } from '../../core/shared/errors.js';
import { assertBlobKey } from './blob-keys.js';
import { AlignedPartialUpload, alignedStateOf, freshTailName, type AlignedState } from './aligned-partial-upload.js';

/** Options of {@link GcsPartialBlobStore}: the bucket, prefix and endpoint of the {@link GcsBlobStore} it completes into. */
export interface GcsPartialBlobStoreOptions {
  /** Bucket name (it must exist). */
  bucket: string;
  /** Object name prefix, without leading or trailing slash, as the blob store's. */
  prefix?: string;
  /** Base URL of the JSON API (an emulator or a test fake); unset for Google. */
  apiEndpoint?: string;
  /** Bytes gathered before a chunk goes to the session, default 8 MiB, rounded up to 256 KiB: the memory one append holds. */
  chunkSizeBytes?: number;
  /** Milliseconds, default 30 000: the longest one request to GCS may take before the call fails with BLOB_STORE_UNAVAILABLE. */
  timeoutMs?: number;
  /** A ready client (tests, or a host that configures credentials itself). */
  storage?: Storage;
}

/** GCS takes resumable chunks in multiples of 256 KiB, but the last (https://cloud.google.com/storage/docs/performing-resumable-uploads#chunked-upload). */
export const GCS_CHUNK_GRANULARITY = 256 * 1024;

interface GcsPartialState extends AlignedState {
  /** The resumable session URI: it authorises the requests on the session by itself (no credentials needed). */
  session: string;
  /** The object the session creates, `<prefix>/<key>`. */
  object: string;
  /** Directory of this upload's tail objects, `<prefix>/.partial/<uuid>`: not a blob key, so never listed as a blob. */
  tails: string;
}

/**
 * A {@link PartialBlobStore} on Google Cloud Storage: one resumable upload session per partial blob
 * (https://cloud.google.com/storage/docs/performing-resumable-uploads), created for the final object
 * with `ifGenerationMatch=0`, so the blob exists only once the last chunk is in.
 *
 * Sessions take chunks in multiples of 256 KiB; an append sends the whole multiples it gathers and
 * stores the unaligned rest as a tail object under `<prefix>/.partial/<uuid>/`, which the next append,
 * in any process, reads back first ({@link AlignedPartialUpload}). Each append first asks the session
 * how many bytes it holds, so bytes sent by a process that died before its state was stored are not
 * sent again. `complete` sends the last tail as the final chunk, which creates the object.
 * Sessions expire after a week at Google; an upload older than that fails with BLOB_STORE_UNAVAILABLE
 * (the default upload expiry is far shorter).
 *
 * Session requests go through `fetch` (the session URI needs no credentials); creating the session
 * and the tail objects go through `@google-cloud/storage`, with its credentials and retries.
 */
export class GcsPartialBlobStore implements PartialBlobStore {
  private readonly bucket: Bucket;
  private readonly prefix: string;
  private readonly timeoutMs: number;
  private readonly upload: AlignedPartialUpload<GcsPartialState>;

  constructor(options: GcsPartialBlobStoreOptions) {
    this.prefix = (options.prefix ?? '').replace(/^\/+|\/+$/g, '');
    this.timeoutMs = options.timeoutMs ?? 30_000;
    const storage =
      options.storage ??
      new Storage({ ...(options.apiEndpoint ? { apiEndpoint: options.apiEndpoint, projectId: 'hangar-emulator' } : {}), timeout: this.timeoutMs });
    this.bucket = storage.bucket(options.bucket);
    const chunk = Math.max(1, Math.ceil((options.chunkSizeBytes ?? 8 * 1024 * 1024) / GCS_CHUNK_GRANULARITY)) * GCS_CHUNK_GRANULARITY;
    this.upload = new AlignedPartialUpload<GcsPartialState>({
      unit: GCS_CHUNK_GRANULARITY,
      bufferBytes: chunk,
      tailName: (state) => freshTailName(state.tails),
      backend: {
        persisted: (state) => this.persisted(state),
        send: async ({ state, start, bytes }) => {
          const end = start + bytes.length;
          const response = await this.session(state, 'PUT', { 'content-range': `bytes ${start}-${end - 1}/*` }, bytes);
          if (response.status !== 308 || persistedOf(response) !== end)
            throw unavailable(
              'store part of an upload',
              new Error(`GCS answered ${response.status} ${response.headers.get('range') ?? ''} for bytes ${start}-${end - 1}`),
            );
          return state;
        },
        writeTail: ({ name, bytes }) =>
          this.call('store an upload tail', () => this.bucket.file(name).save(bytes, { resumable: false, contentType: 'application/octet-stream' })),
        readTail: async (name) => (await this.call('read an upload tail', () => this.bucket.file(name).download()))[0],
        deleteTail: (name) => this.call('delete an upload tail', () => this.bucket.file(name).delete({ ignoreNotFound: true })).then(() => undefined),
      },
    });
  }

  /** Opens a resumable session for `<prefix>/<key>`. @throws DomainError BLOB_STORE_UNAVAILABLE */
  async create(options: { key: string; length: number; contentType: string }): Promise<PartialBlobState> {
    assertBlobKey(options.key);
    const object = this.objectName(options.key);
    const [session] = await this.call('start an upload', () =>
      this.bucket.file(object).createResumableUpload({ metadata: { contentType: options.contentType }, preconditionOpts: { ifGenerationMatch: 0 } }),
    );
    const state: GcsPartialState = {
      ...(await AlignedPartialUpload.initialState(options)),
      session,
      object,
      tails: this.objectName(`.partial/${randomUUID()}`),
    };
    return state as unknown as PartialBlobState;
  }

  /** @throws DomainError FILE_TOO_LARGE, BLOB_STORE_UNAVAILABLE; Error for an offset past what the state holds */
  async append(options: { state: PartialBlobState; offset: number; body: AsyncIterable<Uint8Array>; signal?: AbortSignal }): Promise<AppendResult> {
    const state = this.stateOf(options.state);
    return this.upload.append({ ...options, state });
  }

  /** Sends the last tail as the final chunk: the object appears. @throws DomainError BLOB_STORE_UNAVAILABLE; Error when not complete */
  async complete(options: { state: PartialBlobState; key: string }): Promise<{ size: number; sha256: string }> {
    const state = this.stateOf(options.state);
    if (this.objectName(options.key) !== state.object) throw new Error(`This partial blob becomes ${state.object}, not ${options.key}.`);
    const { bytes, sha256 } = await this.upload.finalBytes(state);
    const response = await this.session(
      state,
      'PUT',
      { 'content-range': bytes.length === 0 ? `bytes */${state.length}` : `bytes ${state.sent}-${state.length - 1}/${state.length}` },
      bytes,
    );
    if (response.status !== 200 && response.status !== 201)
      throw unavailable('finish an upload', new Error(`GCS answered ${response.status} to the final chunk`));
    await this.deleteTails(state);
    return { size: state.length, sha256 };
  }

  /** Cancels the session (GCS answers 499) and deletes the tails. @throws DomainError BLOB_STORE_UNAVAILABLE */
  async abort(state: PartialBlobState): Promise<void> {
    const gcs = this.stateOf(state);
    const response = await this.session(gcs, 'DELETE', {});
    if (response.status !== 499 && response.status !== 404 && response.status !== 410 && !response.ok)
      throw unavailable('cancel an upload', new Error(`GCS answered ${response.status}`));
    await this.deleteTails(gcs);
  }

  /** The bytes the session holds: its 308 answer's `Range: bytes=0-N`, or 0 without one. */
  private async persisted(state: GcsPartialState): Promise<number> {
    const response = await this.session(state, 'PUT', { 'content-range': 'bytes */*' });
    if (response.status !== 308) throw unavailable('resume an upload', new Error(`GCS answered ${response.status} to a status check`));
    return persistedOf(response);
  }

  /** One request on the session URI, within the timeout. @throws DomainError BLOB_STORE_UNAVAILABLE */
  private async session(state: GcsPartialState, method: string, headers: Record<string, string>, body?: Buffer): Promise<Response> {
    try {
      const response = await fetch(state.session, {
        method,
        headers: { ...headers, 'content-length': String(body?.length ?? 0) },
        ...(body && body.length > 0 ? { body } : {}),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      await response.arrayBuffer();
      return response;
    } catch (error) {
      throw unavailable('reach the upload session', error);
    }
  }

  private async deleteTails(state: GcsPartialState): Promise<void> {
    const [files] = await this.call('list upload tails', () => this.bucket.getFiles({ prefix: `${state.tails}/` }));
    for (const file of files) await this.call('delete an upload tail', () => file.delete({ ignoreNotFound: true }));
  }

  private async call<T>(action: string, work: () => Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        work(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer from GCS within ${this.timeoutMs} ms`)), this.timeoutMs * 4);
        }),
      ]);
    } catch (error) {
      throw error instanceof DomainError ? error : unavailable(action, error);
    } finally {
      clearTimeout(timer);
    }
  }

  private stateOf(state: PartialBlobState): GcsPartialState {
    return alignedStateOf(state, ['session', 'object', 'tails']) as unknown as GcsPartialState;
  }

  private objectName(key: string): string {
    return this.prefix === '' ? key : `${this.prefix}/${key}`;
  }
}

/** The end of the persisted range of a 308 answer (`Range: bytes=0-N` → N + 1; none → 0). */
function persistedOf(response: Response): number {
  const range = response.headers.get('range')?.match(/^bytes=0-(\d+)$/);
  return range ? Number(range[1]) + 1 : 0;
}

function unavailable(action: string, cause: unknown): DomainError {
  const error = new DomainError('BLOB_STORE_UNAVAILABLE', `The blob store could not ${action}.`);
  error.cause = cause;
  return error;
}
