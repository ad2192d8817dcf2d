/**
 * Lossless removal of GPS properties from an XMP packet (ISO 16684-1), in place: each property whose
 * local name starts with "GPS" in any namespace (`exif:GPSLatitude`, `exif:GPSLongitude`,
 * `drone-dji:GpsLatitude`…), as an attribute (`exif:GPSLatitude="…"`) or an element
 * (`<exif:GPSLatitude>…</exif:GPSLatitude>`), is overwritten with spaces. The packet keeps its length
 * and stays well-formed XML (whitespace between attributes and elements is insignificant), so
 * containers that declared its length up front need no change. Place names (`photoshop:City`,
 * `Iptc4xmpCore:Location`) are text the author wrote, not position data, and stay.
 */

const GPS_ATTRIBUTE = /\s[A-Za-z_][\w.-]*:gps[\w]*\s*=\s*(?:"[^"]*"|'[^']*')/gi;
const GPS_ELEMENT = /<([A-Za-z_][\w.-]*:gps[\w]*)(?=[\s/>])[^>]*?(?:\/>|>[\s\S]*?<\/\1\s*>)/gi;
/** Marks that an XMP packet starts with, as bytes: APP1 "http://ns.adobe.com/xap/1.0/\0". */
export const XMP_JPEG_NAMESPACE = 'http://ns.adobe.com/xap/1.0/\0';
/** The JPEG APP1 namespace of extended XMP (XMP spec part 3, §1.1.3.1). */
export const XMP_EXTENSION_NAMESPACE = 'http://ns.adobe.com/xmp/extension/\0';

/** The bytes as a string of one character per byte (so string indexes are byte offsets). */
export function binaryString(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.byteLength; i += 8192) out += String.fromCharCode(...bytes.subarray(i, i + 8192));
  return out;
}

/** True when `bytes` start with the ASCII text `prefix`. */
export function startsWithText(bytes: Uint8Array, prefix: string): boolean {
  if (bytes.byteLength < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (bytes[i] !== prefix.charCodeAt(i)) return false;
  return true;
}

/**
 * Overwrites the GPS properties of the XMP packet in `bytes` (UTF-8 text) with spaces, in place.
 * @returns true when there was at least one
 */
export function blankXmpLocation(bytes: Uint8Array): boolean {
  const text = binaryString(bytes);
  let found = false;
  for (const pattern of [GPS_ELEMENT, GPS_ATTRIBUTE]) {
    for (const match of text.matchAll(pattern)) {
      bytes.fill(0x20, match.index, match.index + match[0].length);
      found = true;
    }
  }
  return found;
}

/** True when the XMP packet in `bytes` holds a GPS property. */
export function xmpHasLocation(bytes: Uint8Array): boolean {
  const text = binaryString(bytes);
  return new RegExp(GPS_ELEMENT.source, 'i').test(text) || new RegExp(GPS_ATTRIBUTE.source, 'i').test(text);
}
