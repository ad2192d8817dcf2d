import { type CustomDomain, isVerified } from '../domains/custom-domain.js';
import type { CustomDomainRepository } from '../domains/custom-domain-repository.js';
import type { FileOptions } from './file-options.js';
import { type FileUrls, fileUrls, NO_FILE_URLS } from './file-urls.js';
import type { StoredFile } from './stored-file.js';
import type { FileReadCounts } from './file-read-counts.js';
import { type MediaFacts, type MediaFactsRepository, NO_MEDIA_FACTS } from '../media/media-facts.js';

/** A file record with its addresses, as the file use cases return it. */
export interface FileView {
  file: StoredFile;
  /** Frozen: the same object may be handed to several callers (see {@link FileAddresses}). */
  urls: Readonly<FileUrls>;
  /** Width, height, duration and thumbhash (docs/media.md); absent means all unknown. */
  media?: MediaFacts;
}

/** Files whose addresses one {@link FileAddresses} keeps at most (all dropped at once when full). */
export const KEPT_FILE_ADDRESSES = 2_048;

/** The addresses of one file as {@link FileAddresses} keeps them, with the bases they were built from. */
interface KeptAddresses {
  publicUrlBase: string;
  defaultBase: string;
  urls: Readonly<FileUrls>;
}

/**
 * Resolves the addresses of an account's files: `public_url`/`public_download_url` use the
 * account's custom domain once verified (`https://<hostname>`), the default ones stay on {cdn_url}.
 *
 * The addresses of a public file are kept by its file id (up to {@link KEPT_FILE_ADDRESSES}) with
 * the two bases they were built from, and handed out again, frozen, while those bases are the
 * same: a file's addresses depend on nothing else (its file id never changes; a private file gets
 * {@link NO_FILE_URLS}), so a kept one is never stale, in this process or any other. A listing
 * asked again then carries the very strings the JSON writer kept its text for, which it compares
 * by identity instead of character by character (`fileJsonText`, apps/http/presenters).
 */
export class FileAddresses {
  private readonly kept = new Map<string, KeptAddresses>();

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
   * Reads file records with `read` and adds this process's reads not yet written to their counts,
   * each read counted once (FileReadCounts.current; without counts, `read` as it is). `read` may
   * run several times (it must only read).
   * @throws what `read` throws
   */
  current<T>(read: () => Promise<T>, apply: (result: T, withPending: (file: StoredFile) => StoredFile) => T): Promise<T> {
    return this.deps.counts ? this.deps.counts.current(read, apply) : read();
  }

  /**
   * {@link current} for a read of at most one file (`findByFileId`): the file with its counts
   * complete, or undefined when `read` finds none. @throws what `read` throws
   */
  currentFile(read: () => Promise<StoredFile | undefined>): Promise<StoredFile | undefined> {
    return this.current(read, (found, withPending) => found && withPending(found));
  }

  /**
   * Pairs each file of one account with its addresses (one lookup of the account's domain) and its
   * media facts (one batch read for all of them). `options.fresh`: the files were stored just now,
   * before any probe could finish, so their facts are null without a read (the upload's answer).
   * The files' read counts are shown as given: a file read now comes from {@link current}, which
   * adds this process's reads not yet written; a webhook event's file is the snapshot taken when
   * the event happened; a file stored just now has none.
   */
  async views(userId: string, files: StoredFile[], options: { fresh?: boolean } = {}): Promise<FileView[]> {
    const media = this.deps.media;
    const [domain, facts] =
      files.length === 0
        ? [undefined, undefined]
        : await Promise.all([this.deps.domains.findByUser(userId), media && !options.fresh ? media.findMany(files.map((file) => file.id)) : undefined]);
    const bases = { publicUrlBase: this.baseFor(domain), defaultBase: this.deps.options.publicContentUrl };
    return files.map((file) => ({
      file,
      urls: this.urlsOf(file, bases),
      media: facts?.get(file.id) ?? NO_MEDIA_FACTS,
    }));
  }

  /** {@link fileUrls} of `file` on `bases`: the kept object when it was built from the same bases. */
  private urlsOf(file: StoredFile, bases: { publicUrlBase: string; defaultBase: string }): Readonly<FileUrls> {
    if (!file.isPublic) return NO_FILE_URLS;
    const kept = this.kept.get(file.fileId);
    if (kept !== undefined && kept.publicUrlBase === bases.publicUrlBase && kept.defaultBase === bases.defaultBase) return kept.urls;
    const urls = Object.freeze(fileUrls(file, bases));
    if (this.kept.size >= KEPT_FILE_ADDRESSES) this.kept.clear();
    this.kept.set(file.fileId, { ...bases, urls });
    return urls;
  }
}
