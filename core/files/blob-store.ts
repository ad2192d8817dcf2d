import type { AbortSignalLike } from '../shared/web-globals.js';

/** An inclusive byte range, as in HTTP (RFC 9110 §14.1.2): bytes `start`…`end`, both counted. */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * How {@link BlobStore.get} may hand out the chunks of a body.
 *
 * `borrowChunks: true` lets the store reuse a chunk's memory for a later chunk of the same body, so
 * a large body is read through a few buffers instead of one new buffer per chunk (each new buffer
 * counts as external memory and makes V8 run full garbage collections: decision 0007,
 * docs/decisions/). The rule a consumer of borrowed chunks keeps:
 *
 * - the chunk that the n-th call of `next()` resolved with keeps its bytes until the consumer makes
 *   the (n+2)-th call of `next()`, or calls `return()`: the consumer may hold the current chunk and
 *   the one before it, never more (e.g. write chunk n to a socket, ask for chunk n+1, and ask for
 *   chunk n+2 only once the socket has let go of chunk n);
 * - after that its memory may hold other bytes of the same body (never another body's): a consumer
 *   that keeps bytes longer copies them;
 * - the consumer makes its calls of `next()` one at a time (each after the previous one settled).
 *
 * Without the option (the default) every chunk belongs to the consumer for good. A store may ignore
 * the option: chunks that are never reused satisfy both rules.
 */
export interface BlobReadOptions {
  /** Chunks are lent until the next-but-one `next()` (see {@link BlobReadOptions}); default false. */
  borrowChunks?: boolean;
}

/** One stored blob as {@link BlobStore.list} and {@link BlobStore.stat} describe it. */
export interface BlobEntry {
  key: string;
  /** Bytes. */
  size: number;
  /** When the blob was last written (for a blob, when it was stored): the age rule of fsck's grace period. */
  modifiedAt: Date;
}

/**
 * Port: where file contents (blobs) live. Keys are `<account id>/<file id>` for files, and
 * `<account id>/<file id>/<name>` for what is derived from a file (transformed images, deleted with
 * it through {@link BlobStore.deleteUnder}): [0-9A-Za-z_-] segments joined by `/`. Bodies cross the
 * port as `AsyncIterable<Uint8Array>` and are never buffered whole.
 */
export interface BlobStore {
  /**
   * Streams `body` into a new blob under `key`, counting and hashing the bytes. The blob becomes
   * visible only once complete. Past `maxBytes` it stops reading and removes what it wrote; on any
   * failure (body error, abort, store error) nothing is left under `key`. Never replaces an existing
   * blob: when `key` is taken it rejects (a caller bug: keys are fresh file ids) and leaves that blob as it was.
   * @returns byte count and SHA-256 (hex) of what was stored
   * @throws DomainError FILE_TOO_LARGE (413) past `maxBytes`; BLOB_STORE_UNAVAILABLE (503) when the store fails;
   *         the body's own error when reading the body fails
   */
  put(options: {
    key: string;
    body: AsyncIterable<Uint8Array>;
    contentType: string;
    maxBytes: number;
    signal?: AbortSignalLike;
  }): Promise<{ size: number; sha256: string }>;
  /**
   * Opens the blob for reading, whole or one inclusive byte range (already checked against the size).
   * The body holds what the store opened (a file handle, a connection) until it is read to the end,
   * fails, or its iterator's `return()` is called: a consumer that stops early calls `return()`
   * (`for await` and `break` do).
   * @param options.borrowChunks chunks are only lent, until the next-but-one `next()` ({@link BlobReadOptions})
   * @returns the bytes, or undefined when no blob exists under `key`
   * @throws DomainError BLOB_STORE_UNAVAILABLE (503) when opening; a failure while reading rejects the body's `next()`
   */
  get(key: string, range?: ByteRange, options?: BlobReadOptions): Promise<AsyncIterable<Uint8Array> | undefined>;
  /** Removes the blob; does nothing when it does not exist. @throws DomainError BLOB_STORE_UNAVAILABLE */
  delete(key: string): Promise<void>;
  /**
   * Removes every blob whose key starts with `parent + '/'` (the blobs derived from `parent`), not
   * `parent` itself; does nothing when there are none. `parent` has at least two segments.
   * @throws DomainError BLOB_STORE_UNAVAILABLE; Error for an invalid key (a bug in the caller)
   */
  deleteUnder(parent: string): Promise<void>;
  /** Resolves when the store answers (health check, `GET /healthz`). */
  ping(): Promise<void>;
  /**
   * Every complete blob, in no particular order, read page by page (memory does not grow with the
   * store). Never lists bodies still being written. Blobs stored or deleted while the listing runs
   * may or may not appear. Used by the reconciler (`fsck`).
   * @throws DomainError BLOB_STORE_UNAVAILABLE (from the iterator)
   */
  list(): AsyncIterable<BlobEntry>;
  /** Size and age of one blob; undefined when it does not exist. @throws DomainError BLOB_STORE_UNAVAILABLE; Error for an invalid key */
  stat(key: string): Promise<BlobEntry | undefined>;
  /**
   * Stores that write through temporary files: removes the ones not modified for `olderThanMs` ms
   * (left by a crashed process). Absent where the store has no such files (memory, GCS, whose
   * unfinished resumable uploads expire by themselves).
   * @returns how many were removed
   */
  sweepTempFiles?(olderThanMs: number): Promise<number>;
  /**
   * Lets go of what the store holds open (files, a database connection) once nothing uses it any
   * more, at shutdown. Absent where there is nothing to release. Never rejects.
   */
  close?(): Promise<void>;
}
