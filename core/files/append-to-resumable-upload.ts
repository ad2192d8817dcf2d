import { requireWriteAccess } from '../plans/account-standing.js';
import { DomainError } from '../shared/errors.js';
import { type AbortSignalLike, clearTimer, setTimer, type TimerHandle } from '../shared/web-globals.js';
import { checkDeclaredContentType } from './content-sniffer.js';
import type { FileView } from './file-view.js';
import type { ResumableUpload } from './resumable-upload-repository.js';
import { findOwnUpload, requireUnexpired, type ResumableUploadDeps } from './resumable-uploads.js';
import { blobKeyFor, type StoredFile } from './stored-file.js';
import { quotaError } from './upload-file.js';
import type { ImageMetadataMode, MetadataKind } from './image-metadata/image-metadata-mode.js';
import { stripImageMetadata, stripsMetadataOf } from './image-metadata/strip-image-metadata.js';

/** Last key segment of the blob a completed upload's bytes are received into before its metadata is removed. */
const UNSTRIPPED_BLOB = 'received';

/** Input of {@link AppendToResumableUpload}: one tus `PATCH`. */
export interface AppendToResumableUploadInput {
  userId: string;
  uploadId: string;
  /** `Upload-Offset`: where the client believes the upload stands, bytes. */
  offset: number;
  /** `Content-Length`, when the client sent one: checked against the upload's length before reading. */
  contentLength?: number;
  body: AsyncIterable<Uint8Array>;
  signal?: AbortSignalLike;
}

/** Outcome of {@link AppendToResumableUpload}. */
export interface AppendOutcome {
  /** The upload as it is now (`offset` is the new `Upload-Offset`). */
  upload: ResumableUpload;
  /** The File, once this request completed the upload (offset == length). */
  file?: FileView;
}

/** ms a write lease lasts without renewal: how long an upload stays locked after its writer died. */
export const UPLOAD_LEASE_MS = 10_000;
/** ms between renewals of a running request's lease. */
const LEASE_RENEWAL_MS = 3_000;

/**
 * One tus `PATCH` (docs/api.md, "Resumable uploads"). The offset must be the upload's (409
 * UPLOAD_OFFSET_MISMATCH otherwise, with the right one in `details.offset`). The request takes the
 * upload's write lease in the database (423 UPLOAD_LOCKED while another request, in any process,
 * holds it; a dead writer's lease ends after {@link UPLOAD_LEASE_MS}, a live one renews it), streams
 * the body into the partial blob, and records the new offset once the store says the bytes are
 * durable. A body cut midway keeps what arrived. A writer that finds its lease taken stops before its next chunk.
 *
 * When the offset reaches the length, the upload completes, all or nothing: the partial becomes
 * the blob, its first bytes are sniffed as `POST /files` does, the plan is checked again (write
 * access, quotas, counting the upload's own reservation as released), and the File record is
 * inserted in the transaction that marks the upload complete and releases its reservation
 * (FileRepository.insert with `fromUpload`). A refusal or failure after the partial became the
 * blob removes the blob and the upload (releasing its reservation): never a blob without its record.
 * An image upload of an account that removes metadata (docs/image-metadata.md) completes into a blob
 * beside the file's (`<blob key>/received`), which is rewritten into the file's blob as a stream
 * (stripImageMetadata) and then removed: size and sha256 are the stored bytes'.
 * A failure of the partial store's `complete` leaves the partial as it was: the client sends the
 * last PATCH again (an empty body at offset == length completes it).
 * @throws DomainError UPLOAD_NOT_FOUND (404), UPLOAD_EXPIRED (410), UPLOAD_OFFSET_MISMATCH (409),
 *         UPLOAD_LOCKED (423), FILE_TOO_LARGE (413, past the length), CONTENT_TYPE_MISMATCH (400),
 *         TRIAL_ENDED, STORAGE_LIMIT_REACHED, FILE_COUNT_LIMIT_REACHED (403), BLOB_STORE_UNAVAILABLE (503)
 */
export class AppendToResumableUpload {
  constructor(private readonly deps: ResumableUploadDeps) {}

