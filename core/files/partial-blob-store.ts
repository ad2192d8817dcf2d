import type { AbortSignalLike } from '../shared/web-globals.js';
/**
 * What a {@link PartialBlobStore} needs to find and continue one partial blob: a small JSON object
 * (a file name, a GCS session URI, an S3 upload id with its part list, a reference to an unaligned
 * tail), stored with the upload's database row and handed back on every call. It must be enough to
 * continue in another process or after a restart: nothing about an upload lives in process memory.
 */
export type PartialBlobState = { readonly [member: string]: PartialStateValue };
/** A JSON value, as {@link PartialBlobState} members may hold. */
export type PartialStateValue = string | number | boolean | null | readonly PartialStateValue[] | { readonly [member: string]: PartialStateValue };

/** Outcome of {@link PartialBlobStore.append}. */
export interface AppendResult {
  /**
   * Bytes of the blob now durable, counted from its start: the offset a client resumes from
   * (tus `Upload-Offset`). At least the offset the append started from, at most that offset plus
   * the bytes read. A store whose back end takes only aligned chunks (GCS: multiples of 256 KiB,
   * S3: parts of at least 5 MiB but the last) may leave an unaligned tail out of it, or keep the tail
   * durable elsewhere (named in `state`) and count it.
   */
  offset: number;
  /** The state to store in place of the one given (may be the same object). */
  state: PartialBlobState;
  /**
   * Set when the body failed before it ended (a cut connection, an abort): what arrived before is
   * durable and counted in `offset`; the error is the body's own.
   */
  interruptedBy?: unknown;
}

/**
 * Port: blobs written in several requests (tus resumable uploads, docs/api.md, "Resumable uploads").
 * A partial blob is never visible through {@link BlobStore} until {@link PartialBlobStore.complete}
 * turns it into one. Callers serialise the calls on one partial blob (one `append` at a time: the
 * upload's database row is the lock) and keep the returned state and offset, which are the truth:
 * bytes a store received beyond the offset it last returned (a process killed mid-append) are
 * discarded by the next `append`.
 */
export interface PartialBlobStore {
  /**
   * Starts an empty partial blob that will hold `length` bytes and become the blob `key`.
   * @param options.length bytes, at least 1
   * @returns the state to store with the upload
   * @throws DomainError BLOB_STORE_UNAVAILABLE (503) when the store fails
   */
  create(options: { key: string; length: number; contentType: string }): Promise<PartialBlobState>;
  /**
   * Streams `body` into the partial blob from `offset` (the offset the caller last stored), with
   * backpressure: memory does not grow with the body. Resolves once what it counts is durable (on
   * disk after fsync, acknowledged by the back end). Never writes past the blob's `length`.
   * A body that fails midway does not reject: the result carries `interruptedBy`.
   * @throws DomainError FILE_TOO_LARGE (413) when the body goes past `length` (the offset is then
   *         unchanged); BLOB_STORE_UNAVAILABLE (503) when the store fails; Error when `offset` is not
   *         the one the store has (a bug in the caller)
   */
  append(options: { state: PartialBlobState; offset: number; body: AsyncIterable<Uint8Array>; signal?: AbortSignalLike }): Promise<AppendResult>;
  /**
   * Turns the complete partial blob (offset == length) into the blob `key`, readable through
   * {@link BlobStore.get}, and lets go of the partial. Either the blob exists afterwards whole, or the
   * call rejects and the partial is still there (it may be retried).
   * @returns size (bytes) and SHA-256 (hex) of the blob
   * @throws DomainError BLOB_STORE_UNAVAILABLE (503); Error when the partial is not complete (a bug in the caller)
   */
  complete(options: { state: PartialBlobState; key: string }): Promise<{ size: number; sha256: string }>;
  /** Removes the partial blob and whatever it holds; does nothing when it is gone already. @throws DomainError BLOB_STORE_UNAVAILABLE */
  abort(state: PartialBlobState): Promise<void>;
}
