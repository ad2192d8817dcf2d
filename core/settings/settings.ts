import type { CustomDomain } from '../domains/custom-domain.js';
import type { ImageMetadataMode } from '../files/image-metadata/image-metadata-mode.js';

/** The account's settings (spec 2.5). */
export interface Settings {
  /** Base of the account's public addresses: `https://<custom domain>` once verified, else {cdn_url}. */
  publicUrlBase: string;
  /** The account's custom domain, or null. */
  customDomain: CustomDomain | null;
  /** Bytes. */
  maxUploadSizeBytes: number;
  /** What uploads of images keep of their metadata (docs/image-metadata.md). */
  imageMetadata: ImageMetadataMode;
}
