import { findOwnUpload, type ResumableUploadDeps } from './resumable-uploads.js';

/**
 * tus termination (`DELETE /files/resumable/:upload_id`): removes an unfinished upload, its partial
 * bytes and its reservation (released in the transaction that deletes the row). A request still
 * writing to it stops at its next database write. A complete upload's row is removed; its File stays
 * (delete it with `DELETE /files/:file_id`).
 * @throws DomainError UPLOAD_NOT_FOUND (404; also another account's upload), BLOB_STORE_UNAVAILABLE (503)
 */
export class TerminateResumableUpload {
  constructor(private readonly deps: Pick<ResumableUploadDeps, 'uploads' | 'partials'>) {}

  async execute(input: { userId: string; uploadId: string }): Promise<void> {
    await findOwnUpload(this.deps.uploads, input.userId, input.uploadId);
    const deleted = await this.deps.uploads.delete({ id: input.uploadId });
    if (deleted?.status === 'uploading') await this.deps.partials.abort(deleted.state);
  }
}
