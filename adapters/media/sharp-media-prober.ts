import { rgbaToThumbHash } from 'thumbhash';
import type { MediaFacts } from '../../core/media/media-facts.js';
import type { MediaProber, ProbeInput } from '../../core/media/media-prober.js';
import { sharpLibrary } from '../images/sharp-library.js';

/** Options of {@link SharpMediaProber}. */
export interface SharpMediaProberOptions {
  /**
   * Largest image, in bytes, read whole (sharp holds a streamed input in memory before it decodes
   * it) to compute its thumbhash. Larger images are read only as far as {@link headBytes}: their
   * width and height come from the header, their thumbhash stays null. Default 64 MiB, as the
   * image transformer's ceiling.
   */
  maxInputBytes?: number;
  /** Bytes read from the start of an image over `maxInputBytes` for its header; default 1 MiB (EXIF blocks come before a JPEG's frame header). */
  headBytes?: number;
  /** Largest image, in pixels (all pages), decoded for the thumbhash (`IMAGE_MAX_INPUT_PIXELS`); above it only width and height are read. Default 40,000,000. */
  maxInputPixels?: number;
  /** Longest one thumbhash's decode may run, in seconds; default 30. */
  timeoutSeconds?: number;
}

/** Defaults of {@link SharpMediaProberOptions}. */
export const SHARP_MEDIA_DEFAULTS = { maxInputBytes: 64 * 1024 * 1024, headBytes: 1024 * 1024, maxInputPixels: 40_000_000, timeoutSeconds: 30 } as const;

/** Image types sharp's prebuilt libvips decodes. SVG is left out: rendering it is not reading a header. */
const IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/webp', 'image/gif', 'image/avif', 'image/tiff']);

/** True for the image types the image probers read (`contentType` lower case, no parameters). */
export function isProbedImageType(contentType: string): boolean {
  return IMAGE_TYPES.has(contentType);
}

/** The side of the box a thumbhash is computed from; thumbhash takes at most 100 × 100 pixels. */
const THUMBHASH_BOX = 100;
/**
 * The smallest box a small image is enlarged to for its thumbhash. Enlarging a few pixels matters
 * (thumbhash's cosines over a 1 × 1 or 3 × 2 image give colour fringes that the image lacks), but
 * past 32 pixels the hash decodes to the same picture while the resize and the hash cost more.
 */
const THUMBHASH_SMALLEST_BOX = 32;

/**
 * A {@link MediaProber} of still and animated images on sharp (libvips): width and height as the
 * image is shown (after its EXIF orientation: sharp's `autoOrient` dimensions), and a ThumbHash of
 * the oriented image (first page) with `thumbhash`'s `rgbaToThumbHash`: scaled down to fit 100 × 100,
 * hashed at its size when 32–100 pixels on its longer side, enlarged to fit 32 × 32 when smaller.
 *
 * Memory: sharp collects a streamed input into one buffer before decoding, so an image is read
 * whole only up to `maxInputBytes`; a larger one is read as its first `headBytes` (a byte range of
 * the blob), whose header gives the dimensions without decoding. A thumbhash decodes at most
 * `maxInputPixels` (libvips shrinks a JPEG while decoding it), so a probe holds about its file plus
 * one decoded image, and the queue's concurrency bounds how many run at once.
 */
export class SharpMediaProber implements MediaProber {
  private readonly options: Required<SharpMediaProberOptions>;

  constructor(options: SharpMediaProberOptions = {}) {
    this.options = { ...SHARP_MEDIA_DEFAULTS, ...options };
  }

  handles(contentType: string): boolean {
    return isProbedImageType(contentType);
  }

  /** @throws Error (sharp's) when the bytes are not an image libvips reads */
  async probe(input: ProbeInput): Promise<MediaFacts> {
    return probeImageBytes(await readImageBytes(input, this.options), this.options);
  }
}

/** What {@link readImageBytes} read of an image: the whole file, or its head only (over `maxInputBytes`). */
export interface ImageBytes {
  bytes: Uint8Array;
  /** True when `bytes` is the whole file (a thumbhash is computed only then). */
  whole: boolean;
}

/**
 * Reads what {@link probeImageBytes} needs of the image `input`: the whole file up to
 * `options.maxInputBytes` bytes, else its first `options.headBytes` (one byte range).
 * @throws what `input.read` throws (DomainError BLOB_STORE_UNAVAILABLE)
 */
