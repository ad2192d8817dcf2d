/** An inclusive byte range, as in HTTP (RFC 9110 §14.1.2): bytes `start`…`end`, both counted. */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * Port: where file contents (blobs) live. Keys are `<account id>/<file id>`: [0-9A-Za-z_-] segments
 * joined by `/`. Bodies cross the port as `AsyncIterable<Uint8Array>` and are never buffered whole.
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
  put(options: { key: string; body: AsyncIterable<Uint8Array>; contentType: string; maxBytes: number; signal?: AbortSignal }): Promise<{ size: number; sha256: string }>;
  /**
   * Opens the blob for reading, whole or one inclusive byte range (already checked against the size).
   * @returns the bytes, or undefined when no blob exists under `key`
   * @throws DomainError BLOB_STORE_UNAVAILABLE (503)
   */
  get(key: string, range?: ByteRange): Promise<AsyncIterable<Uint8Array> | undefined>;
  /** Removes the blob; does nothing when it does not exist. @throws DomainError BLOB_STORE_UNAVAILABLE */
  delete(key: string): Promise<void>;
  /** Resolves when the store answers (health check, `GET /healthz`). */
  ping(): Promise<void>;
}
