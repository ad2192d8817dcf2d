/** Output formats of a transformation. `gif` is only chosen for GIF sources when no `format` is asked. */
export type ImageFormat = 'webp' | 'avif' | 'jpeg' | 'png' | 'gif';

/** How the image is fitted into a box of `width` × `height` (the CSS `object-fit` words, as sharp uses them). */
export type ImageFit = 'cover' | 'contain' | 'fill' | 'inside' | 'outside';

/**
 * One normalised transformation (docs/images.md): equal requests give equal values, so the value
 * is also the cache key of the derived image.
 */
export interface ImageTransform {
  /** Target width in px, 1–4096; undefined keeps the aspect ratio from `height` (or the source width). */
  width?: number;
  /** Target height in px, 1–4096; undefined keeps the aspect ratio from `width` (or the source height). */
  height?: number;
  /** Only meaningful when both sides are given; `cover` otherwise. */
  fit: ImageFit;
  format: ImageFormat;
  /** Encoder quality 1–100 for lossy formats (webp, avif, jpeg); undefined for png and gif. */
  quality?: number;
}

/** The result of one transformation, held in memory (bounded by the concurrency limit). */
export interface TransformedImage {
  bytes: Uint8Array;
  /** MIME type of `bytes`, e.g. `image/webp`. */
  contentType: string;
  /** Output size in px (of one frame for animations). */
  width: number;
  height: number;
}

/**
 * Port: decodes an image, applies its EXIF orientation, resizes and re-encodes it without
 * metadata (no EXIF, XMP or GPS; ICC converted to sRGB). Never enlarges the source. Animated GIF
 * and WebP sources stay animated when the output is WebP or GIF, and become their first frame
 * otherwise. Output for the same source, transform and {@link ImageTransformer.version} is the
 * same bytes (derived images are cached under a key that includes the version).
 */
export interface ImageTransformer {
  /** Identifies the encoder build, as `[0-9A-Za-z_]+`; a new version means new derived images. */
  readonly version: string;
  /**
   * Reads `source` whole (the caller bounds concurrency) and returns the transformed image.
   * @throws DomainError IMAGE_TOO_LARGE (422) when the source has more pixels than the adapter
   *         decodes (checked from the header, before decoding); IMAGE_UNREADABLE (422) when the
   *         source is not a decodable image; the source's own error when reading it fails
   */
  transform(options: { source: AsyncIterable<Uint8Array>; transform: ImageTransform }): Promise<TransformedImage>;
}
