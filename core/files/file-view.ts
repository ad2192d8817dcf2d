import type { FileOptions } from './file-options.js';
import { type FileUrls, fileUrls } from './file-urls.js';
import type { StoredFile } from './stored-file.js';

/** A file record with its addresses, as the file use cases return it. */
export interface FileView {
  file: StoredFile;
  urls: FileUrls;
}

/**
 * Resolves the addresses of an account's files. Until custom domains exist (their own issue),
 * the public base is {cdn_url} for every account.
 */
export class FileAddresses {
  constructor(private readonly options: Pick<FileOptions, 'publicContentUrl'>) {}

  /** The account's public URL base (spec 2.5 `public_url_base`). */
  async publicUrlBase(_userId: string): Promise<string> {
    return this.options.publicContentUrl;
  }

  /** Pairs each file of one account with its addresses. */
  async views(userId: string, files: StoredFile[]): Promise<FileView[]> {
    const bases = { publicUrlBase: await this.publicUrlBase(userId), defaultBase: this.options.publicContentUrl };
    return files.map((file) => ({ file, urls: fileUrls(file, bases) }));
  }
}
