import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';

/** The access key s3rver accepts (it checks SigV4 signatures against this pair). */
export const S3RVER_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } as const;

/** A running S3-compatible server for tests: its base URL (path-style) and how to stop it. */
export interface S3TestServer {
  url: string;
  /** Where it keeps its objects (one directory per bucket). */
  directory: string;
  close(): Promise<void>;
}

/**
 * Starts s3rver (npm `s3rver` 3, a pure-JavaScript S3 server on the local file system) on a free
 * loopback port, with the given buckets, in a fresh temp directory that `close` removes.
 * What it lacks compared with S3: conditional writes (`If-None-Match: *` is ignored: a PutObject
 * replaces), so stores on it run with `ifNoneMatch: false` (docs/s3.md).
 */
export async function startS3TestServer(buckets: string[]): Promise<S3TestServer> {
  const directory = await mkdtemp(join(tmpdir(), 'hangar-s3rver-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    configureBuckets: buckets.map((name) => ({ name, configs: [] })),
  });
  const { port } = await server.run();
  return {
    url: `http://127.0.0.1:${port}`,
    directory,
    close: async () => {
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
