import { type ByteReader, concat, passRest } from './byte-reader.js';
import { exifHasLocation, removeExifLocation, tiffStart } from './exif.js';
import type { ImageMetadataMode, MetadataKind } from './image-metadata-mode.js';
import { MAX_HELD_CHUNK_BYTES } from './png.js';
import { blankXmpLocation, xmpHasLocation } from './xmp.js';

/** FourCC of the chunk that takes a removed chunk's place (RIFF's padding chunk; WebP readers skip unknown chunks). */
const FILLER = [0x4a, 0x55, 0x4e, 0x4b]; // "JUNK"
/** VP8X flag bits (WebP container spec, "Extended file format"). */
const EXIF_FLAG = 0x08;
const XMP_FLAG = 0x04;

/**
 * Rewrites a WebP's metadata chunks (WebP container spec: "EXIF", "XMP " after the image data) as
 * they stream. The RIFF header declares the file's length before any chunk and the EXIF and XMP
 * chunks come after the image data, so the length is kept: nothing is ever shorter.
 * - `strip_location`: in EXIF the GPS IFD is removed in place; in XMP the GPS properties are blanked in place.
 * - `strip_all`: the VP8X header's EXIF and XMP flags are cleared, and each EXIF and XMP chunk is
 *   replaced by a "JUNK" chunk of the same length, all zeros, which readers skip (the container
 *   spec's rule for unknown chunks). Dropping them instead would need the whole file held to fix the
 *   RIFF length first.
 * A metadata chunk over {@link MAX_HELD_CHUNK_BYTES} is replaced by the filler without being held.
 * Bytes that do not parse as RIFF chunks pass unchanged.
 */
export async function* stripWebp(reader: ByteReader, mode: ImageMetadataMode, removed: Set<MetadataKind>): AsyncGenerator<Uint8Array, void> {
  const header = await reader.read(12);
  yield header;
  const riff = header.byteLength === 12 && text(header, 0) === 'RIFF' && text(header, 8) === 'WEBP';
  if (!riff) return yield* reader.rest();
  for (;;) {
    const chunkHeader = await reader.read(8);
    if (chunkHeader.byteLength < 8) return yield* passRest(chunkHeader, reader);
    const fourCc = text(chunkHeader, 0);
    const size = (chunkHeader[4] | (chunkHeader[5] << 8) | (chunkHeader[6] << 16) | (chunkHeader[7] << 24)) >>> 0;
    const padded = size + (size & 1);
    if (fourCc === 'VP8X' && mode === 'strip_all') {
      const body = await reader.read(padded);
      if (body.byteLength > 0) body[0] &= ~(EXIF_FLAG | XMP_FLAG);
      yield concat(chunkHeader, body);
      if (body.byteLength < padded) return yield* reader.rest();
      continue;
    }
    if (fourCc !== 'EXIF' && fourCc !== 'XMP ') {
      yield chunkHeader;
      yield* reader.pass(padded);
      continue;
    }
    const kind: MetadataKind = fourCc === 'EXIF' ? 'exif' : 'xmp';
    if (padded > MAX_HELD_CHUNK_BYTES) {
      removed.add(kind);
      yield* filler(chunkHeader, reader, padded);
      continue;
    }
    const body = await reader.read(padded);
    if (body.byteLength < padded) return yield* passRest(concat(chunkHeader, body), reader);
    const data = body.subarray(0, size);
    if (mode === 'strip_all') {
      removed.add(kind);
      if (kind === 'exif' ? exifHasLocation(data.subarray(tiffStart(data))) : xmpHasLocation(data)) removed.add('location');
      chunkHeader.set(FILLER, 0);
      body.fill(0);
    } else if (kind === 'exif' ? removeExifLocation(data.subarray(tiffStart(data))) : blankXmpLocation(data)) {
      removed.add('location');
    }
    yield concat(chunkHeader, body);
  }
}

/** Emits a filler chunk in place of the next `padded` bytes, which are read and dropped as they arrive. */
async function* filler(chunkHeader: Uint8Array, reader: ByteReader, padded: number): AsyncGenerator<Uint8Array, void> {
  chunkHeader.set(FILLER, 0);
  yield chunkHeader;
  for await (const chunk of reader.pass(padded)) yield new Uint8Array(chunk.byteLength);
}

function text(bytes: Uint8Array, at: number): string {
  return String.fromCharCode(bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]);
}