  async execute(input: AppendToResumableUploadInput): Promise<AppendOutcome> {
    const { deps } = this;
    const upload = await findOwnUpload(deps.uploads, input.userId, input.uploadId);
    requireUnexpired(upload, deps.clock.now());
    if (input.offset !== upload.offset) throw offsetMismatch(upload.offset);
    if (upload.status === 'complete') return { upload, file: await this.fileOf(upload) };
    if (input.contentLength !== undefined && input.offset + input.contentLength > upload.length) throw pastLength(upload.length);

    const owner = deps.ids.uuid();
    const now = deps.clock.now().getTime();
    if (!(await deps.uploads.lock({ id: upload.id, offset: upload.offset, owner, now, until: now + UPLOAD_LEASE_MS }))) {
      const current = await findOwnUpload(deps.uploads, input.userId, input.uploadId);
      if (current.offset !== input.offset) throw offsetMismatch(current.offset);
      if (current.status === 'complete') return { upload: current, file: await this.fileOf(current) };
      throw new DomainError('UPLOAD_LOCKED', 'Another request is writing to this upload; retry when it has ended.');
    }
    const lease = this.heartbeat(upload.id, owner);
    let locked = true;
    try {
      const result = await deps.partials.append({ state: upload.state, offset: upload.offset, body: this.leased(input.body, lease), signal: input.signal });
      const advanced: ResumableUpload = { ...upload, offset: result.offset, state: result.state };
      if (result.offset < upload.length) {
        // The new offset and the end of the lease in one write.
        if (!(await deps.uploads.advance({ id: upload.id, owner, offset: result.offset, state: result.state, release: true }))) throw terminated();
        locked = false;
        return { upload: advanced };
      }
      // The last bytes: the offset is recorded as the length only with the File (FileRepository.insert),
      // so HEAD never tells a client an upload is done before its File exists.
      if (lease.lost || !(await deps.uploads.renew({ id: upload.id, owner, until: deps.clock.now().getTime() + UPLOAD_LEASE_MS }))) throw terminated();
      const file = await this.complete(advanced);
      locked = false;
      return { upload: { ...advanced, status: 'complete' }, file };
    } finally {
      lease.stop();
      if (locked) await deps.uploads.unlock({ id: upload.id, owner }).catch(() => undefined);
    }
  }

  /**
   * Renews the lease every {@link LEASE_RENEWAL_MS} while the request runs (also while a slow client
   * sends nothing, and while the upload completes), and notes when it was found to be someone else's.
   */
  private heartbeat(id: string, owner: string): { readonly lost: boolean; stop(): void } {
    const state = { lost: false, stopped: false };
    let timer: TimerHandle;
    const schedule = () => {
      timer = setTimer(() => {
        this.deps.uploads.renew({ id, owner, until: this.deps.clock.now().getTime() + UPLOAD_LEASE_MS }).then(
          (held) => {
            if (!held) state.lost = true;
            else if (!state.stopped) schedule();
          },
          () => {
            if (!state.stopped) schedule();
          },
        );
      }, LEASE_RENEWAL_MS);
      (timer as { unref?: () => void }).unref?.();
    };
    schedule();
    return {
      get lost() {
        return state.lost;
      },
      stop: () => {
        state.stopped = true;
        clearTimer(timer);
      },
    };
  }

  /** The body, stopped before the next chunk once the lease was found to be someone else's. */
  private async *leased(body: AsyncIterable<Uint8Array>, lease: { readonly lost: boolean }): AsyncGenerator<Uint8Array> {
    for await (const chunk of body) {
      if (lease.lost) throw new DomainError('UPLOAD_LOCKED', 'This request lost its hold on the upload; resume from the offset HEAD reports.');
      yield chunk;
    }
  }

