import { expect } from 'chai';
import { createHash } from 'node:crypto';
import http from 'node:http';
import { readdir, readlink, truncate } from 'node:fs/promises';
import path from 'node:path';
import { randomFileOf, sha256 } from '../support/bytes.js';
import { signUpWithKey, startTestServer, type TestServer, upload, localDiskIt } from '../support/http-harness.js';

const MiB = 1024 * 1024;

/**
 * The content server's body path (apps/http/send-body.ts) over the local-disk store's borrowed
 * chunks: bytes identical whatever the client's pace, ranges, and nothing left open when a client
 * goes away or a blob turns out shorter than its record.
 */
describe('HTTP: content server bodies (borrowed chunks, backpressure, aborts)', function () {
  this.timeout(60_000);
  let server: TestServer;
  let apiKey: string;
  const bytes = randomFileOf(6 * MiB + 4321, 'video/mp4', 3);
  let fileId: string;

  before(async () => {
    server = await startTestServer({ DEFAULT_MAX_UPLOAD_SIZE_BYTES: String(16 * MiB) });
    ({ apiKey } = await signUpWithKey(server, 'streaming@example.com'));
    const result = await upload(server, apiKey, bytes, { contentType: 'video/mp4', name: 'clip.mp4' });
    expect(result.status, JSON.stringify(result.body)).to.equal(201);
    fileId = result.body.file.file_id;
  });
  after(async () => {
    await server.stop();
  });

  /** File descriptors of this process (the server runs in it) open on files under the data directory. */
  async function openFilesInDataDir(): Promise<number> {
    let count = 0;
    for (const fd of await readdir('/proc/self/fd')) {
      const target = await readlink(`/proc/self/fd/${fd}`).catch(() => '');
      if (target.startsWith(server.dataDir) && !/\.(db|sqlite)(-wal|-shm|-journal)?$/.test(target) && !target.includes('sqlite')) count += 1;
    }
    return count;
  }

  async function settledOpenFiles(expected: number): Promise<number> {
    let count = await openFilesInDataDir();
    for (let i = 0; i < 100 && count !== expected; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      count = await openFilesInDataDir();
    }
    return count;
  }

  /**
   * GETs `pathname` on the content server with a reader that pauses 5 ms after every 256 KiB, so
   * the server's writes wait on the socket (the case where a chunk reused too early would show).
   */
  function slowGet(
    pathname: string,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; headers: http.IncomingHttpHeaders; sha256: string; length: number }> {
    return new Promise((resolve, reject) => {
      const request = http.get(`${server.content}${pathname}`, { headers, agent: false }, (response) => {
        const hash = createHash('sha256');
        let length = 0;
        let sincePause = 0;
        response.on('data', (chunk: Buffer) => {
          hash.update(chunk);
          length += chunk.length;
          sincePause += chunk.length;
          if (sincePause >= 256 * 1024) {
            sincePause = 0;
            response.pause();
            setTimeout(() => response.resume(), 5);
          }
        });
        response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, sha256: hash.digest('hex'), length }));
        response.on('error', reject);
      });
      request.on('error', reject);
    });
  }

  it('sends a 6 MiB file byte for byte to a slow reader, on /d and /m, and closes the file afterwards', async () => {
    for (const pathname of [`/d/${fileId}`, `/m/${fileId}`]) {
      const result = await slowGet(pathname);
      expect(result.status).to.equal(200);
      expect(result.headers['content-length']).to.equal(String(bytes.length));
      expect(result.length).to.equal(bytes.length);
      expect(result.sha256, pathname).to.equal(sha256(bytes));
    }
    expect(await settledOpenFiles(0)).to.equal(0);
  });

  it('sends byte ranges across chunk boundaries exactly (206, RFC 9110 §14)', async () => {
    const size = bytes.length;
    for (const [header, start, end] of [
      ['bytes=0-0', 0, 0],
      ['bytes=262143-262144', 262_143, 262_144],
      ['bytes=100000-5000000', 100_000, 5_000_000],
      [`bytes=${size - 300_000}-`, size - 300_000, size - 1],
      ['bytes=-1', size - 1, size - 1],
    ] as const) {
      const result = await slowGet(`/d/${fileId}`, { range: header });
      expect(result.status, header).to.equal(206);
      expect(result.headers['content-range'], header).to.equal(`bytes ${start}-${end}/${size}`);
      expect(result.headers['content-length'], header).to.equal(String(end - start + 1));
      expect(result.sha256, header).to.equal(sha256(bytes.subarray(start, end + 1)));
    }
  });

  it('closes the file when a client goes away midway (no leaked file descriptor), and keeps serving', async () => {
    const before = await openFilesInDataDir();
    expect(before).to.equal(0);
    for (let attempt = 0; attempt < 3; attempt++) {
      await new Promise<void>((resolve, reject) => {
        const request = http.get(`${server.content}/d/${fileId}`, { agent: false }, (response) => {
          let received = 0;
          response.on('data', (chunk: Buffer) => {
            received += chunk.length;
            // Stop reading after 1 MiB and hang up while the server still has most of the file to send.
            if (received >= MiB && !request.destroyed) {
              request.destroy();
              resolve();
            }
          });
        });
        request.on('error', (error) => (request.destroyed ? resolve() : reject(error)));
      });
    }
    expect(await settledOpenFiles(0), 'files still open after the clients went away').to.equal(0);
    const again = await slowGet(`/d/${fileId}`);
    expect(again.sha256).to.equal(sha256(bytes));
    expect(server.internalErrors, 'a client going away is not logged').to.deep.equal([]);
  });

  localDiskIt('cuts the connection, never a short body that looks whole, when the blob is shorter than its record, and logs it', async () => {
    const other = randomFileOf(2 * MiB, 'video/mp4', 8);
    const result = await upload(server, apiKey, other, { contentType: 'video/mp4', name: 'damaged.mp4' });
    const damaged = result.body.file.file_id as string;
    // The blob store's layout (adapters/blobs/file-and-sqlite-blob-store.ts): find the blob by its name.
    const blob = await findBlob(path.join(server.dataDir), damaged);
    await truncate(blob, MiB);
    const outcome = await new Promise<{ error?: string; length: number; complete: boolean }>((resolve) => {
      const request = http.get(`${server.content}/d/${damaged}`, { agent: false }, (response) => {
        let length = 0;
        response.on('data', (chunk: Buffer) => (length += chunk.length));
        response.on('end', () => resolve({ length, complete: response.complete }));
        response.on('error', (error) => resolve({ error: String(error), length, complete: response.complete }));
      });
      request.on('error', (error) => resolve({ error: String(error), length: 0, complete: false }));
    });
    expect(outcome.complete, JSON.stringify(outcome)).to.equal(false);
    expect(outcome.length).to.be.at.most(MiB);
    expect(await settledOpenFiles(0)).to.equal(0);
    // Logged as a fault of the server (then taken off the list, so the harness does not fail this test for it).
    expect(server.internalErrors).to.have.length(1);
    expect(String((server.internalErrors[0] as { error: Error }).error.message)).to.contain('fewer bytes');
    server.internalErrors.splice(0);
  });
});

/** The path of the blob of file `fileId` under `dataDir` (its name ends with `~<file id>`). */
async function findBlob(dataDir: string, fileId: string): Promise<string> {
  const entries = await readdir(dataDir, { recursive: true });
  const found = entries.find((entry) => entry.endsWith(`~${fileId}`));
  if (!found) throw new Error(`no blob for ${fileId} under ${dataDir}`);
  return path.join(dataDir, found);
}
