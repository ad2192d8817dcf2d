import type { CustomDomain } from '../domains/custom-domain.js';

/** The account's settings (spec 2.5). */
export interface Settings {
  /** Base of the account's public addresses: `https://<custom domain>` once verified, else {cdn_url}. */
  publicUrlBase: string;
  /** The account's custom domain, or null. */
  customDomain: CustomDomain | null;
  /** Bytes. */
  maxUploadSizeBytes: number;
}
