/**
 * Defaults and bounds of the S3 blob store (adapters/blobs/s3-blob-store.ts), in a module of their
 * own so that the configuration can check them without loading the AWS SDK.
 */
export const S3_LIMITS = {
  /** Signing region when none is given (AWS's default; R2 takes `auto`). */
  defaultRegion: 'us-east-1',
  /** Bytes: S3's smallest part except the last (https://docs.aws.amazon.com/AmazonS3/latest/userguide/qfacts.html). */
  minPartSizeBytes: 5 * 1024 * 1024,
  /** Bytes: S3's largest part. */
  maxPartSizeBytes: 5 * 1024 * 1024 * 1024,
  /** S3's most parts in one multipart upload. */
  maxParts: 10_000,
  /** Bytes: a body up to this goes as one PutObject, a longer one in parts of this size. */
  defaultPartSizeBytes: 5 * 1024 * 1024,
  /** Parts of one upload in flight at once. */
  defaultQueueSize: 2,
} as const;
