import type { Clock } from '../shared/clock.js';
import type { PartialBlobStore } from './partial-blob-store.js';
import type { ResumableUploadRepository } from './resumable-upload-repository.js';

/** Expired uploads read per batch. */
const BATCH = 100;
/** Batches per run at most, so one run stays short; the next run goes on. */
const MAX_BATCHES = 50;

/**
 * The sweep of resumable uploads (docs/api.md, "Resumable uploads"): every upload whose `expiresAt` has
 * come is deleted; an unfinished one releases its reservation in the same transaction and its
 * partial bytes are removed. An upload being written (a live lease) is left for the next run.
 * Safe in several processes at once (each delete is conditional; the loser gets nothing back);
 * the host runs it with the expiry sweep, in the process that runs the maintenance.
 * @returns how many uploads were removed
 */
export class ExpireResumableUploads {
  constructor(private readonly deps: { uploads: ResumableUploadRepository; partials: PartialBlobStore; clock: Clock }) {}

  async execute(): Promise<number> {
    let removed = 0;
    for (let batch = 0; batch < MAX_BATCHES; batch++) {
      const now = this.deps.clock.now();
      const due = await this.deps.uploads.findExpired({ now, limit: BATCH });
      for (const upload of due) {
        const deleted = await this.deps.uploads.delete({ id: upload.id, unleasedAt: now.getTime() });
        if (!deleted) continue;
        removed += 1;
        if (deleted.status === 'uploading') await this.deps.partials.abort(deleted.state);
      }
      if (due.length < BATCH) break;
    }
    return removed;
  }
}
