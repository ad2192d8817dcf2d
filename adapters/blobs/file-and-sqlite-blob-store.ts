import { statfs } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Failpoints } from '../../core/shared/failpoints.js';
import { ShardedFileBlobStore } from './sharded-file-blob-store.js';
import { DEFAULT_SMALL_BLOB_MAX_BYTES } from './small-blob-limits.js';
import { SqliteSmallBlobStore } from './sqlite-small-blob-store.js';
import { TieredBlobStore } from './tiered-blob-store.js';

/** Options of {@link FileAndSqliteBlobStore}. */
export interface FileAndSqliteBlobStoreOptions {
  /** Root directory of the store; created (with parents) on first use. */
  directory: string;
  /**
   * Flush each new blob (its file and directory entry, or its row) to the disk before `put`
   * resolves, so a stored file survives a power loss. Default true; turn off only for tests and throw-away data.
   */
  fsync?: boolean;
  /** Crash and fault tests only: `blob_write` before each write, `before_blob_link` before the blob becomes visible. */
  failpoints?: Failpoints;
  /**
   * Blobs of at most this many bytes are kept as rows of `<directory>/small-blobs.db` instead of
   * files (see {@link FileAndSqliteBlobStore}); 0 stores every blob as a file. Default
   * {@link DEFAULT_SMALL_BLOB_MAX_BYTES} (64 KiB), at most `MAX_SMALL_BLOB_MAX_BYTES` (small-blob-limits.ts) (1 MiB):
   * an upload holds up to this many bytes in memory until it knows which way it goes.
   */
  smallBlobMaxBytes?: number;
}

/** File name, under the root, of the database of small blobs. */
export const SMALL_BLOBS_FILE = 'small-blobs.db';

/**
 * The service's {@link BlobStore} on a local file system (BLOB_STORE_URL `file:`): a
 * {@link TieredBlobStore} of
 * - a {@link ShardedFileBlobStore} in `directory` (one file per blob, sharded `<aa>/<bb>/…`), and
 * - a {@link SqliteSmallBlobStore}, `<directory>/small-blobs.db`, for bodies of at most
 *   `smallBlobMaxBytes` (64 KiB by default): a blob file costs nine file-system calls, two of them
 *   disk flushes, most of a small upload's cost (decision 0005, docs/decisions/); a row costs an
 *   insert and a share of one WAL flush.
 *
 * On a network file system (NFS, SMB/CIFS, FUSE, 9p, Ceph…) the database is not used and every
 * blob is a file: SQLite's WAL mode needs every process that opens a database to be on one machine
 * (https://www.sqlite.org/wal.html), while such a directory may be shared by several (docs/operations.md,
 * "Several processes behind a load balancer").
 */
export class FileAndSqliteBlobStore extends TieredBlobStore {
  /** @throws Error when `smallBlobMaxBytes` is not an integer from 0 to `MAX_SMALL_BLOB_MAX_BYTES` (small-blob-limits.ts) */
  constructor(options: FileAndSqliteBlobStoreOptions) {
    const directory = resolve(options.directory);
    const { fsync, failpoints } = options;
    super({
      files: new ShardedFileBlobStore({ directory, fsync, failpoints }),
      small: new SqliteSmallBlobStore({ path: join(directory, SMALL_BLOBS_FILE), fsync, failpoints }),
      smallBlobMaxBytes: options.smallBlobMaxBytes ?? DEFAULT_SMALL_BLOB_MAX_BYTES,
      useSmall: async () => !NETWORK_FILE_SYSTEMS.has((await statfs(directory)).type >>> 0),
    });
  }
}

/**
 * `statfs` types (Linux `f_type`, include/uapi/linux/magic.h and the file systems' own headers) of
 * file systems that may be shared between machines, where the small blobs' SQLite database is not
 * used: NFS, SMB, CIFS, SMB2, FUSE (sshfs, GlusterFS, s3fs…), 9p, Ceph, Coda, AFS, Lustre, GPFS,
 * OCFS2, GFS2.
 */
const NETWORK_FILE_SYSTEMS = new Set(
  [
    0x6969, 0x517b, 0xff534d42, 0xfe534d42, 0x65735546, 0x01021997, 0x00c36400, 0x73757245, 0x5346414f, 0x6b414653, 0x0bd00bd0, 0x47504653, 0x7461636f,
    0x01161970,
  ].map((type) => type >>> 0),
);
