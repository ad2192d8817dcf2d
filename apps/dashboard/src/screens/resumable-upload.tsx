// Resumable uploads of large files through the tus 1.0.0 protocol (https://tus.io/protocols/resumable-upload)
// at /files/resumable, with tus-js-client. The client keeps each unfinished upload's address in
// localStorage under a fingerprint of the file (name, type, size, modification time, endpoint), so
// choosing the same file again after a reload or a crash continues where the server stopped.
import { useEffect, useState } from 'preact/hooks';
import { defaultOptions, Upload, type DetailedError, type PreviousUpload } from 'tus-js-client';
import { accessToken, api, ApiError } from '../api.js';
import { formatBytes, formatRelative } from '../format.js';

/** Files larger than this many bytes (8 MiB) go through tus; smaller ones keep the single POST /files. */
export const RESUMABLE_THRESHOLD_BYTES = 8 * 1024 * 1024;

/**
 * Bytes per PATCH request (16 MiB): a pause or a dropped connection costs at most this much, and
 * it is a multiple of what the blob stores need for their parts (GCS 256 KiB, S3 5 MiB and more).
 */
const CHUNK_BYTES = 16 * 1024 * 1024;

/** Waits before each automatic retry of a failed request, in ms; after the last one the upload is interrupted. */
const RETRY_DELAYS_MS = [0, 1_000, 3_000, 5_000, 10_000, 20_000];

/** A resumable upload in flight. */
export interface ResumableHandle {
  /** Resolves with the API's answer for the finished file (`{ file }`, as POST /files); rejects with an ApiError. */
  done: Promise<unknown>;
  /** Stops sending; what the server has stays there for {@link ResumableHandle.resume}. */
  pause(): void;
  /** Continues from the offset the server reports (a HEAD request), after a pause or an interruption. */
  resume(): void;
  /** The upload's address at the server once created (`/files/resumable/:upload_id`), else null. */
  url(): string | null;
}

/** The endpoint of tus creation requests, on the dashboard's own origin. */
function endpoint(): string {
  return new URL('/files/resumable', window.location.origin).href;
}

/**
 * Starts (or continues, when this browser began the same file before) a resumable upload of `file`.
 * `onProgress` receives the fraction the server has acknowledged, 0–1; `onInterrupted` is called
 * when the retries ran out (offline, server unreachable): the upload continues by itself when the
 * browser comes back online, or with {@link ResumableHandle.resume}.
 * Metadata sent (Upload-Metadata): `filename`, `filetype`, `isPublic` ("true" | "false"), and
 * `expiresAt` (RFC 3339) when `expiresIn` (seconds) is given.
 */
export function startResumableUpload(
  file: File,
  options: { isPublic: boolean; expiresIn?: number; onProgress: (fraction: number) => void; onInterrupted: (error: ApiError) => void; onUrl?: () => void },
): ResumableHandle {
  let settle!: { resolve: (value: unknown) => void; reject: (error: unknown) => void };
  const done = new Promise<unknown>((resolve, reject) => (settle = { resolve, reject }));
  const metadata: Record<string, string> = { filename: file.name, filetype: file.type || 'application/octet-stream', isPublic: String(options.isPublic) };
  if (options.expiresIn) metadata.expiresAt = new Date(Date.now() + options.expiresIn * 1000).toISOString();
  let running = true;
  const upload = new Upload(file, {
    endpoint: endpoint(),
    chunkSize: CHUNK_BYTES,
    retryDelays: RETRY_DELAYS_MS,
    metadata,
    storeFingerprintForResuming: true,
    removeFingerprintOnSuccess: true,
    // The access token can be refreshed while a large upload runs: read it before every request.
    onBeforeRequest: async (request) => {
      request.setHeader('Authorization', `Bearer ${await accessToken()}`);
    },
    onUploadUrlAvailable: () => options.onUrl?.(),
    onProgress: (sent, total) => options.onProgress(total > 0 ? sent / total : 0),
    onSuccess: () => {
      running = false;
      options.onProgress(1);
      // GET /files/resumable/:upload_id answers the finished File, as POST /files does.
      api(new URL(upload.url ?? '', window.location.origin).pathname).then(settle.resolve, settle.reject);
    },
    onError: (error) => {
      running = false;
      const apiError = apiErrorOf(error);
      if (apiError.status === 0 || apiError.status >= 500 || apiError.status === 409 || apiError.status === 423) options.onInterrupted(apiError);
      else settle.reject(apiError);
    },
  });
  const begin = () => {
    running = true;
    void upload.findPreviousUploads().then((previous) => {
      if (previous.length > 0) upload.resumeFromPreviousUpload(previous[0]);
      upload.start();
    });
  };
  const online = () => {
    if (!running) begin();
  };
  window.addEventListener('online', online);
  void done.finally(() => window.removeEventListener('online', online)).catch(() => undefined);
  begin();
  return {
    done,
    pause: () => {
      running = false;
      window.removeEventListener('online', online);
      void upload.abort(false);
    },
    resume: () => {
      window.removeEventListener('online', online);
      window.addEventListener('online', online);
      if (!running) begin();
    },
    url: () => upload.url,
  };
}

