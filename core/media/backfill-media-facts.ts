import type { MediaFactsRepository } from './media-facts.js';
import type { RecordMediaFacts } from './record-media-facts.js';

/** Where a backfill stands: files done of the files that had no facts when it started. */
export interface BackfillProgress {
  done: number;
  total: number;
  /** Of `done`, files whose bytes could not be read (recorded `failed`, every fact null). */
  failed: number;
}

/**
 * Gives the files stored before media facts existed (or whose probe never ran: a full queue, a
 * crash, an outage) their facts (`hangar files backfill-media`, docs/media.md). Walks the files
 * without a row in ascending record id, `batchSize` at a time (bounded memory), probing up to
 * `concurrency` at once, and reports progress after each batch. Safe to interrupt and run again: a
 * file's row is written when its probe ends, so a rerun takes up what is still missing, and a run
 * over files that all have facts does nothing.
 * @throws DomainError BLOB_STORE_UNAVAILABLE, DATABASE_UNAVAILABLE (503): the run stops; what was done stays done
 */
export class BackfillMediaFacts {
  constructor(private readonly deps: { media: MediaFactsRepository; record: Pick<RecordMediaFacts, 'execute'> }) {}

  async execute(
    input: { batchSize?: number; concurrency?: number; onProgress?: (progress: BackfillProgress) => void; signal?: { readonly aborted: boolean } } = {},
  ): Promise<BackfillProgress> {
    const batchSize = Math.max(1, input.batchSize ?? 100);
    const concurrency = Math.max(1, input.concurrency ?? 2);
    const progress: BackfillProgress = { done: 0, total: await this.deps.media.countWithout(), failed: 0 };
    let afterId: string | undefined;
    while (!input.signal?.aborted) {
      const batch = await this.deps.media.filesWithout({ afterId, limit: batchSize });
      if (batch.length === 0) break;
      let next = 0;
      const worker = async () => {
        while (next < batch.length) {
          const file = batch[next++];
          const outcome = await this.deps.record.execute({ file });
          progress.done += 1;
          if (outcome === 'failed') progress.failed += 1;
        }
      };
      await Promise.all(Array.from({ length: Math.min(concurrency, batch.length) }, worker));
      // Files uploaded during the run are probed by the upload's own queue, or by this walk: the total grows to count them.
      progress.total = Math.max(progress.total, progress.done);
      afterId = batch[batch.length - 1].id;
      input.onProgress?.({ ...progress });
    }
    return progress;
  }
}
