/** Service-wide file settings the use cases need (parsed from configuration by the host). */
export interface FileOptions {
  /** {cdn_url}: absolute URL of the content server, no trailing slash. */
  publicContentUrl: string;
  /**
   * Further hostnames the content server answers as itself (`CONTENT_HOSTS`, e.g. the name a reverse
   * proxy uses), besides the content URL's host and loopback names (localhost, 127.0.0.1, [::1]).
   */
  contentHosts?: readonly string[];
  /** MIME types allowed for upload. */
  allowedContentTypes: readonly string[];
  /** An account's upload limit in bytes until it sets its own (`DEFAULT_MAX_UPLOAD_SIZE_BYTES`); never above its plan's ceiling. */
  defaultMaxUploadSizeBytes: number;
}

/** Default of `DEFAULT_MAX_UPLOAD_SIZE_BYTES`: 100 MiB. */
export const DEFAULT_MAX_UPLOAD_SIZE_BYTES = 100 * 1024 * 1024;
