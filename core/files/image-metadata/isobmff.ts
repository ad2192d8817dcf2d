import { type ByteReader, passRest } from './byte-reader.js';
import { emptyExif, exifHasLocation, removeExifLocation } from './exif.js';
import type { ImageMetadataMode, MetadataKind } from './image-metadata-mode.js';
import { blankXmpLocation, binaryString } from './xmp.js';

/** The largest `meta` box, and the largest EXIF or XMP item, held in memory (bytes). */
export const MAX_META_BYTES = 4 * 1024 * 1024;

/** A metadata item's bytes in the file: absolute offset and length, with what it holds. */
interface ItemExtent {
  kind: 'exif' | 'xmp';
  start: number;
  length: number;
}

/**
 * Rewrites the EXIF and XMP items of a HEIF/AVIF image (ISO/IEC 23008-12 §6.5; ISOBMFF, ISO/IEC
 * 14496-12 §8.11) in place, as the file streams. Items are found in the top-level `meta` box (item
 * types from `iinf`, locations from `iloc`); an item's bytes are rewritten without changing their
 * length, so no offset anywhere moves:
 * - `strip_location`: in EXIF the GPS IFD is removed; in XMP (a `mime` item of type
 *   `application/rdf+xml`) the GPS properties are blanked.
 * - `strip_all`: EXIF becomes an empty IFD0 (every other byte zero); XMP has its GPS properties
 *   blanked, the rest of it stays (an XMP item cannot be dropped without rewriting `iloc`).
 * Covered: a `meta` box of at most {@link MAX_META_BYTES} before the items' bytes, items of one
 * extent stored in the file (construction method 0, `mdat` usually) or in the `meta` box's own
 * `idat` (method 1), each of at most {@link MAX_META_BYTES}. Anything else (an item before the
 * `meta` box, several extents, a larger item) passes unchanged and is not reported as removed.
 */
export async function* stripIsobmff(reader: ByteReader, mode: ImageMetadataMode, removed: Set<MetadataKind>): AsyncGenerator<Uint8Array, void> {
  let extents: ItemExtent[] | undefined;
  // Top-level boxes up to `meta`, then the file as positions only.
  while (extents === undefined) {
    const header = await reader.read(8);
    if (header.byteLength < 8) return yield* passRest(header, reader);
    const size = u32(header, 0);
    const type = binaryString(header.subarray(4, 8));
    if (size < 8 || (type !== 'ftyp' && type !== 'meta' && reader.position === 8)) return yield* passRest(header, reader);
    if (type !== 'meta' || size > MAX_META_BYTES) {
      yield header;
      if (type === 'mdat') return yield* reader.rest();
      yield* reader.pass(size - 8);
      continue;
    }
    const start = reader.position - 8;
    const body = await reader.read(size - 8);
    const meta = new Uint8Array(size);
    meta.set(header);
    meta.set(body, 8);
    if (body.byteLength < size - 8) return yield* passRest(meta.subarray(0, 8 + body.byteLength), reader);
    extents = [];
    for (const item of metadataItems(meta)) {
      if (item.inIdat) {
        if (item.idatStart !== undefined && item.start + item.length <= item.idatLength!) {
          editItem(meta.subarray(item.idatStart + item.start, item.idatStart + item.start + item.length), item.kind, mode, removed);
        }
      } else if (item.start >= start + size && item.length <= MAX_META_BYTES) {
        extents.push({ kind: item.kind, start: item.start, length: item.length });
      }
    }
    yield meta;
  }
  extents.sort((a, b) => a.start - b.start);
  for (const extent of extents) {
    if (extent.start < reader.position) continue;
    yield* reader.pass(extent.start - reader.position);
    const bytes = await reader.read(extent.length);
    if (bytes.byteLength === extent.length) editItem(bytes, extent.kind, mode, removed);
    yield bytes;
    if (bytes.byteLength < extent.length) return;
  }
  yield* reader.rest();
}

/** Edits an item's bytes in place (see {@link stripIsobmff}). @returns true when something was changed */
function editItem(bytes: Uint8Array, kind: 'exif' | 'xmp', mode: ImageMetadataMode, removed: Set<MetadataKind>): boolean {
  if (kind === 'xmp') {
    if (!blankXmpLocation(bytes)) return false;
    removed.add('location');
    return true;
  }
  // An EXIF item: a 32-bit offset to the TIFF header from the end of the field (ISO/IEC 23008-12 Annex A.2.1).
  if (bytes.byteLength < 4) return false;
  const tiffAt = 4 + u32(bytes, 0);
  if (tiffAt >= bytes.byteLength) return false;
  const tiff = bytes.subarray(tiffAt);
  if (mode === 'strip_all') {
    const hadLocation = exifHasLocation(tiff);
    if (!emptyExif(tiff)) return false;
    removed.add('exif');
    if (hadLocation) removed.add('location');
    return true;
  }
  if (!removeExifLocation(tiff)) return false;
  removed.add('location');
  return true;
}

interface FoundItem {
  kind: 'exif' | 'xmp';
  /** Absolute file offset (construction method 0) or offset in `idat`'s data (method 1). */
  start: number;
  length: number;
  inIdat: boolean;
  /** Offset of `idat`'s data in the `meta` box, and its length, when there is one. */
  idatStart?: number;
  idatLength?: number;
}

