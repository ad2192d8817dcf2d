import { type CustomDomain, isVerified } from '../domains/custom-domain.js';
import type { CustomDomainRepository } from '../domains/custom-domain-repository.js';
import type { FileOptions } from './file-options.js';
import { type FileUrls, fileUrls } from './file-urls.js';
import type { StoredFile } from './stored-file.js';
import type { FileReadCounts } from './file-read-counts.js';
import { type MediaFacts, type MediaFactsRepository, NO_MEDIA_FACTS } from '../media/media-facts.js';

/** A file record with its addresses, as the file use cases return it. */
export interface FileView {
  file: StoredFile;
  urls: FileUrls;
  /** Width, height, duration and thumbhash (docs/media.md); absent means all unknown. */
  media?: MediaFacts;
}

/**
 * Resolves the addresses of an account's files: `public_url`/`public_download_url` use the
 * account's custom domain once verified (`https://<hostname>`), the default ones stay on {cdn_url}.
 */
export class FileAddresses {
  /**
   * @param deps.counts reads not yet written are added to the files' counts (FileReadCounts.withPending)
   * @param deps.media where the files' media facts are read (one read per call); absent: every fact null
   */
  constructor(
    private readonly deps: {
      domains: CustomDomainRepository;
      options: Pick<FileOptions, 'publicContentUrl'>;
      counts?: FileReadCounts;
      media?: MediaFactsRepository;
    },
  ) {}

  /** The public URL base for an account with `domain` (spec 2.5 `public_url_base`). */
  baseFor(domain: CustomDomain | undefined): string {
    return domain && isVerified(domain) ? `https://${domain.hostname}` : this.deps.options.publicContentUrl;
  }

  /**
   * Pairs each file of one account with its addresses (one lookup of the account's domain) and its
   * media facts (one batch read for all of them). `options.fresh`: the files were stored just now,
   * before any probe could finish, so their facts are null without a read (the upload's answer).
   */
  async views(userId: string, files: StoredFile[], options: { fresh?: boolean } = {}): Promise<FileView[]> {
    const media = this.deps.media;
    const [domain, facts] =
      files.length === 0
        ? [undefined, undefined]
        : await Promise.all([this.deps.domains.findByUser(userId), media && !options.fresh ? media.findMany(files.map((file) => file.id)) : undefined]);
    const bases = { publicUrlBase: this.baseFor(domain), defaultBase: this.deps.options.publicContentUrl };
    const counts = this.deps.counts;
    return files.map((file) => ({ file: counts ? counts.withPending(file) : file, urls: fileUrls(file, bases), media: facts?.get(file.id) ?? NO_MEDIA_FACTS }));
  }
}
