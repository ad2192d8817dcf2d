import { ByteReader } from './byte-reader.js';
import type { ImageMetadataMode, MetadataKind } from './image-metadata-mode.js';
import { orderedKinds } from './image-metadata-mode.js';
import { stripIsobmff } from './isobmff.js';
import { stripJpeg } from './jpeg.js';
import { stripPng } from './png.js';
import { stripWebp } from './webp.js';

/** The outcome of {@link stripImageMetadata}. */
export interface StrippedImage {
  /** The bytes to store: the body with its metadata removed, streamed. */
  body: AsyncIterable<Uint8Array>;
  /**
   * Once `body` has been read to its end (or given up): what was removed, in the order of
   * METADATA_KINDS, and how many bytes were read from the original body. Never rejects.
   */
  outcome: Promise<{ removed: MetadataKind[]; bytesRead: number }>;
}

type Stripper = (reader: ByteReader, mode: ImageMetadataMode, removed: Set<MetadataKind>) => AsyncGenerator<Uint8Array, void>;

/** The rewriter of each media type (lower-case, no parameters). */
const STRIPPERS: ReadonlyMap<string, Stripper> = new Map([
  ['image/jpeg', stripJpeg],
  ['image/pjpeg', stripJpeg],
  ['image/png', stripPng],
  ['image/apng', stripPng],
  ['image/webp', stripWebp],
  ['image/heic', stripIsobmff],
  ['image/heif', stripIsobmff],
  ['image/heic-sequence', stripIsobmff],
  ['image/heif-sequence', stripIsobmff],
  ['image/avif', stripIsobmff],
]);

/** True when uploads of `mediaType` have their metadata rewritten (JPEG, PNG, WebP, HEIF/HEIC, AVIF). */
export function stripsMetadataOf(mediaType: string): boolean {
  return STRIPPERS.has(mediaType);
}

/**
 * Removes metadata from an image as it streams, losslessly: the pixels' bytes pass unchanged, only
 * metadata segments, chunks or items are dropped or rewritten (issue #63, docs/image-metadata.md;
 * each format's rules are in jpeg.ts, png.ts, webp.ts and isobmff.ts). Memory stays bounded by the
 * largest metadata block held (64 KiB for JPEG, 4 MiB otherwise), whatever the file's size.
 * With `keep`, for a type that is not one of these images, and for bytes that do not parse as the
 * declared format, the body passes unchanged. Errors of the body's source are passed on.
 * @param mediaType the upload's media type, lower-case without parameters
 */
export function stripImageMetadata(body: AsyncIterable<Uint8Array>, mediaType: string, mode: ImageMetadataMode): StrippedImage {
  const stripper = STRIPPERS.get(mediaType);
  let settle!: (value: { removed: MetadataKind[]; bytesRead: number }) => void;
  const outcome = new Promise<{ removed: MetadataKind[]; bytesRead: number }>((resolve) => (settle = resolve));
  const removed = new Set<MetadataKind>();
  async function* stripped(): AsyncGenerator<Uint8Array, void> {
    const reader = new ByteReader(body);
    try {
      yield* mode === 'keep' || stripper === undefined ? reader.rest() : stripper(reader, mode, removed);
    } finally {
      settle({ removed: orderedKinds(removed), bytesRead: reader.position });
      await reader.close();
    }
  }
  return { body: stripped(), outcome };
}
