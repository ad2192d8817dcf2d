/**
 * Limits of the local-disk store's small blobs (`FileAndSqliteBlobStoreOptions.smallBlobMaxBytes`), in
 * a module of their own so that the configuration can check them without loading the store.
 */

/** Default largest small blob: 64 KiB (bytes). */
export const DEFAULT_SMALL_BLOB_MAX_BYTES = 64 * 1024;
/** Largest limit accepted: 1 MiB (bytes); an upload holds up to the limit in memory until it knows which way it goes. */
export const MAX_SMALL_BLOB_MAX_BYTES = 1024 * 1024;
