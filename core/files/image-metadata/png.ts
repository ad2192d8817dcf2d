import { type ByteReader, concat, passRest } from './byte-reader.js';
import { crc32 } from './crc32.js';
import { exifHasLocation, removeExifLocation, tiffStart } from './exif.js';
import type { ImageMetadataMode, MetadataKind } from './image-metadata-mode.js';
import { blankXmpLocation, binaryString, xmpHasLocation } from './xmp.js';

const SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
/** The largest metadata chunk held in memory to be edited (bytes); a larger one is dropped unread. */
export const MAX_HELD_CHUNK_BYTES = 4 * 1024 * 1024;
const TEXT_CHUNKS = new Set(['tEXt', 'zTXt', 'iTXt']);

/**
 * Rewrites a PNG's metadata chunks (PNG 3rd edition §11.3: eXIf, tEXt, zTXt, iTXt) as they stream;
 * every other chunk (image data included) passes unchanged without being held. A rewritten chunk
 * gets its CRC computed again; dropping a chunk needs nothing else (PNG declares no total length).
 * - `strip_location`: in eXIf the GPS IFD is removed in place; in an uncompressed XMP iTXt chunk
 *   ("XML:com.adobe.xmp") the GPS properties are blanked in place; a compressed XMP chunk and the
 *   legacy hex "Raw profile type exif/APP1" text chunks cannot be edited without inflating them, so
 *   they are dropped.
 * - `strip_all`: eXIf and every text chunk are dropped.
 * A metadata chunk over {@link MAX_HELD_CHUNK_BYTES} is not held: judged by its keyword, it is
 * dropped unread when it is metadata the mode removes, else passed. Bytes that do not parse as PNG
 * chunks pass unchanged.
 */
export async function* stripPng(reader: ByteReader, mode: ImageMetadataMode, removed: Set<MetadataKind>): AsyncGenerator<Uint8Array, void> {
  const signature = await reader.read(8);
  yield signature;
  if (!SIGNATURE.every((byte, i) => signature[i] === byte)) return yield* reader.rest();
  for (;;) {
    const header = await reader.read(8);
    if (header.byteLength < 8) return yield* passRest(header, reader);
    const length = ((header[0] << 24) | (header[1] << 16) | (header[2] << 8) | header[3]) >>> 0;
    const type = String.fromCharCode(header[4], header[5], header[6], header[7]);
    if (length > 0x7fffffff) return yield* passRest(header, reader);
    if (type === 'IEND') return yield* passRest(header, reader);
    if (type !== 'eXIf' && !TEXT_CHUNKS.has(type)) {
      yield header;
      yield* reader.pass(length + 4);
      continue;
    }
    if (length > MAX_HELD_CHUNK_BYTES) {
      // Too large to hold: judged by its keyword alone (a text chunk), dropped unread when it is metadata this mode removes.
      const start = type === 'eXIf' ? new Uint8Array(0) : await reader.read(80);
      const kind = type === 'eXIf' ? 'exif' : textKind(start);
      if (mode === 'strip_location' && kind === 'comment') {
        yield concat(header, start);
        yield* reader.pass(length + 4 - start.byteLength);
      } else {
        removed.add(kind);
        await reader.skip(length + 4 - start.byteLength);
      }
      continue;
    }
    const rest = await reader.read(length + 4);
    if (rest.byteLength < length + 4) return yield* passRest(concat(header, rest), reader);
    const chunk = concat(header, rest);
    const data = chunk.subarray(8, 8 + length);
    const keep = type === 'eXIf' ? exifChunk(data, mode, removed) : textChunk(type, data, mode, removed);
    if (keep === 'drop') continue;
    if (keep === 'changed') writeCrc(chunk);
    yield chunk;
  }
}

type Verdict = 'same' | 'changed' | 'drop';

function exifChunk(data: Uint8Array, mode: ImageMetadataMode, removed: Set<MetadataKind>): Verdict {
  const tiff = data.subarray(tiffStart(data));
  if (mode === 'strip_all') {
    removed.add('exif');
    if (exifHasLocation(tiff)) removed.add('location');
    return 'drop';
  }
  if (!removeExifLocation(tiff)) return 'same';
  removed.add('location');
  return 'changed';
}

function textChunk(type: string, data: Uint8Array, mode: ImageMetadataMode, removed: Set<MetadataKind>): Verdict {
  const nul = data.indexOf(0);
  const kind = textKind(data);
  const xmp = kind === 'xmp' && type === 'iTXt' && nul >= 0 && data[nul + 1] === 0 ? iTxtText(data, nul) : undefined;
  if (mode === 'strip_all') {
    removed.add(kind);
    if (xmp && xmpHasLocation(xmp)) removed.add('location');
    return 'drop';
  }
  if (kind === 'xmp' && xmp) {
    if (!blankXmpLocation(xmp)) return 'same';
    removed.add('location');
    return 'changed';
  }
  if (kind === 'xmp' || kind === 'exif') {
    removed.add(kind);
    return 'drop';
  }
  return 'same';
}

/** What a text chunk holds, from its keyword (the bytes up to the first NUL, at most 79; PNG §11.3.3). */
function textKind(data: Uint8Array): MetadataKind {
  const nul = data.indexOf(0);
  const keyword = binaryString(data.subarray(0, nul < 0 ? Math.min(data.byteLength, 80) : nul));
  if (keyword === 'XML:com.adobe.xmp') return 'xmp';
  if (/^Raw profile type (exif|APP1)$/i.test(keyword)) return 'exif';
  return /^Raw profile type (iptc|8bim)$/i.test(keyword) ? 'iptc' : 'comment';
}

/** The text of an uncompressed iTXt chunk: after keyword, flags, language tag and translated keyword (PNG §11.3.3.4). */
function iTxtText(data: Uint8Array, keywordEnd: number): Uint8Array | undefined {
  const languageEnd = data.indexOf(0, keywordEnd + 3);
  const translatedEnd = languageEnd < 0 ? -1 : data.indexOf(0, languageEnd + 1);
  return translatedEnd < 0 ? undefined : data.subarray(translatedEnd + 1);
}

/** Computes the chunk's CRC (over type and data) into its last four bytes. */
function writeCrc(chunk: Uint8Array): void {
  const crc = crc32(chunk.subarray(4, chunk.byteLength - 4));
  const at = chunk.byteLength - 4;
  chunk[at] = crc >>> 24;
  chunk[at + 1] = (crc >>> 16) & 0xff;
  chunk[at + 2] = (crc >>> 8) & 0xff;
  chunk[at + 3] = crc & 0xff;
}