/** The API's error from a tus-js-client failure: the response body's `{ code, message }`, or a network failure (status 0). */
function apiErrorOf(error: Error): ApiError {
  const response = (error as DetailedError).originalResponse;
  if (!response) return new ApiError(0, 'NETWORK_ERROR', 'The upload was interrupted. It continues when the connection is back.');
  const status = response.getStatus();
  let body: { code?: string; message?: string; details?: unknown } | undefined;
  try {
    body = JSON.parse(response.getBody()) as typeof body;
  } catch {
    body = undefined;
  }
  return new ApiError(status, body?.code ?? `HTTP_${status}`, body?.message ?? `The server answered ${status}.`, body?.details);
}

/**
 * Uploads this browser started earlier and did not finish (tus-js-client's URL storage), e.g. before
 * a reload: the browser cannot reopen a file by itself, so the list asks for the same file again,
 * which then continues where it stopped. Discarding one ends it at the server (tus termination).
 */
export function UnfinishedUploads({ refreshKey, running }: { refreshKey: number; running: Array<string | null> }) {
  const [uploads, setUploads] = useState<PreviousUpload[]>([]);
  const load = () => {
    const storage = defaultOptions.urlStorage;
    if (!storage) return;
    storage.findAllUploads().then(
      (all) => setUploads(all.filter((upload) => upload.uploadUrl?.startsWith(endpoint()))),
      () => setUploads([]),
    );
  };
  useEffect(load, [refreshKey]);
  const shown = uploads.filter((upload) => !running.includes(upload.uploadUrl));
  if (shown.length === 0) return null;
  const discard = async (upload: PreviousUpload) => {
    if (upload.uploadUrl) {
      await Upload.terminate(upload.uploadUrl, {
        onBeforeRequest: async (request) => {
          request.setHeader('Authorization', `Bearer ${await accessToken()}`);
        },
      }).catch(() => undefined);
    }
    await defaultOptions.urlStorage?.removeUpload(upload.urlStorageKey);
    load();
  };
  return (
    <section class="unfinished-uploads" aria-label="Unfinished uploads">
      <p class="muted small">Unfinished uploads: choose the same file again to continue where it stopped.</p>
      <ul class="uploads">
        {shown.map((upload) => (
          <li key={upload.urlStorageKey} class="upload upload-paused">
            <span class="upload-name">{upload.metadata.filename ?? 'Unnamed file'}</span>
            <span class="muted small">
              {upload.size === null ? '' : formatBytes(upload.size)} · started {formatRelative(upload.creationTime)}
            </span>
            <button
              type="button"
              class="secondary small"
              aria-label={`Discard unfinished upload of ${upload.metadata.filename ?? 'unnamed file'}`}
              onClick={() => void discard(upload)}
            >
              Discard
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** Pause / Resume for one resumable upload in the list. */
export function ResumableControls({ name, paused, onPause, onResume }: { name: string; paused: boolean; onPause: () => void; onResume: () => void }) {
  return paused ? (
    <button type="button" class="secondary small" aria-label={`Resume upload of ${name}`} onClick={onResume}>
      Resume
    </button>
  ) : (
    <button type="button" class="secondary small" aria-label={`Pause upload of ${name}`} onClick={onPause}>
      Pause
    </button>
  );
}
