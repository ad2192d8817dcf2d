import * as tus from 'tus-js-client';
import { RELAXED_RATE_LIMITS } from './http-harness.js';

const MiB = 1024 * 1024;
/** The long run (HANGAR_LONG) sends 256 MiB in 16 MiB chunks; the default run 24 MiB in 4 MiB chunks, still several chunks. */
const LONG = process.env.HANGAR_LONG === '1';
export const RESUMABLE_SIZE = LONG ? 256 * MiB : 24 * MiB;
export const RESUMABLE_CHUNK = LONG ? 16 * MiB : 4 * MiB;

/** Env of a server that accepts uploads of a few hundred MiB. */
export const LARGE_UPLOADS: Record<string, string> = {
  ...RELAXED_RATE_LIMITS,
  MAX_UPLOAD_SIZE_LIMIT_BYTES: String(1024 * MiB),
  DEFAULT_MAX_UPLOAD_SIZE_BYTES: String(1024 * MiB),
  STORAGE_LIMIT_BYTES: String(4096 * MiB),
};

/** Options of a tus-js-client upload to `api` with `apiKey`. */
export function tusOptions(api: string, apiKey: string, extra: Partial<tus.UploadOptions> = {}): tus.UploadOptions {
  return {
    endpoint: `${api}/files/resumable`,
    headers: { 'X-Api-Key': apiKey },
    metadata: { filename: 'clip.mp4', filetype: 'video/mp4' },
    chunkSize: RESUMABLE_CHUNK,
    retryDelays: [0, 200, 500, 1000, 2000, 3000, 5000, 5000, 5000, 5000],
    ...extra,
  };
}

/**
 * Runs `upload` to the end, cutting its connection (abort: the request in flight is destroyed) each
 * time its progress crosses one of `cutAt` (fractions), then resuming with `start()`.
 * Resolves with the `Hangar-File-Id` of the last PATCH.
 */
export function uploadWithCuts(
  make: (handlers: Partial<tus.UploadOptions>) => tus.Upload,
  cutAt: number[],
  onCut?: (fraction: number, upload: tus.Upload) => Promise<void>,
): Promise<{ fileId: string; url: string }> {
  return new Promise((resolve, reject) => {
    const pending = [...cutAt];
    let fileId: string | undefined;
    let cutting = false;
    const upload: tus.Upload = make({
      onProgress: (sent, total) => {
        if (cutting || pending.length === 0 || sent / total < pending[0]) return;
        const fraction = pending.shift()!;
        cutting = true;
        void upload
          .abort(false)
          .then(() => onCut?.(fraction, upload))
          .then(() => {
            cutting = false;
            upload.start();
          })
          .catch(reject);
      },
      onAfterResponse: (_request, response) => {
        fileId = response.getHeader('Hangar-File-Id') || fileId;
      },
      onSuccess: () => (fileId ? resolve({ fileId, url: upload.url! }) : reject(new Error('no Hangar-File-Id on the last PATCH'))),
      onError: reject,
    });
    upload.start();
  });
}
