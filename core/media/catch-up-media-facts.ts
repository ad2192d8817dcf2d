import type { Clock } from '../shared/clock.js';
import type { MediaFactsRepository } from './media-facts.js';
import type { RecordMediaFacts } from './record-media-facts.js';

/** Options of {@link CatchUpMediaFacts}. */
export interface CatchUpMediaFactsOptions {
  /** Files probed by one run, one after the other; default {@link MEDIA_CATCH_UP_DEFAULTS.batchSize}. */
  batchSize?: number;
  /** Only files created at least this long ago (ms) are taken: younger ones are the upload's own probe's. Default {@link MEDIA_CATCH_UP_DEFAULTS.minAgeMs}. */
  minAgeMs?: number;
}

/** Defaults of {@link CatchUpMediaFactsOptions}: 20 files a run, files older than 5 minutes. */
export const MEDIA_CATCH_UP_DEFAULTS = { batchSize: 20, minAgeMs: 5 * 60 * 1000 } as const;

/** What one {@link CatchUpMediaFacts} run did. */
export interface CatchUpReport {
  /** Files whose facts were recorded (`probed` or `failed`), or found deleted meanwhile. */
  done: number;
}

/**
 * Gives facts to the files that were left without (stored just before their process stopped,
 * dropped from a full queue, probed during an outage), without an operator (docs/media.md): the
 * runtime's maintenance calls it every minute or so, and each run probes at most `batchSize` files
 * created more than `minAgeMs` ago, one at a time, so it costs little beside the server's work.
 * Runs walk the files without facts in record id order, each run after the last file the previous
 * one tried, back to the start when a run reaches the end: a file that keeps failing for an outage
 * is tried again on the next pass but holds no one up. Recording a file twice (the upload's probe
 * still running, or two processes catching up) is harmless: the repository's save replaces the row.
 * `hangar files backfill-media` (BackfillMediaFacts) remains the way to do many at once.
 * @throws DomainError BLOB_STORE_UNAVAILABLE, DATABASE_UNAVAILABLE (503): the run stops at the file that met the outage; the next run goes on after it
 */
export class CatchUpMediaFacts {
  private afterId: string | undefined;
  private readonly batchSize: number;
  private readonly minAgeMs: number;

  constructor(
    private readonly deps: { media: MediaFactsRepository; record: Pick<RecordMediaFacts, 'execute'>; clock: Clock },
    options: CatchUpMediaFactsOptions = {},
  ) {
    this.batchSize = Math.max(1, options.batchSize ?? MEDIA_CATCH_UP_DEFAULTS.batchSize);
    this.minAgeMs = Math.max(0, options.minAgeMs ?? MEDIA_CATCH_UP_DEFAULTS.minAgeMs);
  }

  /** @param input.signal when it is aborted, the run stops before its next file (a process stopping) */
  async execute(input: { signal?: { readonly aborted: boolean } } = {}): Promise<CatchUpReport> {
    const createdBefore = new Date(this.deps.clock.now().getTime() - this.minAgeMs);
    const batch = await this.deps.media.filesWithout({ afterId: this.afterId, limit: this.batchSize, createdBefore });
    // A short batch is the end of the walk: the next run starts from the beginning again.
    this.afterId = batch.length < this.batchSize ? undefined : batch[batch.length - 1].id;
    let done = 0;
    for (const file of batch) {
      if (input.signal?.aborted) {
        // The next run (in this process or another) starts again at this file.
        this.afterId = undefined;
        break;
      }
      try {
        await this.deps.record.execute({ file });
      } catch (error) {
        if (batch.length === this.batchSize) this.afterId = file.id;
        throw error;
      }
      done += 1;
    }
    return { done };
  }
}