  /** Turns the complete partial into the blob and the File (see the class comment). */
  private async complete(upload: ResumableUpload): Promise<FileView> {
    const { deps } = this;
    const blobKey = blobKeyFor(upload.userId, upload.fileId);
    const { user, standing } = await deps.accounts.view(upload.userId);
    // An image whose metadata goes (docs/image-metadata.md) becomes a blob beside the file's, rewritten into the file's.
    const stripping = user.imageMetadata !== 'keep' && stripsMetadataOf(upload.contentType);
    const receivedKey = stripping ? `${blobKey}/${UNSTRIPPED_BLOB}` : blobKey;
    let stored = await deps.partials.complete({ state: upload.state, key: receivedKey });
    let inserted = false;
    let metadataRemoved: MetadataKind[] = [];
    try {
      await checkDeclaredContentType(deps.sniffer, upload.contentType, await this.head(receivedKey, stored.size));
      requireWriteAccess(standing);
      if (stripping) ({ stored, removed: metadataRemoved } = await this.stripped(receivedKey, blobKey, upload.contentType, user.imageMetadata, stored.size));
      const limits = { storageLimitBytes: standing.plan.storageLimitBytes, fileCountLimit: standing.plan.fileCountLimit };
      const file: StoredFile = {
        id: deps.ids.uuid(),
        userId: upload.userId,
        fileId: upload.fileId,
        name: upload.name,
        contentType: upload.contentType,
        size: stored.size,
        sha256: stored.sha256,
        isPublic: upload.isPublic,
        createdAt: deps.clock.now(),
        blobKey,
        expiresAt: upload.fileExpiresAt,
        viewCount: 0,
        downloadCount: 0,
        ...(metadataRemoved.length > 0 ? { metadataRemoved } : {}),
      };
      const result = await deps.files.insert(file, limits, { fromUpload: upload.id });
      if (result !== 'inserted') throw quotaError(result, limits);
      inserted = true;
      deps.media?.enqueue(file);
      const [view] = await deps.addresses.views(upload.userId, [file], { fresh: true });
      return view;
    } catch (error) {
      // The partial became the blob: without the record, neither is kept, and the upload ends.
      if (!inserted) {
        await deps.blobs.delete(blobKey).catch(() => undefined);
        if (stripping) await deps.blobs.delete(receivedKey).catch(() => undefined);
        await deps.uploads.delete({ id: upload.id }).catch(() => undefined);
      }
      throw error;
    }
  }

  private async head(key: string, size: number): Promise<Uint8Array> {
    const wanted = Math.min(this.deps.sniffer.headBytes, size);
    const body = wanted > 0 ? await this.deps.blobs.get(key, { start: 0, end: wanted - 1 }) : undefined;
    const head = new Uint8Array(wanted);
    let filled = 0;
    if (body)
      for await (const chunk of body) {
        head.set(chunk.subarray(0, wanted - filled), filled);
        filled += Math.min(chunk.length, wanted - filled);
      }
    return head.subarray(0, filled);
  }

  /**
   * Rewrites the received blob `from` into the file's blob `to` without the metadata `mode` names
   * (stripImageMetadata, streamed), then removes `from`. @returns the stored blob's size and sha256, and what was removed
   * @throws DomainError BLOB_STORE_UNAVAILABLE (503)
   */
  private async stripped(from: string, to: string, contentType: string, mode: ImageMetadataMode, size: number) {
    const source = await this.deps.blobs.get(from);
    if (!source) throw new DomainError('BLOB_STORE_UNAVAILABLE', 'The received upload could not be read back from the blob store.');
    const stripped = stripImageMetadata(source, contentType, mode);
    const stored = await this.deps.blobs.put({ key: to, body: stripped.body, contentType, maxBytes: size });
    const { removed } = await stripped.outcome;
    await this.deps.blobs.delete(from).catch(() => undefined);
    return { stored, removed };
  }

  private async fileOf(upload: ResumableUpload): Promise<FileView | undefined> {
    const file = await this.deps.addresses.currentFile(() => this.deps.files.findByFileId(upload.fileId));
    if (!file || file.userId !== upload.userId) return undefined;
    const [view] = await this.deps.addresses.views(upload.userId, [file]);
    return view;
  }
}

function terminated(): DomainError {
  return new DomainError('UPLOAD_NOT_FOUND', 'This upload was terminated while the request ran.');
}

function offsetMismatch(offset: number): DomainError {
  return new DomainError('UPLOAD_OFFSET_MISMATCH', `Upload-Offset does not match: the upload holds ${offset} bytes; resume from there.`, { offset });
}

function pastLength(length: number): DomainError {
  return new DomainError('FILE_TOO_LARGE', `The body goes past the upload's length of ${length} bytes.`, { upload_length: length });
}
