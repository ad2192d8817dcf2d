import type { UserRepository } from '../accounts/user-repository.js';
import { servesFilesOf } from './serving-owner.js';
import { isVerified } from '../domains/custom-domain.js';
import type { HostnameDirectory } from '../domains/hostname-directory.js';
import type { UsageMeter } from '../plans/usage-meter.js';
import { DomainError } from '../shared/errors.js';
import type { BlobReadOptions, BlobStore, ByteRange } from './blob-store.js';
import type { FileRepository } from './file-repository.js';
import { fileNotFound } from './get-file.js';
import type { Clock } from '../shared/clock.js';
import type { FileReadCounts, ReadKind } from './file-read-counts.js';
import { hasExpired, isFileId, type StoredFile } from './stored-file.js';

/** A public file ready to be served: its record and a way to open its bytes. */
export interface PublicFile {
  file: StoredFile;
  /**
   * Opens the bytes, whole or an inclusive range already checked against `file.size`, as
   * {@link BlobStore.get} does (`options.borrowChunks`: chunks are only lent, see {@link BlobReadOptions}).
   * @throws DomainError FILE_NOT_FOUND when the blob has gone, BLOB_STORE_UNAVAILABLE
   */
  open: (range?: ByteRange, options?: BlobReadOptions) => Promise<AsyncIterable<Uint8Array>>;
}

/**
 * Finds a file for the public addresses `/m/:file_id` and `/d/:file_id` and counts one origin read
 * for its account (every GET or HEAD that finds it: whole, range or 304 alike; spec 2.6). A private
 * file, and an expired one (until the sweep removes it), are answered exactly like a missing one. On one of the content server's own hosts
 * (`contentHosts`: the content URL's host, loopback names, `CONTENT_HOSTS`) every public file is
 * served; on a verified custom hostname only its account's files; on any other host nothing.
 * @throws DomainError FILE_NOT_FOUND (404)
 */
export class ReadPublicFile {
  private readonly contentHosts: ReadonlySet<string>;

  constructor(
    private readonly deps: {
      files: FileRepository;
      users: Pick<UserRepository, 'findById'>;
      blobs: BlobStore;
      meter: UsageMeter;
      directory: HostnameDirectory;
      clock: Clock;
      contentHosts: readonly string[];
      /** The files' read counts (`view_count`, `download_count`); not counted when absent. */
      counts?: FileReadCounts;
    },
  ) {
    this.contentHosts = new Set(deps.contentHosts.map((host) => host.toLowerCase()));
  }

  /** @param input.host the request's `Host`, lower-case, without port; omitted for the content URL */
  /** @param input.kind what the read counts as in the file's counts (FileReadCounts); default `view` */
  /** @param input.count false: find the file without counting a read (the link preview page, which serves no bytes); default true */
  async execute(input: { fileId: string; host?: string; kind?: ReadKind; count?: boolean }): Promise<PublicFile> {
    const onCustomHost = input.host !== undefined && !this.contentHosts.has(input.host);
    const [file, domain] = await Promise.all([
      isFileId(input.fileId) ? this.deps.files.findByFileId(input.fileId) : undefined,
      onCustomHost ? this.deps.directory.lookup(input.host!) : undefined,
    ]);
    if (!file || !file.isPublic || hasExpired(file, this.deps.clock.now())) throw fileNotFound();
    if (onCustomHost && (!domain || !isVerified(domain) || domain.userId !== file.userId)) throw fileNotFound();
    if (!(await servesFilesOf(this.deps.users, file.userId))) throw fileNotFound();
    if (input.count !== false) {
      this.deps.meter.recordRead(file.userId);
      this.deps.counts?.record(file.fileId, input.kind ?? 'view');
    }
    return {
      file,
      open: async (range, options) => {
        const body = await this.deps.blobs.get(file.blobKey, range, options);
        if (!body) throw new DomainError('FILE_NOT_FOUND', 'The file’s contents are missing.');
        return body;
      },
    };
  }
}
