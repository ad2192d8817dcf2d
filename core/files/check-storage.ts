import type { Clock } from '../shared/clock.js';
import type { BlobEntry, BlobStore } from './blob-store.js';
import { blobRoleOf, isLiveBlob } from './blob-ownership.js';
import type { FileRepository } from './file-repository.js';
import type { StoredFile } from './stored-file.js';

/** Input of {@link CheckStorage}. */
export interface CheckStorageInput {
  /** Remove orphan blobs (and, where the store has them, abandoned temp files); otherwise only report. */
  repair: boolean;
  /**
   * Milliseconds: blobs and temp files younger than this are never counted as orphans, so uploads
   * in flight (blob stored, record not yet written) are never touched. At least the longest time
   * between a blob's link and its record's commit; the CLI's default is an hour.
   */
  graceMs: number;
}

/** One file record as the report shows it. */
export interface RecordSummary {
  fileId: string;
  userId: string;
  blobKey: string;
  /** Bytes, as the record says. */
  size: number;
}

/** What {@link CheckStorage} found (and, with `repair`, did). Lists stop at {@link REPORT_LIST_LIMIT} entries; counts are exact. */
export interface StorageReport {
  blobsChecked: number;
  recordsChecked: number;
  /** Blobs older than the grace period that no record owns. With `repair`, each was removed. */
  orphanBlobs: { count: number; bytes: number; items: BlobEntry[] };
  /** Orphan blobs that could not be removed (the store failed); they stay for the next run. */
  repairFailures: number;
  /** Blobs without a record that are younger than the grace period (uploads in flight): left alone. */
  youngBlobsSkipped: number;
  /** Blobs whose key has no known shape: never removed, reported for a person to look at. */
  unrecognisedBlobs: { count: number; items: string[] };
  /** Records whose blob is missing: a file that answers 404 on reads. Nothing can repair these. */
  recordsWithoutBlob: { count: number; items: RecordSummary[] };
  /** Records whose blob has another size than recorded (a damaged or truncated blob). */
  sizeMismatches: { count: number; items: Array<RecordSummary & { blobSize: number }> };
  /** With `repair`: abandoned temp files removed (stores that write through temp files). */
  tempFilesRemoved: number;
  /** True when nothing is wrong after this run: no orphan left, no record without its blob, no size mismatch. */
  clean: boolean;
}

/** Most entries each list of a report holds; the counts go on. */
export const REPORT_LIST_LIMIT = 1_000;
/** Records read per page, and blobs checked at once. */
const SCAN_PAGE = 500;
const STAT_CONCURRENCY = 16;

/**
 * The reconciler behind `npm run cli -- fsck [--repair]` (docs/reliability.md): bounds
 * what crashes and failed clean-ups can leave behind.
 *
 * 1. Every blob is listed; one older than `graceMs` that no record owns ({@link isLiveBlob}:
 *    a file's blob, or a derived blob of a live file) is an orphan, removed with `repair`. Before
 *    removing, the record is looked up once more.
 * 2. Every record is read (in pages, by id) and its blob looked up: a missing blob, or one of
 *    another size, is reported (no repair: the bytes are gone).
 * 3. With `repair`, abandoned temp files older than `graceMs` are swept, where the store has them.
 *
 * Safe while servers run: memory stays bounded (pages, capped lists), uploads in flight are
 * protected by the grace period, and a record deleted while it is checked is not reported.
 * @throws DomainError BLOB_STORE_UNAVAILABLE, DATABASE_UNAVAILABLE (503) when a store fails midway
 */
export class CheckStorage {
  constructor(private readonly deps: { files: FileRepository; blobs: BlobStore; clock: Clock }) {}

