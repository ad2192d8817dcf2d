import { canAdoptFiles, type FileAdoptingBlobStore } from '../blobs/file-adoption.js';
import type { BlobEntry, BlobReadOptions, BlobStore, ByteRange } from '../../core/files/blob-store.js';

/** Where {@link InstrumentedBlobStore} reports: one call per operation, its duration in seconds and whether it failed. */
export type BlobOperationObserver = (operation: 'put' | 'get' | 'delete' | 'delete_under' | 'ping' | 'stat', seconds: number, failed: boolean) => void;

/**
 * A {@link BlobStore} that times every operation of another and reports it (Prometheus metrics in
 * the server). `get` is timed until the body is ready to read, not while it streams; `list` is not
 * timed (fsck walks it at its own pace). Behaves exactly like the store it wraps otherwise.
 */
export class InstrumentedBlobStore implements BlobStore {
  readonly sweepTempFiles?: (olderThanMs: number) => Promise<number>;
  readonly close?: () => Promise<void>;
  /** The inner store's {@link FileAdoptingBlobStore.adoptFile} when it has one, timed as a `put`. */
  readonly adoptFile?: FileAdoptingBlobStore['adoptFile'];

  constructor(
    private readonly inner: BlobStore,
    private readonly observe: BlobOperationObserver,
  ) {
    if (inner.sweepTempFiles) this.sweepTempFiles = (olderThanMs) => inner.sweepTempFiles!(olderThanMs);
    if (canAdoptFiles(inner)) this.adoptFile = (options) => this.timed('put', () => inner.adoptFile(options));
    if (inner.close) this.close = () => inner.close!();
  }

  put(options: Parameters<BlobStore['put']>[0]): Promise<{ size: number; sha256: string }> {
    return this.timed('put', () => this.inner.put(options));
  }
  get(key: string, range?: ByteRange, options?: BlobReadOptions): Promise<AsyncIterable<Uint8Array> | undefined> {
    return this.timed('get', () => this.inner.get(key, range, options));
  }
  delete(key: string): Promise<void> {
    return this.timed('delete', () => this.inner.delete(key));
  }
  deleteUnder(parent: string): Promise<void> {
    return this.timed('delete_under', () => this.inner.deleteUnder(parent));
  }
  ping(): Promise<void> {
    return this.timed('ping', () => this.inner.ping());
  }
  list(): AsyncIterable<BlobEntry> {
    return this.inner.list();
  }
  stat(key: string): Promise<BlobEntry | undefined> {
    return this.timed('stat', () => this.inner.stat(key));
  }

  private async timed<T>(operation: Parameters<BlobOperationObserver>[0], work: () => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      const result = await work();
      this.observe(operation, (performance.now() - started) / 1000, false);
      return result;
    } catch (error) {
      this.observe(operation, (performance.now() - started) / 1000, true);
      throw error;
    }
  }
}
