/**
 * Lossless edits of EXIF data (a TIFF structure: CIPA DC-008 "Exif 2.32", TIFF 6.0 §2) in place:
 * the bytes keep their length, so the container around them (a JPEG segment, a PNG chunk, a WebP
 * chunk, an ISOBMFF item) needs no other change than its checksum, if it has one.
 */

/** The GPSInfo IFD pointer tag (Exif 2.32 §4.6.3). */
const GPS_IFD_POINTER = 0x8825;
/** Bytes per value of each TIFF field type (TIFF 6.0 §2, Exif 2.32 §4.6.2); index = type. */
const TYPE_SIZES = [0, 1, 1, 2, 4, 8, 1, 1, 2, 4, 8, 4, 8, 4];

/** A view of a TIFF structure: `tiff[0]` is its first byte ("II" or "MM"). Offsets are relative to it. */
class Tiff {
  private readonly little: boolean;
  constructor(readonly bytes: Uint8Array) {
    this.little = bytes[0] === 0x49;
  }

  static open(bytes: Uint8Array): Tiff | undefined {
    if (bytes.byteLength < 8) return undefined;
    const ii = bytes[0] === 0x49 && bytes[1] === 0x49 && bytes[2] === 0x2a && bytes[3] === 0;
    const mm = bytes[0] === 0x4d && bytes[1] === 0x4d && bytes[2] === 0 && bytes[3] === 0x2a;
    return ii || mm ? new Tiff(bytes) : undefined;
  }

  u16(at: number): number {
    return this.little ? this.bytes[at] | (this.bytes[at + 1] << 8) : (this.bytes[at] << 8) | this.bytes[at + 1];
  }

  u32(at: number): number {
    const b = this.bytes;
    return this.little
      ? (b[at] | (b[at + 1] << 8) | (b[at + 2] << 16) | (b[at + 3] << 24)) >>> 0
      : ((b[at] << 24) | (b[at + 1] << 16) | (b[at + 2] << 8) | b[at + 3]) >>> 0;
  }

  setU16(at: number, value: number): void {
    if (this.little) [this.bytes[at], this.bytes[at + 1]] = [value & 0xff, value >>> 8];
    else [this.bytes[at], this.bytes[at + 1]] = [value >>> 8, value & 0xff];
  }

  /** True when the IFD at `at` (count, entries, next offset) lies inside the bytes. */
  ifdFits(at: number): boolean {
    return at >= 8 && at + 2 <= this.bytes.byteLength && at + 2 + 12 * this.u16(at) + 4 <= this.bytes.byteLength;
  }

  zero(from: number, to: number): void {
    this.bytes.fill(0, Math.max(0, from), Math.min(this.bytes.byteLength, to));
  }
}

/**
 * Removes the GPS position from EXIF data in place: the GPSInfo pointer leaves IFD0 (and IFD1, where
 * some writers put one), the entries after it move up (the IFD stays sorted, its next-IFD offset
 * follows), and the GPS IFD with every value it points to is overwritten with zeros. Nothing else
 * changes. Malformed data (an offset outside the bytes) is left as it is.
 * @param tiff the TIFF structure, starting at its byte-order mark; changed in place
 * @returns true when a GPS IFD was found and removed
 */
export function removeExifLocation(tiff: Uint8Array): boolean {
  const view = Tiff.open(tiff);
  if (!view) return false;
  let removed = false;
  let ifd = view.u32(4);
  for (let index = 0; index < 2 && ifd !== 0 && view.ifdFits(ifd); index++) {
    for (let entry = 0; entry < view.u16(ifd); entry++) {
      const at = ifd + 2 + 12 * entry;
      if (view.u16(at) !== GPS_IFD_POINTER) continue;
      const gps = view.u32(at + 8);
      if (view.ifdFits(gps)) zeroIfd(view, gps);
      const end = ifd + 2 + 12 * view.u16(ifd) + 4;
      tiff.copyWithin(at, at + 12, end);
      view.zero(end - 12, end);
      view.setU16(ifd, view.u16(ifd) - 1);
      removed = true;
      entry--;
    }
    ifd = view.u32(ifd + 2 + 12 * view.u16(ifd));
  }
  return removed;
}

/** Zeros an IFD and the values its entries point to. */
function zeroIfd(view: Tiff, at: number): void {
  const count = view.u16(at);
  for (let entry = 0; entry < count; entry++) {
    const e = at + 2 + 12 * entry;
    const size = (TYPE_SIZES[view.u16(e + 2)] ?? 0) * view.u32(e + 4);
    if (size > 4) {
      const offset = view.u32(e + 8);
      if (offset + size <= view.bytes.byteLength) view.zero(offset, offset + size);
    }
  }
  view.zero(at, at + 2 + 12 * count + 4);
}

/** True when the EXIF data holds a GPSInfo pointer in IFD0 or IFD1. */
export function exifHasLocation(tiff: Uint8Array): boolean {
  return removeExifLocation(tiff.slice());
}

/**
 * Empties EXIF data in place: IFD0 right after the header with no entries and no next IFD, every
 * other byte zero. For containers where the EXIF item cannot be dropped without rewriting offsets
 * (ISOBMFF); the result is valid, empty EXIF.
 * @returns false when the bytes are not a TIFF structure (left unchanged)
 */
export function emptyExif(tiff: Uint8Array): boolean {
  const view = Tiff.open(tiff);
  if (!view || tiff.byteLength < 14) return false;
  const little = tiff[0] === 0x49;
  tiff.fill(0, 4);
  tiff[little ? 4 : 7] = 8;
  return true;
}

/** Where the TIFF structure of an APP1-style EXIF payload starts: after "Exif\0\0" when present, else 0 (a bare TIFF). */
export function tiffStart(payload: Uint8Array): number {
  const exifHeader =
    payload.byteLength >= 6 && payload[0] === 0x45 && payload[1] === 0x78 && payload[2] === 0x69 && payload[3] === 0x66 && payload[4] === 0 && payload[5] === 0;
  return exifHeader ? 6 : 0;
}
