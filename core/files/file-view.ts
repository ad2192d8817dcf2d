import { type CustomDomain, isVerified } from '../domains/custom-domain.js';
import type { CustomDomainRepository } from '../domains/custom-domain-repository.js';
import type { FileOptions } from './file-options.js';
import { type FileUrls, fileUrls } from './file-urls.js';
import type { StoredFile } from './stored-file.js';
import type { FileReadCounts } from './file-read-counts.js';

/** A file record with its addresses, as the file use cases return it. */
export interface FileView {
  file: StoredFile;
  urls: FileUrls;
}

/**
 * Resolves the addresses of an account's files: `public_url`/`public_download_url` use the
 * account's custom domain once verified (`https://<hostname>`), the default ones stay on {cdn_url}.
 */
export class FileAddresses {
  /** @param deps.counts reads not yet written are added to the files' counts (FileReadCounts.withPending) */
  constructor(private readonly deps: { domains: CustomDomainRepository; options: Pick<FileOptions, 'publicContentUrl'>; counts?: FileReadCounts }) {}

  /** The public URL base for an account with `domain` (spec 2.5 `public_url_base`). */
  baseFor(domain: CustomDomain | undefined): string {
    return domain && isVerified(domain) ? `https://${domain.hostname}` : this.deps.options.publicContentUrl;
  }

  /** Pairs each file of one account with its addresses (one lookup of the account's domain). */
  async views(userId: string, files: StoredFile[]): Promise<FileView[]> {
    const domain = files.length === 0 ? undefined : await this.deps.domains.findByUser(userId);
    const bases = { publicUrlBase: this.baseFor(domain), defaultBase: this.deps.options.publicContentUrl };
    const counts = this.deps.counts;
    return files.map((file) => ({ file: counts ? counts.withPending(file) : file, urls: fileUrls(file, bases) }));
  }
}
