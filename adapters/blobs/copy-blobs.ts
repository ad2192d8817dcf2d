import { createHash } from 'node:crypto';
import type { BlobStore } from '../../core/files/blob-store.js';
import type { FileRepository } from '../../core/files/file-repository.js';
import type { StoredFile } from '../../core/files/stored-file.js';

/** How far a {@link copyBlobs} run has got: counts of file records and bytes (of the records' sizes). */
export interface BlobCopyProgress {
  /** Records the run will go through, and their bytes (counted before the copy starts). */
  totalFiles: number;
  totalBytes: number;
  /** Records dealt with so far (copied, found already there, or a problem), and their bytes. */
  doneFiles: number;
  doneBytes: number;
  copied: number;
  /** Already in the target with the recorded size and SHA-256 (a run resumed after an interruption). */
  alreadyThere: number;
  problems: number;
}

/** One record whose blob could not be copied, and why. */
export interface BlobCopyProblem {
  fileId: string;
  blobKey: string;
  reason: 'missing in the source' | 'the source bytes differ from the record' | 'the target holds different bytes' | 'the store failed';
  detail?: string;
}

/** What {@link copyBlobs} did. */
export interface BlobCopyReport extends BlobCopyProgress {
  /** At most {@link PROBLEM_LIST_LIMIT} of them; `problems` counts them all. */
  problemItems: BlobCopyProblem[];
}

/** Most problems a report lists (the count goes on). */
export const PROBLEM_LIST_LIMIT = 1_000;
/** Records read per page. */
const SCAN_PAGE = 500;

/**
 * Copies the blob of every file record from one blob store to another (`npm run cli -- blobs copy
 * --to …`, docs/s3.md), verifying each copy, so the operator can then switch BLOB_STORE_URL.
 *
 * For each record (`files.scan`, in pages): when the target already has the key, its bytes are read
 * back and kept if their size and SHA-256 are the record's (a resumed run skips what an interrupted
 * one copied: a blob appears in a store only once complete), and reported as a problem otherwise
 * (nothing is ever replaced). Otherwise the source blob is streamed into the target (`put` with the
 * record's size as `maxBytes`), and the size and SHA-256 the target counted are compared with the
 * record's; a mismatch removes the copy and is reported. Memory: `concurrency` bodies in flight,
 * each bounded by the stores' own buffers. Derived blobs (image variants) are not copied: they are
 * made again on demand.
 *
 * A failure of either store on one record is reported as a problem of that record and the run goes
 * on; rerunning copies what is left.
 * @param options.concurrency records copied at once (default 4)
 * @param options.onProgress called after each record, and once before the first with the totals
 * @returns counts, and the problems found (the operator must look at each before switching stores)
 * @throws whatever `files.scan` throws (the database is unreachable)
 */
export async function copyBlobs(options: {
  files: FileRepository;
  from: BlobStore;
  to: BlobStore;
  concurrency?: number;
  onProgress?: (progress: BlobCopyProgress) => void;
}): Promise<BlobCopyReport> {
  const { files, from, to, onProgress } = options;
  const concurrency = Math.max(1, options.concurrency ?? 4);
  const report: BlobCopyReport = { totalFiles: 0, totalBytes: 0, doneFiles: 0, doneBytes: 0, copied: 0, alreadyThere: 0, problems: 0, problemItems: [] };
  for await (const page of pages(files)) {
    report.totalFiles += page.length;
    report.totalBytes += page.reduce((sum, file) => sum + file.size, 0);
  }
  onProgress?.(progressOf(report));

  const problem = (file: StoredFile, reason: BlobCopyProblem['reason'], detail?: string) => {
    report.problems += 1;
    if (report.problemItems.length < PROBLEM_LIST_LIMIT)
      report.problemItems.push({ fileId: file.fileId, blobKey: file.blobKey, reason, ...(detail ? { detail } : {}) });
  };

  const copyOne = async (file: StoredFile): Promise<void> => {
    try {
      const existing = await to.stat(file.blobKey);
      if (existing !== undefined) {
        const found = existing.size === file.size ? await digestOf(to, file.blobKey) : undefined;
        if (found && found.size === file.size && found.sha256 === file.sha256) report.alreadyThere += 1;
        else
          problem(
            file,
            'the target holds different bytes',
            `target ${existing.size} bytes${found ? `, SHA-256 ${found.sha256}` : ''}; record ${file.size} bytes, SHA-256 ${file.sha256}`,
          );
        return;
      }
      const body = await from.get(file.blobKey);
      if (body === undefined) return problem(file, 'missing in the source');
      const stored = await to.put({ key: file.blobKey, body, contentType: file.contentType, maxBytes: file.size });
      if (stored.size !== file.size || stored.sha256 !== file.sha256) {
        await to.delete(file.blobKey);
        return problem(
          file,
          'the source bytes differ from the record',
          `source ${stored.size} bytes, SHA-256 ${stored.sha256}; record ${file.size} bytes, SHA-256 ${file.sha256}`,
        );
      }
      report.copied += 1;
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      // A longer source body stops at maxBytes (FILE_TOO_LARGE): the source differs from the record.
      if (code === 'FILE_TOO_LARGE') return problem(file, 'the source bytes differ from the record', `source longer than the recorded ${file.size} bytes`);
      problem(file, 'the store failed', error instanceof Error ? error.message : String(error));
    } finally {
      report.doneFiles += 1;
      report.doneBytes += file.size;
      onProgress?.(progressOf(report));
    }
  };

  for await (const page of pages(files)) {
    let next = 0;
    await Promise.all(
      Array.from({ length: Math.min(concurrency, page.length) }, async () => {
        while (next < page.length) await copyOne(page[next++]);
      }),
    );
  }
  return report;
}

/** Every record, one page of SCAN_PAGE at a time. */
async function* pages(files: FileRepository): AsyncGenerator<StoredFile[]> {
  let afterId: string | undefined;
  for (;;) {
    const page = await files.scan({ afterId, limit: SCAN_PAGE });
    if (page.length === 0) return;
    yield page;
    afterId = page[page.length - 1].id;
  }
}

/** Size and SHA-256 (hex) of a stored blob, read to the end; undefined when it is gone. */
async function digestOf(store: BlobStore, key: string): Promise<{ size: number; sha256: string } | undefined> {
  const body = await store.get(key);
  if (body === undefined) return undefined;
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of body) {
    hash.update(chunk);
    size += chunk.length;
  }
  return { size, sha256: hash.digest('hex') };
}

function progressOf(report: BlobCopyReport): BlobCopyProgress {
  const { problemItems: _, ...progress } = report;
  return progress;
}