/** The EXIF and XMP items of a `meta` box (its bytes from its header on), each of one extent. Malformed boxes give none. */
function metadataItems(meta: Uint8Array): FoundItem[] {
  try {
    const children = boxesIn(meta, 12, meta.byteLength);
    const iinf = children.find((box) => box.type === 'iinf');
    const iloc = children.find((box) => box.type === 'iloc');
    const idat = children.find((box) => box.type === 'idat');
    if (!iinf || !iloc) return [];
    const kinds = itemKinds(meta, iinf);
    const found: FoundItem[] = [];
    for (const location of itemLocations(meta, iloc)) {
      const kind = kinds.get(location.id);
      if (kind === undefined || location.extents.length !== 1 || location.extents[0].length === 0 || location.method > 1) continue;
      const [extent] = location.extents;
      found.push({
        kind,
        start: location.baseOffset + extent.offset,
        length: extent.length,
        inIdat: location.method === 1,
        idatStart: idat && idat.start + 8,
        idatLength: idat && idat.end - idat.start - 8,
      });
    }
    return found;
  } catch {
    return [];
  }
}

interface Box {
  type: string;
  /** Offset of the box's header. */
  start: number;
  /** Offset just past the box. */
  end: number;
}

/** The boxes between `from` and `to`. @throws RangeError on a box that does not fit */
function boxesIn(bytes: Uint8Array, from: number, to: number): Box[] {
  const boxes: Box[] = [];
  for (let at = from; at + 8 <= to;) {
    const size = u32(bytes, at);
    if (size < 8 || at + size > to) throw new RangeError('box outside its parent');
    boxes.push({ type: binaryString(bytes.subarray(at + 4, at + 8)), start: at, end: at + size });
    at += size;
  }
  return boxes;
}

/** Item id → kind, from `iinf` (ISO/IEC 14496-12 §8.11.6): `Exif` items and XMP `mime` items. */
function itemKinds(meta: Uint8Array, iinf: Box): Map<number, 'exif' | 'xmp'> {
  const version = meta[iinf.start + 8];
  const first = iinf.start + 12 + (version === 0 ? 2 : 4);
  const kinds = new Map<number, 'exif' | 'xmp'>();
  for (const infe of boxesIn(meta, first, iinf.end)) {
    if (infe.type !== 'infe') continue;
    const infeVersion = meta[infe.start + 8];
    if (infeVersion < 2) continue;
    let at = infe.start + 12;
    const id = infeVersion === 2 ? u16(meta, at) : u32(meta, at);
    at += (infeVersion === 2 ? 2 : 4) + 2;
    const itemType = binaryString(meta.subarray(at, at + 4));
    at += 4;
    if (itemType === 'Exif') kinds.set(id, 'exif');
    if (itemType === 'mime') {
      const nameEnd = meta.indexOf(0, at);
      const typeEnd = nameEnd < 0 ? -1 : meta.indexOf(0, nameEnd + 1);
      if (typeEnd > 0 && typeEnd < infe.end && binaryString(meta.subarray(nameEnd + 1, typeEnd)) === 'application/rdf+xml') kinds.set(id, 'xmp');
    }
  }
  return kinds;
}

interface ItemLocation {
  id: number;
  method: number;
  baseOffset: number;
  extents: { offset: number; length: number }[];
}

/** The item locations of `iloc` (ISO/IEC 14496-12 §8.11.3). */
function itemLocations(meta: Uint8Array, iloc: Box): ItemLocation[] {
  const version = meta[iloc.start + 8];
  let at = iloc.start + 12;
  const offsetSize = meta[at] >> 4;
  const lengthSize = meta[at] & 15;
  const baseOffsetSize = meta[at + 1] >> 4;
  const indexSize = version === 1 || version === 2 ? meta[at + 1] & 15 : 0;
  at += 2;
  const count = version < 2 ? u16(meta, at) : u32(meta, at);
  at += version < 2 ? 2 : 4;
  const read = (size: number): number => {
    if (at + size > iloc.end) throw new RangeError('iloc overrun');
    const value = size === 0 ? 0 : size === 4 ? u32(meta, at) : size === 8 ? u32(meta, at) * 2 ** 32 + u32(meta, at + 4) : Number.NaN;
    if (Number.isNaN(value)) throw new RangeError('iloc field size');
    at += size;
    return value;
  };
  const locations: ItemLocation[] = [];
  for (let i = 0; i < count; i++) {
    const id = version < 2 ? u16(meta, at) : u32(meta, at);
    at += version < 2 ? 2 : 4;
    const method = version === 1 || version === 2 ? u16(meta, at) & 15 : 0;
    if (version === 1 || version === 2) at += 2;
    at += 2; // data_reference_index
    const baseOffset = read(baseOffsetSize);
    const extentCount = u16(meta, at);
    at += 2;
    const extents = [];
    for (let e = 0; e < extentCount; e++) {
      read(indexSize);
      const offset = read(offsetSize);
      extents.push({ offset, length: read(lengthSize) });
    }
    locations.push({ id, method, baseOffset, extents });
  }
  return locations;
}

function u16(bytes: Uint8Array, at: number): number {
  return (bytes[at] << 8) | bytes[at + 1];
}

function u32(bytes: Uint8Array, at: number): number {
  return ((bytes[at] << 24) | (bytes[at + 1] << 16) | (bytes[at + 2] << 8) | bytes[at + 3]) >>> 0;
}
