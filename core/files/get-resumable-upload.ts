import type { FileView } from './file-view.js';
import type { ResumableUpload } from './resumable-upload-repository.js';
import { findOwnUpload, requireUnexpired, type ResumableUploadDeps } from './resumable-uploads.js';

/** What {@link GetResumableUpload} answers: the upload, and its File once complete. */
export interface ResumableUploadView {
  upload: ResumableUpload;
  /** The File (as `POST /files` answers it) once the upload is complete and while the File exists. */
  file?: FileView;
}

/**
 * The state of one of the account's resumable uploads: tus `HEAD` (offset, length, expiry) and
 * `GET /files/resumable/:upload_id` (the File once complete).
 * @throws DomainError UPLOAD_NOT_FOUND (404; also another account's upload), UPLOAD_EXPIRED (410)
 */
export class GetResumableUpload {
  constructor(private readonly deps: Pick<ResumableUploadDeps, 'uploads' | 'files' | 'addresses' | 'clock'>) {}

  async execute(input: { userId: string; uploadId: string }): Promise<ResumableUploadView> {
    const upload = await findOwnUpload(this.deps.uploads, input.userId, input.uploadId);
    requireUnexpired(upload, this.deps.clock.now());
    if (upload.status !== 'complete') return { upload };
    const file = await this.deps.addresses.currentFile(() => this.deps.files.findByFileId(upload.fileId));
    if (!file || file.userId !== input.userId) return { upload };
    const [view] = await this.deps.addresses.views(input.userId, [file]);
    return { upload, file: view };
  }
}
