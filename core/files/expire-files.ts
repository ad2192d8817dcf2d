import type { ActivityRecorder } from '../activity/activity-recorder.js';
import type { Clock } from '../shared/clock.js';
import type { BlobStore } from './blob-store.js';
import { deleteFiles } from './delete-files.js';
import type { FileRepository } from './file-repository.js';

/** Expired files deleted per batch (one transaction per account in it). */
const BATCH = 100;
/** Batches per run at most, so one run stays short; the next run goes on. */
const MAX_BATCHES = 50;

/**
 * The expiry sweep (docs/private-files.md, "Expiry"): deletes every file whose `expiresAt` has come, record and
 * blob together as a delete does (records first, so storage and file count are released at once),
 * and logs each in its account's activity log as `DELETE /files/<file_id>` with status 204 and
 * metadata `{ auth: 'system', reason: 'expired', file_id, expires_at }`. A file whose expiry was
 * moved or removed while the sweep ran is kept (the delete is conditional on the expiry). Safe to
 * run in several processes at once: each file is deleted (and logged) by one of them. The host runs
 * it often enough (`EXPIRY_SWEEP_INTERVAL_SECONDS`) for files to go within a minute of their time;
 * until then the addresses already answer 404 (ReadPublicFile, ReadOwnFile, ReadSignedFile).
 * @returns how many files were deleted
 */
export class ExpireFiles {
  constructor(private readonly deps: { files: FileRepository; blobs: BlobStore; activity: ActivityRecorder; clock: Clock }) {}

  async execute(): Promise<number> {
    let deleted = 0;
    for (let batch = 0; batch < MAX_BATCHES; batch++) {
      const now = this.deps.clock.now();
      const due = await this.deps.files.findExpired({ now, limit: BATCH });
      const byUser = new Map<string, string[]>();
      for (const file of due) byUser.set(file.userId, [...(byUser.get(file.userId) ?? []), file.fileId]);
      for (const [userId, fileIds] of byUser) {
        for (const file of await deleteFiles(this.deps, userId, fileIds, { expiredBy: now, reason: 'expired' })) {
          deleted += 1;
          this.deps.activity.record({
            userId,
            method: 'DELETE',
            path: `/files/${file.fileId}`,
            statusCode: 204,
            requestSizeBytes: null,
            metadata: { auth: 'system', reason: 'expired', file_id: file.fileId, expires_at: file.expiresAt?.toISOString() ?? null },
          });
        }
      }
      if (due.length < BATCH) break;
    }
    return deleted;
  }
}
