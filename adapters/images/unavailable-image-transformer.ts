import { DomainError } from '../../core/shared/errors.js';
import type { ImageTransform, ImageTransformer, TransformedImage } from '../../core/images/image-transformer.js';

/**
 * {@link ImageTransformer} of a host without an image library (the in-memory kit,
 * `adapters/memory-ports`): every transformation is refused with NOT_IMPLEMENTED (501), without reading
 * the source. Files themselves are still served whole; only `w`, `h`, `fit`, `format` and `q`
 * (docs/images.md) and owner thumbnails are unavailable. Returning the original bytes instead was
 * rejected: the port promises the asked format and size, and a derived image is cached under the
 * transform, so a stand-in would be served as if it were the real one.
 */
export class UnavailableImageTransformer implements ImageTransformer {
  readonly version = 'unavailable';

  /** @throws DomainError NOT_IMPLEMENTED (501), always */
  async transform(_options: { source: AsyncIterable<Uint8Array>; transform: ImageTransform }): Promise<TransformedImage> {
    throw new DomainError(
      'NOT_IMPLEMENTED',
      'Image transformations are not available on this server (no image library is configured); ask for the file without transform parameters.',
    );
  }
}
