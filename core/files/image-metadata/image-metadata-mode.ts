/**
 * What an upload of an image keeps of its metadata (issue #63, docs/image-metadata.md), an account
 * setting (`image_metadata` in `GET`/`PATCH /settings`):
 * - `strip_location`: the GPS position is removed (EXIF GPS, XMP GPS properties); everything else stays.
 * - `strip_all`: EXIF, XMP, IPTC and comments are removed (colour profiles stay, so colours do not change).
 * - `keep`: the bytes are stored as uploaded.
 */
export const IMAGE_METADATA_MODES = ['strip_location', 'strip_all', 'keep'] as const;
/** One of {@link IMAGE_METADATA_MODES}. */
export type ImageMetadataMode = (typeof IMAGE_METADATA_MODES)[number];
/** The mode of an account that never chose one. */
export const DEFAULT_IMAGE_METADATA_MODE: ImageMetadataMode = 'strip_location';

/** True when `value` is one of {@link IMAGE_METADATA_MODES}. */
export function isImageMetadataMode(value: unknown): value is ImageMetadataMode {
  return typeof value === 'string' && (IMAGE_METADATA_MODES as readonly string[]).includes(value);
}

/**
 * What was taken out of a stored image, the File's `metadata_removed` (docs/image-metadata.md):
 * `location` (GPS position data), `exif` (the rest of the EXIF data), `xmp`, `iptc`, `comment`
 * (JPEG comments, PNG text chunks).
 */
export const METADATA_KINDS = ['location', 'exif', 'xmp', 'iptc', 'comment'] as const;
/** One of {@link METADATA_KINDS}. */
export type MetadataKind = (typeof METADATA_KINDS)[number];

/** The kinds in `kinds` once each, in the order of {@link METADATA_KINDS}. */
export function orderedKinds(kinds: Iterable<MetadataKind>): MetadataKind[] {
  const set = new Set(kinds);
  return METADATA_KINDS.filter((kind) => set.has(kind));
}
