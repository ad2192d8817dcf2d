import type { FileRepository } from './file-repository.js';
import { FlushQueue } from '../shared/flush-queue.js';
import type { StoredFile } from './stored-file.js';

/** How a read was served: inline (a view) or as an attachment (a download). */
export type ReadKind = 'view' | 'download';

type Counts = { views: number; downloads: number };

/** Reads of the files {@link FileReadCounts.current} makes at most while writes of the counts keep overlapping them. */
const FILE_READ_ATTEMPTS = 5;

/**
 * Counts each file's reads (docs/private-files.md, `view_count` / `download_count`) in memory and writes them
 * in batches, as UsageMeter does for `origin_reads`: `record` is synchronous and O(1), the host
 * calls {@link flush} every few seconds and at shutdown. A failed flush puts its counts back, so
 * nothing is lost while the process lives. Several processes each keep their own buffer and add
 * into the same rows; {@link withPending} shows this process's unwritten reads at once.
 */
export class FileReadCounts {
  private pending = new Map<string, Counts>();
  /** The batch being written: still shown by {@link withPending} until the write succeeds. */
  private inFlight = new Map<string, Counts>();
  private readonly flushes = new FlushQueue(() => this.write());

  constructor(private readonly deps: { files: FileRepository }) {}

  /** Counts one read of the file with public id `fileId`. */
  record(fileId: string, kind: ReadKind): void {
    let counts = this.pending.get(fileId);
    if (!counts) {
      counts = { views: 0, downloads: 0 };
      this.pending.set(fileId, counts);
    }
    if (kind === 'view') counts.views += 1;
    else counts.downloads += 1;
  }

  /**
   * Runs `read` (a read of file records) when no write of these counts overlaps it, and adds this
   * process's reads not yet written to its files in the same synchronous step (`apply` maps the
   * result's files with the function it is given), so each read is counted once: a batch stays in
   * the unwritten counts until its write has ended, while the database shows it from its commit on
   * (FlushQueue.readBetweenWrites; as UsageMeter.countsFor does for `origin_reads`). `read` may run
   * several times (it must only read).
   * @throws what `read` throws
   */
  async current<T>(read: () => Promise<T>, apply: (result: T, withPending: (file: StoredFile) => StoredFile) => T): Promise<T> {
    const result = await this.flushes.readBetweenWrites(read, FILE_READ_ATTEMPTS);
    return apply(result, (file) => this.withPending(file));
  }

  /**
   * `file` with this process's reads not yet written added to its counts (a copy when there are
   * any). A file read while a write of the counts was under way may show that batch twice for a
   * moment: read with {@link current} where that matters.
   */
  withPending(file: StoredFile): StoredFile {
    const pending = this.pending.get(file.fileId);
    const inFlight = this.inFlight.get(file.fileId);
    if (!pending && !inFlight) return file;
    return {
      ...file,
      viewCount: file.viewCount + (pending?.views ?? 0) + (inFlight?.views ?? 0),
      downloadCount: file.downloadCount + (pending?.downloads ?? 0) + (inFlight?.downloads ?? 0),
    };
  }

  /**
   * Writes what is recorded when the write starts, in one batch (see FlushQueue: reads recorded
   * meanwhile wait for the next flush). @throws the repository's error (counts are kept)
   */
  flush(): Promise<void> {
    return this.flushes.flush();
  }

  private async write(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    this.inFlight = batch;
    try {
      await this.deps.files.addReadCounts([...batch].map(([fileId, counts]) => ({ fileId, views: counts.views, downloads: counts.downloads })));
    } catch (error) {
      for (const [fileId, counts] of batch) {
        const current = this.pending.get(fileId);
        if (current) {
          current.views += counts.views;
          current.downloads += counts.downloads;
        } else {
          this.pending.set(fileId, counts);
        }
      }
      throw error;
    } finally {
      this.inFlight = new Map();
    }
  }
}
