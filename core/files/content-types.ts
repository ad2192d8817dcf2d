import { DomainError } from '../shared/errors.js';

/**
 * The built-in list of MIME types allowed for upload (spec 8 leaves it open): common images,
 * video, audio, PDF and plain text formats. Replaced as a whole by `ALLOWED_CONTENT_TYPES`.
 */
export const DEFAULT_ALLOWED_CONTENT_TYPES: readonly string[] = [
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'image/avif',
  'image/svg+xml',
  'image/bmp',
  'image/tiff',
  'image/x-icon',
  'image/heic',
  'video/mp4',
  'video/webm',
  'video/quicktime',
  'video/ogg',
  'video/x-matroska',
  'audio/mpeg',
  'audio/ogg',
  'audio/wav',
  'audio/webm',
  'audio/flac',
  'audio/aac',
  'audio/mp4',
  'application/pdf',
  'application/zip',
  'application/json',
  'text/plain',
  'text/csv',
  'text/markdown',
];

/**
 * Reduces a Content-Type header to its media type: parameters dropped, lower-cased
 * (`Image/PNG; charset=x` → `image/png`, RFC 9110 §8.3.1).
 * @returns undefined when the value is not `type/subtype`
 */
export function mediaTypeOf(header: string | undefined): string | undefined {
  const type = (header ?? '').split(';')[0].trim().toLowerCase();
  return /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/.test(type) ? type : undefined;
}

/**
 * The set of allowed upload types (spec 4.8). Membership is exact on the media type.
 */
export class ContentTypePolicy {
  private readonly allowed: ReadonlySet<string>;

  constructor(readonly types: readonly string[]) {
    this.allowed = new Set(types.map((t) => t.toLowerCase()));
  }

  /**
   * @returns the normalised media type
   * @throws DomainError CONTENT_TYPE_NOT_ALLOWED (400)
   */
  checkUpload(header: string | undefined): string {
    const type = mediaTypeOf(header);
    if (type === undefined || !this.allowed.has(type)) {
      throw new DomainError('CONTENT_TYPE_NOT_ALLOWED', `Content-Type ${type ?? '(missing)'} is not allowed; see GET /reference/allowed-content-types.`, {
        allowed: this.types,
      });
    }
    return type;
  }

  /** True when `type` (already a media type) is allowed. */
  has(type: string): boolean {
    return this.allowed.has(type.toLowerCase());
  }
}
