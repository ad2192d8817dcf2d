/** The account's settings (spec 2.5). */
export interface Settings {
  /** Base of the account's public addresses: its verified custom domain, else {cdn_url}. */
  publicUrlBase: string;
  /** Always null until the custom-domain issue lands. */
  customDomain: null;
  /** Bytes. */
  maxUploadSizeBytes: number;
}