  async execute(input: CheckStorageInput): Promise<StorageReport> {
    const report: StorageReport = {
      blobsChecked: 0,
      recordsChecked: 0,
      orphanBlobs: { count: 0, bytes: 0, items: [] },
      repairFailures: 0,
      youngBlobsSkipped: 0,
      unrecognisedBlobs: { count: 0, items: [] },
      recordsWithoutBlob: { count: 0, items: [] },
      sizeMismatches: { count: 0, items: [] },
      tempFilesRemoved: 0,
      clean: false,
    };
    const cutoff = this.deps.clock.now().getTime() - input.graceMs;
    await this.checkBlobs(input.repair, cutoff, report);
    await this.checkRecords(report);
    if (input.repair && this.deps.blobs.sweepTempFiles) report.tempFilesRemoved = await this.deps.blobs.sweepTempFiles(input.graceMs);
    const orphansLeft = input.repair ? report.repairFailures : report.orphanBlobs.count;
    report.clean = orphansLeft === 0 && report.recordsWithoutBlob.count === 0 && report.sizeMismatches.count === 0;
    return report;
  }

  private async checkBlobs(repair: boolean, cutoff: number, report: StorageReport): Promise<void> {
    let batch: BlobEntry[] = [];
    const flush = async () => {
      await Promise.all(batch.map((entry) => this.checkBlob(entry, repair, cutoff, report)));
      batch = [];
    };
    for await (const entry of this.deps.blobs.list()) {
      report.blobsChecked += 1;
      batch.push(entry);
      if (batch.length >= STAT_CONCURRENCY) await flush();
    }
    await flush();
  }

  private async checkBlob(entry: BlobEntry, repair: boolean, cutoff: number, report: StorageReport): Promise<void> {
    const role = blobRoleOf(entry.key);
    if (role.kind === 'unknown') {
      report.unrecognisedBlobs.count += 1;
      capped(report.unrecognisedBlobs.items, entry.key);
      return;
    }
    if (isLiveBlob(entry.key, role, await this.deps.files.findByFileId(role.fileId))) return;
    if (entry.modifiedAt.getTime() > cutoff) {
      report.youngBlobsSkipped += 1;
      return;
    }
    // Looked up again right before removing: a record may have appeared since the first look.
    if (repair && isLiveBlob(entry.key, role, await this.deps.files.findByFileId(role.fileId))) return;
    report.orphanBlobs.count += 1;
    report.orphanBlobs.bytes += entry.size;
    capped(report.orphanBlobs.items, entry);
    if (!repair) return;
    try {
      await this.deps.blobs.delete(entry.key);
    } catch {
      report.repairFailures += 1;
    }
  }

  private async checkRecords(report: StorageReport): Promise<void> {
    let afterId: string | undefined;
    for (;;) {
      const page = await this.deps.files.scan({ afterId, limit: SCAN_PAGE });
      if (page.length === 0) return;
      for (let i = 0; i < page.length; i += STAT_CONCURRENCY) {
        await Promise.all(page.slice(i, i + STAT_CONCURRENCY).map((record) => this.checkRecord(record, report)));
      }
      report.recordsChecked += page.length;
      afterId = page[page.length - 1].id;
    }
  }

  private async checkRecord(record: StoredFile, report: StorageReport): Promise<void> {
    const blob = await this.deps.blobs.stat(record.blobKey);
    if (blob && blob.size === record.size) return;
    // Deleted while we looked (records go first, then blobs): not a problem.
    const current = await this.deps.files.findByFileId(record.fileId);
    if (!current || current.id !== record.id) return;
    const summary: RecordSummary = { fileId: record.fileId, userId: record.userId, blobKey: record.blobKey, size: record.size };
    if (!blob) {
      report.recordsWithoutBlob.count += 1;
      capped(report.recordsWithoutBlob.items, summary);
    } else {
      report.sizeMismatches.count += 1;
      capped(report.sizeMismatches.items, { ...summary, blobSize: blob.size });
    }
  }
}

function capped<T>(items: T[], item: T): void {
  if (items.length < REPORT_LIST_LIMIT) items.push(item);
}
