import type { ImageTransform, ImageTransformer, TransformedImage } from '../../core/images/image-transformer.js';
import { DomainError } from '../../core/shared/errors.js';
import { sharpLibrary } from './sharp-library.js';

/** Options of {@link SharpImageTransformer}. */
export interface SharpImageTransformerOptions {
  /**
   * Largest source, in pixels (width × height, all frames of an animation together), that is
   * decoded (`IMAGE_MAX_INPUT_PIXELS`); checked from the header, so a decompression bomb costs
   * nothing. Default 40 000 000 (40 megapixels).
   */
  maxInputPixels?: number;
  /** Largest source, in bytes, that is read (it is held in memory while it is decoded). Default 64 MiB. */
  maxInputBytes?: number;
  /** Longest one transformation may run, in seconds, before it fails with IMAGE_UNREADABLE. Default 30. */
  timeoutSeconds?: number;
}

/** Defaults of {@link SharpImageTransformerOptions}. */
export const SHARP_DEFAULTS = { maxInputPixels: 40_000_000, maxInputBytes: 64 * 1024 * 1024, timeoutSeconds: 30 } as const;

/**
 * An {@link ImageTransformer} on sharp (libvips; the prebuilt binary ships inside the npm package).
 *
 * - EXIF orientation is applied (`autoOrient`), then the image is resized with `withoutEnlargement`
 *   (never larger than the source) and re-encoded. No `withMetadata`/`keepMetadata`: EXIF, XMP,
 *   IPTC and GPS are dropped and colours are converted to sRGB without embedding a profile.
 * - `limitInputPixels` refuses sources above `maxInputPixels` before decoding (IMAGE_TOO_LARGE);
 *   `failOn: 'error'` refuses corrupt data that libvips would otherwise decode partially.
 * - Animated GIF and WebP sources stay animated when the output is WebP or GIF (every frame is
 *   resized); for JPEG, PNG and AVIF output only the first frame is used.
 * - JPEG output has no alpha channel: transparent pixels become white.
 * - Each call uses libvips's own worker threads (`sharp.concurrency()`, one per core by default);
 *   the core bounds how many calls run at once.
 */
export class SharpImageTransformer implements ImageTransformer {
  #version: string | undefined;
  /** sharp and libvips versions: an upgrade may change output bytes, so it gets new cache keys. Loads sharp on first read. */
  get version(): string {
    const { versions } = sharpLibrary();
    return (this.#version ??= `s${versions.sharp}v${versions.vips}`.replace(/[^0-9A-Za-z]/g, '_'));
  }
  private readonly maxInputPixels: number;
  private readonly maxInputBytes: number;
  private readonly timeoutSeconds: number;

  constructor(options: SharpImageTransformerOptions = {}) {
    this.maxInputPixels = options.maxInputPixels ?? SHARP_DEFAULTS.maxInputPixels;
    this.maxInputBytes = options.maxInputBytes ?? SHARP_DEFAULTS.maxInputBytes;
    this.timeoutSeconds = options.timeoutSeconds ?? SHARP_DEFAULTS.timeoutSeconds;
    if (!Number.isSafeInteger(this.maxInputPixels) || this.maxInputPixels < 1) throw new Error('maxInputPixels must be a positive whole number.');
  }

  /**
   * @throws DomainError IMAGE_TOO_LARGE (422) above `maxInputPixels` or `maxInputBytes`; IMAGE_UNREADABLE (422)
   *         for data that is not a decodable image, or that took longer than `timeoutSeconds`; the source's own error
   */
  async transform(options: { source: AsyncIterable<Uint8Array>; transform: ImageTransform }): Promise<TransformedImage> {
    const input = await this.read(options.source);
    const { width, height, fit, format, quality } = options.transform;
    const animated = format === 'webp' || format === 'gif';
    const sharp = sharpLibrary();
    let pipeline = sharp(input, { limitInputPixels: this.maxInputPixels, failOn: 'error', animated }).timeout({ seconds: this.timeoutSeconds }).autoOrient();
    if (width !== undefined || height !== undefined) pipeline = pipeline.resize({ width, height, fit, withoutEnlargement: true });
    switch (format) {
      case 'webp':
        pipeline = pipeline.webp({ quality });
        break;
      case 'avif':
        pipeline = pipeline.avif({ quality });
        break;
      case 'jpeg':
        pipeline = pipeline.flatten({ background: '#ffffff' }).jpeg({ quality });
        break;
      case 'png':
        pipeline = pipeline.png();
        break;
      case 'gif':
        pipeline = pipeline.gif();
        break;
    }
    try {
      const { data, info } = await pipeline.toBuffer({ resolveWithObject: true });
      return { bytes: data, contentType: `image/${format}`, width: info.width, height: info.pageHeight ?? info.height };
    } catch (error) {
      throw this.refusal(error);
    }
  }

  /** Reads the whole source, refusing it past `maxInputBytes`. */
  private async read(source: AsyncIterable<Uint8Array>): Promise<Buffer> {
    const chunks: Uint8Array[] = [];
    let size = 0;
    for await (const chunk of source) {
      size += chunk.length;
      if (size > this.maxInputBytes) {
        throw new DomainError('IMAGE_TOO_LARGE', `Images larger than ${this.maxInputBytes} bytes are not transformed.`, {
          max_input_bytes: this.maxInputBytes,
        });
      }
      chunks.push(chunk);
    }
    return Buffer.concat(chunks, size);
  }

  private refusal(error: unknown): DomainError {
    const message = error instanceof Error ? error.message : String(error);
    let refusal: DomainError;
    if (/pixel limit/i.test(message)) {
      refusal = new DomainError('IMAGE_TOO_LARGE', `Images of more than ${this.maxInputPixels} pixels are not transformed.`, {
        max_input_pixels: this.maxInputPixels,
      });
    } else if (/timeout/i.test(message)) {
      refusal = new DomainError('IMAGE_UNREADABLE', `The image took longer than ${this.timeoutSeconds} s to transform.`);
    } else {
      refusal = new DomainError('IMAGE_UNREADABLE', 'The file cannot be decoded as an image.');
    }
    refusal.cause = error;
    return refusal;
  }
}
