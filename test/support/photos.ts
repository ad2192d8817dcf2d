// Photos with a GPS position (EXIF GPS IFD and XMP GPS properties) made in the test with sharp, and
// readers of what a stored copy still says (exifr for EXIF, the raw pixels through sharp).
import { crc32 } from 'node:zlib';
import exifr from 'exifr';
import sharp from 'sharp';

/** The formats whose metadata an upload rewrites, with their media types. */
export const PHOTO_TYPES = { jpeg: 'image/jpeg', png: 'image/png', webp: 'image/webp', avif: 'image/avif' } as const;
export type PhotoFormat = keyof typeof PHOTO_TYPES;

/** An XMP packet with GPS properties as attributes and as an element, and a creator tool. */
export const XMP_WITH_GPS =
  '<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">' +
  '<rdf:Description rdf:about="" xmlns:exif="http://ns.adobe.com/exif/1.0/" xmlns:xmp="http://ns.adobe.com/xap/1.0/" ' +
  'exif:GPSLatitude="48,51.496N" exif:GPSLongitude="2,17.67E" xmp:CreatorTool="Hangar fixture">' +
  '<exif:GPSAltitude>35/1</exif:GPSAltitude></rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end="w"?>';

/**
 * A photo of `width` × `height` noisy pixels (so a changed pixel would show) with EXIF Make, Model,
 * Orientation 6 and a GPS position (48°51'29.76"N 2°17'40.2"E), and, unless `xmp: false`, {@link XMP_WITH_GPS}.
 */
export async function gpsPhoto(
  format: PhotoFormat,
  options: { width?: number; height?: number; xmp?: boolean; pngXmp?: 'iTXt' | 'zTXt' } = {},
): Promise<Buffer> {
  const width = options.width ?? 24;
  const height = options.height ?? 16;
  const raw = Buffer.alloc(width * height * 3);
  let seed = 7;
  for (let i = 0; i < raw.length; i++) raw[i] = (seed = (seed * 1103515245 + 12345) >>> 0) >>> 24;
  let image = sharp(raw, { raw: { width, height, channels: 3 } });
  image =
    format === 'jpeg'
      ? image.jpeg({ quality: 80 })
      : format === 'png'
        ? image.png()
        : format === 'webp'
          ? image.webp({ quality: 80 })
          : image.avif({ quality: 60 });
  image = image.withMetadata({ orientation: 6 }).withExif({
    IFD0: { Make: 'HangarCam', Model: 'GPS-1' },
    IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '48/1 51/1 2976/100', GPSLongitudeRef: 'E', GPSLongitude: '2/1 17/1 402/10' },
  });
  if (options.xmp !== false) image = image.withXmp(XMP_WITH_GPS);
  const bytes = await image.toBuffer();
  return format === 'png' && options.xmp !== false && options.pngXmp !== 'zTXt' ? withUncompressedXmp(bytes) : bytes;
}

/** The PNG with its compressed XMP (libvips writes a zTXt chunk) as an uncompressed iTXt chunk, as Adobe's tools write it. */
function withUncompressedXmp(png: Buffer): Buffer {
  const parts = [png.subarray(0, 8)];
  for (let at = 8; at < png.length;) {
    const length = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    if (type === 'zTXt' && png.toString('latin1', at + 8, at + 25) === 'XML:com.adobe.xmp')
      parts.push(pngChunk('iTXt', Buffer.from(`XML:com.adobe.xmp\0\0\0\0\0${XMP_WITH_GPS}`)));
    else parts.push(png.subarray(at, at + 12 + length));
    at += 12 + length;
  }
  return Buffer.concat(parts);
}

/** One PNG chunk: length, type, data, CRC. */
export function pngChunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/** What a photo still says: EXIF tags (exifr), whether any GPS tag or XMP GPS property remains. */
export interface PhotoFacts {
  /** Every EXIF tag exifr reads (IFD0, EXIF, GPS), by name. */
  exif: Record<string, unknown>;
  /** True when exifr finds a GPS tag or the bytes hold an XMP GPS property. */
  hasLocation: boolean;
  /** True when the bytes hold an XMP packet. */
  hasXmp: boolean;
}

/** Reads `bytes` back: EXIF through exifr (from the file, or for WebP and AVIF from the EXIF block the file holds). */
export async function photoFacts(bytes: Uint8Array, format: PhotoFormat): Promise<PhotoFacts> {
  const source = format === 'jpeg' || format === 'png' ? Buffer.from(bytes) : exifBlock(bytes);
  const exif = source
    ? (((await exifr.parse(source, { tiff: true, exif: true, gps: true, ifd1: false, xmp: false, translateValues: false })) ?? {}) as Record<string, unknown>)
    : {};
  const text = Buffer.from(bytes).toString('latin1');
  const xmpGps = /:GPS\w*\s*=|<\w+:GPS/.test(text);
  return {
    exif,
    hasLocation: xmpGps || Object.keys(exif).some((key) => key.startsWith('GPS')),
    hasXmp: text.includes('x:xmpmeta') && /rdf:Description/.test(text),
  };
}

/** The bytes of the first TIFF structure of an EXIF block ("II*\0" or "MM\0*") in a WebP or AVIF file. */
function exifBlock(bytes: Uint8Array): Buffer | undefined {
  const buffer = Buffer.from(bytes);
  for (const mark of [Buffer.from('II*\0', 'latin1'), Buffer.from('MM\0*', 'latin1')]) {
    const at = buffer.indexOf(mark);
    if (at >= 0) return buffer.subarray(at);
  }
  return undefined;
}

/** The decoded pixels (raw, as stored, no rotation). */
export async function pixelsOf(bytes: Uint8Array): Promise<Buffer> {
  return sharp(bytes).raw().toBuffer();
}
