import type { ByteRange } from '../files/blob-store.js';
import type { MediaFacts } from './media-facts.js';

/** What a {@link MediaProber} is given: one stored file's type and size, and a way to read its bytes. */
export interface ProbeInput {
  /** The file's media type as stored (lower case, no parameters), e.g. `image/jpeg`. */
  contentType: string;
  /** Bytes. */
  size: number;
  /**
   * Opens the stored bytes as a stream, whole or one inclusive byte range (RFC 9110 §14.1.2), as
   * often as the prober needs. A prober reads only what it needs and must not hold the whole of
   * a large file in memory.
   */
  read(range?: ByteRange): Promise<AsyncIterable<Uint8Array>>;
}

/**
 * Port: reads the media facts of a stored file from its bytes (adapters/media/: sharp for images,
 * music-metadata for audio and video).
 */
export interface MediaProber {
  /** True when this prober reads files of `contentType` (lower case, no parameters); the others are never probed. */
  handles(contentType: string): boolean;
  /**
   * The facts of the file; members it cannot tell are null.
   * @throws Error (any) when the bytes are not readable as the type they claim; the caller records the file as `failed`
   * @throws DomainError BLOB_STORE_UNAVAILABLE when the bytes cannot be read (the caller records nothing: a later run retries)
   */
  probe(input: ProbeInput): Promise<MediaFacts>;
}
