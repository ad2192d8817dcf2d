import type { StoredFile } from './stored-file.js';

/** The five addresses of a file (spec 2.4); all null for a private file, which has no public address. */
export interface FileUrls {
  /** `{base}/m/<file_id>`: view (inline). */
  publicUrl: string | null;
  /** `{base}/d/<file_id>`: download (attachment). */
  publicDownloadUrl: string | null;
  /** `{cdn_url}/m/<file_id>`. */
  defaultUrl: string | null;
  /** `{cdn_url}/d/<file_id>`. */
  defaultDownloadUrl: string | null;
  /** `{base}/v/<file_id>`: the link preview page (OpenGraph and oEmbed, docs/media.md). */
  viewUrl: string | null;
}

/** The addresses of every private file: none (frozen, shared). */
export const NO_FILE_URLS: Readonly<FileUrls> = Object.freeze({
  publicUrl: null,
  publicDownloadUrl: null,
  defaultUrl: null,
  defaultDownloadUrl: null,
  viewUrl: null,
});

/**
 * Builds a file's addresses. `publicUrlBase` is the account's public base (its verified custom
 * domain, else {cdn_url}); `defaultBase` is always {cdn_url}. A private file gets {@link NO_FILE_URLS}.
 */
export function fileUrls(file: Pick<StoredFile, 'fileId' | 'isPublic'>, bases: { publicUrlBase: string; defaultBase: string }): Readonly<FileUrls> {
  if (!file.isPublic) return NO_FILE_URLS;
  return {
    publicUrl: `${bases.publicUrlBase}/m/${file.fileId}`,
    publicDownloadUrl: `${bases.publicUrlBase}/d/${file.fileId}`,
    defaultUrl: `${bases.defaultBase}/m/${file.fileId}`,
    defaultDownloadUrl: `${bases.defaultBase}/d/${file.fileId}`,
    viewUrl: `${bases.publicUrlBase}/v/${file.fileId}`,
  };
}
