import { HOUR_MS } from '../../core/shared/time.js';
import type { BlobStore } from '../../core/files/blob-store.js';
import { type Failpoints, NO_FAILPOINTS } from '../../core/shared/failpoints.js';
import type { Logger } from '../../core/shared/logger.js';
import type { GcsBlobStoreOptions } from './gcs-blob-store.js';
import { FileAndSqliteBlobStore } from './file-and-sqlite-blob-store.js';
import type { S3BlobStoreOptions } from './s3-blob-store.js';

/**
 * Which blob store to open, and its options: a local directory (`smallBlobMaxBytes`: blobs up to
 * this size are rows of `<directory>/small-blobs.db`, 0 = every blob a file), a Google Cloud
 * Storage bucket, or an S3-compatible bucket. apps/server/config.ts parses BLOB_STORE_URL into one.
 */
export type BlobStoreChoice =
  | { kind: 'file'; directory: string; smallBlobMaxBytes: number }
  | ({ kind: 'gcs' } & Pick<GcsBlobStoreOptions, 'bucket' | 'prefix' | 'apiEndpoint' | 'resumableThresholdBytes'>)
  | ({ kind: 's3' } & S3BlobStoreOptions);

/**
 * Opens the blob store `blobs` names: the server's (apps/server/container.ts), or the target of
 * `blobs copy --to` (apps/cli). The GCS and S3 clients are loaded only when chosen. `logger` hears
 * of background failures (the sweep of abandoned temp files); `failpoints` reach the local-disk
 * store only (crash tests).
 */
export async function openBlobStore(blobs: BlobStoreChoice, options: { logger: Logger; failpoints?: Failpoints }): Promise<BlobStore> {
  switch (blobs.kind) {
    case 'file': {
      const store = new FileAndSqliteBlobStore({
        directory: blobs.directory,
        smallBlobMaxBytes: blobs.smallBlobMaxBytes,
        failpoints: options.failpoints ?? NO_FAILPOINTS,
      });
      // Temp files of uploads cut off by a crash. An upload in flight touches its temp file at
      // least every IDLE_TIMEOUT (2 min) or is dropped, so an hour-old one is abandoned.
      store
        .sweepTempFiles(HOUR_MS)
        .catch((error: unknown) => options.logger.error('temp_sweep_failed', { error: error instanceof Error ? error : String(error) }));
      return store;
    }
    case 'gcs': {
      // Loaded only when chosen: the GCS client library takes about half a second to load, on every start.
      const { GcsBlobStore } = await import('./gcs-blob-store.js');
      // Credentials: Application Default Credentials, except with an emulator endpoint (none sent).
      return new GcsBlobStore({
        bucket: blobs.bucket,
        prefix: blobs.prefix,
        apiEndpoint: blobs.apiEndpoint,
        resumableThresholdBytes: blobs.resumableThresholdBytes,
      });
    }
    case 's3': {
      // Loaded only when chosen, like the GCS client: the AWS SDK's modules are read on every start otherwise.
      const { S3BlobStore } = await import('./s3-blob-store.js');
      // Credentials: the keys from the configuration, else the SDK's default chain.
      const { kind: _, ...options } = blobs;
      return new S3BlobStore(options);
    }
  }
}
