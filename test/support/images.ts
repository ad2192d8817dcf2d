// Small fixture images made in the test with sharp, and helpers to look at what came back.
import { crc32, deflateSync } from 'node:zlib';
import sharp from 'sharp';

/**
 * A JPEG of `width` × `height` stored pixels, red on the left half and blue on the right, with
 * EXIF: orientation `orientation` (6 = shown rotated 90° clockwise) and a Copyright and Artist.
 */
export async function exifJpeg(width = 64, height = 48, orientation = 6): Promise<Buffer> {
  const channels = 3;
  const raw = Buffer.alloc(width * height * channels);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const at = (y * width + x) * channels;
      if (x < width / 2) raw[at] = 230;
      else raw[at + 2] = 230;
    }
  }
  return sharp(raw, { raw: { width, height, channels } })
    .jpeg({ quality: 90 })
    .withMetadata({ orientation })
    .withExif({ IFD0: { Copyright: 'Hangar fixture', Artist: 'A. Tester' } })
    .toBuffer();
}

/** A plain PNG of one colour (with alpha). */
export async function solidPng(width: number, height: number, background = { r: 10, g: 120, b: 200, alpha: 0.5 }): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 4, background } })
    .png()
    .toBuffer();
}

/** An animated GIF of `frames` frames of `width` × `height` (red, green, blue…). */
export async function animatedGif(width = 40, height = 30, frames = 3): Promise<Buffer> {
  const channels = 3;
  const raw = Buffer.alloc(width * height * frames * channels);
  for (let i = 0; i < width * height * frames; i++) raw[i * channels + (Math.floor(i / (width * height)) % 3)] = 255;
  return sharp(raw, { raw: { width, height: height * frames, channels, pageHeight: height } })
    .gif({ delay: Array(frames).fill(100) })
    .toBuffer();
}

/**
 * A decompression bomb: a 274-byte PNG whose header claims 50 000 × 50 000 pixels (2.5 gigapixels,
 * 2.5 GB once decoded as grey), with a deflated body of a few zero rows.
 */
export function pngBomb(side = 50_000): Buffer {
  return pngFile(side, side, deflateSync(Buffer.alloc((side + 1) * 4)));
}

/** A PNG with a valid signature and header (so it is recognised as PNG) whose pixel data is not deflate data. */
export function corruptPng(): Buffer {
  return pngFile(100, 100, Buffer.from('this is not the compressed pixel data of a PNG file, only words'));
}

/** PNG bytes: signature, IHDR (8-bit greyscale `width` × `height`), one IDAT of `idat`, IEND. */
function pngFile(width: number, height: number, idat: Buffer): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const typed = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(typed));
    return Buffer.concat([length, typed, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 0; // greyscale
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', idat),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** What sharp reads back from an image: format, size (one frame), frames, orientation and whether EXIF/XMP/ICC remain. */
export async function describeImage(
  bytes: Uint8Array,
): Promise<{ format: string; width: number; height: number; pages: number; orientation?: number; exif: boolean; xmp: boolean; icc: boolean }> {
  const meta = await sharp(bytes, { animated: true }).metadata();
  return {
    format: meta.format,
    width: meta.width,
    height: meta.pageHeight ?? meta.height,
    pages: meta.pages ?? 1,
    orientation: meta.orientation,
    exif: meta.exif !== undefined,
    xmp: meta.xmp !== undefined,
    icc: meta.icc !== undefined,
  };
}

/** The colour of the pixel at (x, y) of the first frame, as [r, g, b]. */
export async function pixelAt(bytes: Uint8Array, x: number, y: number): Promise<[number, number, number]> {
  const { data, info } = await sharp(bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const at = (y * info.width + x) * info.channels;
  return [data[at], data[at + 1], data[at + 2]];
}