export async function readImageBytes(input: ProbeInput, options: Required<SharpMediaProberOptions>): Promise<ImageBytes> {
  const whole = input.size <= options.maxInputBytes;
  const bytes = await collect(
    whole ? await input.read() : await input.read({ start: 0, end: Math.min(input.size, options.headBytes) - 1 }),
    whole ? options.maxInputBytes : options.headBytes,
  );
  return { bytes, whole };
}

/**
 * The facts of an image from its bytes ({@link readImageBytes}), with sharp: width and height as
 * shown (after EXIF orientation), and the thumbhash when the bytes are the whole file and it has at
 * most `options.maxInputPixels` pixels.
 * @throws Error (sharp's) when the bytes are not an image libvips reads, or the decode outlasts `options.timeoutSeconds`
 */
export async function probeImageBytes(
  { bytes, whole }: ImageBytes,
  options: Pick<Required<SharpMediaProberOptions>, 'maxInputPixels' | 'timeoutSeconds'>,
): Promise<MediaFacts> {
  const sharp = sharpLibrary();
  // Only the header is read here (no decode): no pixel limit needed, and a head-only buffer is enough.
  const metadata = await sharp(bytes, { limitInputPixels: false, failOn: 'none' }).metadata();
  const width = metadata.autoOrient?.width ?? metadata.width ?? null;
  const height = metadata.autoOrient?.height ?? metadata.height ?? null;
  const pixels = (metadata.width ?? 0) * (metadata.pageHeight ?? metadata.height ?? 0);
  let thumbhash: string | null = null;
  if (whole && width !== null && height !== null && pixels > 0 && pixels <= options.maxInputPixels) {
    // Each libvips operation costs a few hundred µs even on a tiny image: one that would change nothing is left out.
    const longest = Math.max(width, height);
    const box = Math.min(THUMBHASH_BOX, Math.max(THUMBHASH_SMALLEST_BOX, longest));
    let image = sharp(bytes, { limitInputPixels: options.maxInputPixels, failOn: 'none', pages: 1 });
    if ((metadata.orientation ?? 1) > 1) image = image.autoOrient();
    // Enlarging copies pixels (the nearest kernel): the hash blurs them anyway, and interpolating costs more.
    if (longest !== box) image = image.resize(box, box, { fit: 'inside', ...(longest < box ? { kernel: 'nearest' as const } : {}) });
    const { data, info } = await image.raw().timeout({ seconds: options.timeoutSeconds }).toBuffer({ resolveWithObject: true });
    const rgba = rgbaOf(data, info.width * info.height, info.channels);
    if (rgba) thumbhash = Buffer.from(rgbaToThumbHash(info.width, info.height, rgba)).toString('base64');
  }
  return { width, height, durationSeconds: null, thumbhash };
}

/**
 * `pixels` pixels of sharp's raw output as RGBA, the layout `rgbaToThumbHash` takes, or null for a
 * layout other than sharp's two: 8-bit sRGB (3 channels) or sRGB and alpha (4); sharp writes grey
 * images (1 or 2 channels in) as these too. Done here rather than with sharp's `ensureAlpha()`, a
 * libvips operation that costs more than this loop over at most 100 × 100 pixels.
 */
function rgbaOf(data: Buffer, pixels: number, channels: number): Uint8Array | null {
  if (channels === 4) return data;
  if (channels !== 3) return null;
  const rgba = new Uint8Array(pixels * 4);
  for (let pixel = 0, from = 0, to = 0; pixel < pixels; pixel++, from += 3, to += 4) {
    rgba[to] = data[from];
    rgba[to + 1] = data[from + 1];
    rgba[to + 2] = data[from + 2];
    rgba[to + 3] = 255;
  }
  return rgba;
}

/** The stream's bytes in one Buffer, at most `maxBytes` of them (the rest is not read). */
async function collect(body: AsyncIterable<Uint8Array>, maxBytes: number): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of body) {
    const room = maxBytes - total;
    chunks.push(chunk.length > room ? chunk.subarray(0, room) : Buffer.from(chunk));
    total += Math.min(chunk.length, room);
    if (total >= maxBytes) break;
  }
  return Buffer.concat(chunks, total);
}
