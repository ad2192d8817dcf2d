import { type ByteReader, concat, passRest } from './byte-reader.js';
import { exifHasLocation, removeExifLocation } from './exif.js';
import type { ImageMetadataMode, MetadataKind } from './image-metadata-mode.js';
import { blankXmpLocation, startsWithText, XMP_EXTENSION_NAMESPACE, XMP_JPEG_NAMESPACE, xmpHasLocation } from './xmp.js';

const APP1 = 0xe1;
const APP3 = 0xe3;
const APP12 = 0xec;
const APP13 = 0xed;
const COM = 0xfe;
const SOS = 0xda;
const EOI = 0xd9;

/**
 * Rewrites a JPEG's metadata segments (ITU T.81 §B.1.1.4; EXIF in APP1, Exif 2.32 §4.5.4; XMP in
 * APP1, XMP spec part 3 §1.1.3) as they stream, up to the first scan (SOS); from there every byte
 * passes unchanged, so a segment (at most 64 KiB) is the most held in memory.
 * - `strip_location`: in APP1 EXIF the GPS IFD is removed in place (same length); in the APP1 XMP
 *   packet the GPS properties are blanked in place; extended XMP segments (which split one packet
 *   across segments, so no segment can be checked alone) are dropped.
 * - `strip_all`: APP1 (EXIF, XMP), APP3 (Kodak meta), APP12 (Ducky/picture info), APP13 (IPTC,
 *   Photoshop) and COM segments are dropped; APP0 (JFIF), APP2 (ICC profile, multi-picture index),
 *   APP14 (Adobe colour transform) and every other segment stay, so the colours do not change.
 * Only the first image is rewritten: images after its end (a multi-picture file's secondary images,
 * behind the first image's scan) pass unchanged. Bytes that do not parse as JPEG structure pass unchanged.
 */
export async function* stripJpeg(reader: ByteReader, mode: ImageMetadataMode, removed: Set<MetadataKind>): AsyncGenerator<Uint8Array, void> {
  const soi = await reader.read(2);
  yield soi;
  if (soi.byteLength < 2 || soi[0] !== 0xff || soi[1] !== 0xd8) return yield* reader.rest();
  for (;;) {
    const marker = await reader.read(2);
    if (marker.byteLength < 2 || marker[0] !== 0xff) return yield* passRest(marker, reader);
    if (marker[1] === 0xff) {
      // A fill byte before a marker (T.81 §B.1.1.2): emit one, look at the next pair.
      yield marker.subarray(0, 1);
      reader.unread(marker.subarray(1));
      continue;
    }
    const code = marker[1];
    if (code === 0x01 || (code >= 0xd0 && code <= 0xd8)) {
      yield marker;
      continue;
    }
    if (code === EOI) return yield* passRest(marker, reader);
    const lengthBytes = await reader.read(2);
    const length = lengthBytes.byteLength === 2 ? (lengthBytes[0] << 8) | lengthBytes[1] : 0;
    if (lengthBytes.byteLength < 2 || length < 2) return yield* passRest(concat(marker, lengthBytes), reader);
    if (code === SOS) return yield* passRest(concat(marker, lengthBytes), reader);
    const examined = mode === 'strip_all' ? [APP1, APP3, APP12, APP13, COM].includes(code) : code === APP1;
    if (!examined) {
      yield concat(marker, lengthBytes);
      yield* reader.pass(length - 2);
      continue;
    }
    const payload = await reader.read(length - 2);
    if (payload.byteLength < length - 2) return yield* passRest(concat(marker, lengthBytes, payload), reader);
    const keep = mode === 'strip_all' ? dropAll(code, payload, removed) : stripLocation(payload, removed);
    if (keep) yield concat(marker, lengthBytes, payload);
  }
}

/** `strip_all`: notes what the dropped segment held. @returns false (the segment goes) */
function dropAll(code: number, payload: Uint8Array, removed: Set<MetadataKind>): boolean {
  if (code === APP1 && startsWithText(payload, 'Exif\0')) {
    removed.add('exif');
    if (exifHasLocation(payload.subarray(6))) removed.add('location');
  } else if (code === APP1 && startsWithText(payload, XMP_JPEG_NAMESPACE)) {
    removed.add('xmp');
    if (xmpHasLocation(payload.subarray(XMP_JPEG_NAMESPACE.length))) removed.add('location');
  } else if (code === APP1 || code === APP3 || code === APP12) {
    removed.add(code === APP1 && startsWithText(payload, XMP_EXTENSION_NAMESPACE) ? 'xmp' : 'exif');
  } else if (code === APP13) {
    removed.add('iptc');
  } else {
    removed.add('comment');
  }
  return false;
}

/** `strip_location` on an APP1 payload, in place. @returns whether the segment stays */
function stripLocation(payload: Uint8Array, removed: Set<MetadataKind>): boolean {
  if (startsWithText(payload, 'Exif\0')) {
    if (removeExifLocation(payload.subarray(6))) removed.add('location');
  } else if (startsWithText(payload, XMP_JPEG_NAMESPACE)) {
    if (blankXmpLocation(payload.subarray(XMP_JPEG_NAMESPACE.length))) removed.add('location');
  } else if (startsWithText(payload, XMP_EXTENSION_NAMESPACE)) {
    removed.add('xmp');
    return false;
  }
  return true;
}
