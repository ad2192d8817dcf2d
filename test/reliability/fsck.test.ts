import { expect } from 'chai';
import { mkdtemp, rm, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { FileAndSqliteBlobStore, SMALL_BLOBS_FILE } from '../../adapters/blobs/file-and-sqlite-blob-store.js';
import { call, signUpWithKey, startTestServer, type TestServer } from '../support/http-harness.js';
import { aBody, filesUnder, runCli, serverEnv } from './harness.js';

async function* bytes(text: string): AsyncGenerator<Uint8Array> {
  yield Buffer.from(text);
}

/**
 * `npm run cli -- fsck [--repair]` (docs/reliability.md), run as its own process next to
 * a running server over the same DATA_DIR: orphans older than the grace period are listed and
 * removed with --repair, younger ones (uploads in flight) and derived blobs of live files are left
 * alone, records without their blob are reported, and the exit status says whether problems remain.
 */
describe('admin CLI: fsck [--repair] (docs/reliability.md)', function () {
  this.timeout(60_000);
  let dataDir: string;
  let server: TestServer;
  let blobs: FileAndSqliteBlobStore;
  /** The same directory, storing every blob as a file (as a store with SMALL_BLOB_MAX_BYTES=0 did). */
  let blobFiles: FileAndSqliteBlobStore;

  before(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'hangar-fsck-'));
    server = await startTestServer({ RATE_LIMIT_UPLOADS_PER_MINUTE: '0' }, {}, { dataDir });
    blobs = new FileAndSqliteBlobStore({ directory: path.join(dataDir, 'blobs') });
    blobFiles = new FileAndSqliteBlobStore({ directory: path.join(dataDir, 'blobs'), smallBlobMaxBytes: 0 });
  });
  after(async () => {
    await blobs.close();
    await blobFiles.close();
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  const fsck = (...args: string[]) => runCli(['fsck', ...args], serverEnv(dataDir));
  /**
   * Stores a blob behind the service's back, as a file or as a row of small-blobs.db, and makes it
   * `ageSeconds` old (the file's mtime, the row's modified_at).
   */
  async function blobAged(key: string, ageSeconds: number, as: 'file' | 'row'): Promise<void> {
    const time = new Date(Date.now() - ageSeconds * 1000);
    await (as === 'file' ? blobFiles : blobs).put({ key, body: bytes(`blob ${key}`), contentType: 'text/plain', maxBytes: 1_000 });
    if (as === 'row') {
      const database = new BetterSqlite3(path.join(dataDir, 'blobs', SMALL_BLOBS_FILE));
      try {
        expect(database.prepare('update blobs set modified_at = ? where key = ?').run(time.getTime(), key).changes).to.equal(1);
      } finally {
        database.close();
      }
      return;
    }
    const name = key.replaceAll('/', '~');
    const file = (await filesUnder(path.join(dataDir, 'blobs'))).find((f) => f.endsWith(name))!;
    await utimes(path.join(dataDir, 'blobs', file), time, time);
  }

  it('reports orphans, young blobs and records without a blob; --repair removes only the old orphans; exit 1 until clean, then 0', async () => {
    const { userId, apiKey } = await signUpWithKey(server, 'fsck@example.com');
    const upload = async (name: string) => {
      const result = await call(server.api, '/files', {
        method: 'POST',
        apiKey,
        headers: { 'content-type': 'text/plain', 'x-file-name': name },
        body: aBody(3_000),
      });
      expect(result.status).to.equal(201);
      return result.body.file as { id: string; file_id: string };
    };
    const kept = await upload('kept.txt');
    const broken = await upload('broken.txt');
    expect((await fsck()).code, 'clean store').to.equal(0);

    const oldOrphan = `${userId}/OldOrphan1`;
    const youngOrphan = `${userId}/YoungOrph1`;
    const derivedOfLive = `${userId}/${kept.file_id}/w200_webp_v1`;
    const derivedOfGone = `${userId}/GoneFile01/w200_webp_v1`;
    // Uploads of 3,000 bytes are rows; orphans of both kinds, as a store with another limit leaves them.
    await blobAged(oldOrphan, 7_200, 'row');
    await blobAged(youngOrphan, 60, 'file');
    await blobAged(derivedOfLive, 7_200, 'row');
    await blobAged(derivedOfGone, 7_200, 'file');
    await blobs.delete(`${userId}/${broken.file_id}`);

    const looked = await fsck();
    expect(looked.code, looked.stdout + looked.stderr).to.equal(1);
    expect(looked.stderr).to.equal('');
    expect(looked.stdout).to.contain('orphan blobs (no record, older than 3600 s): 2');
    expect(looked.stdout).to.contain(oldOrphan).and.contain(derivedOfGone).and.not.contain(derivedOfLive);
    expect(looked.stdout).to.contain('(uploads in flight, left alone): 1');
    expect(looked.stdout).to.contain(`file ${broken.file_id} of account ${userId}`);
    expect(looked.stdout).to.match(/fsck: problems remain\n$/);
    expect((await blobs.stat(oldOrphan)) !== undefined, 'fsck without --repair removes nothing').to.equal(true);

    const repaired = JSON.parse((await fsck('--repair', '--json')).stdout);
    expect(repaired.orphanBlobs.count).to.equal(2);
    expect(repaired.recordsWithoutBlob.count).to.equal(1);
    expect(repaired.clean).to.equal(false);
    expect(await blobs.stat(oldOrphan)).to.equal(undefined);
    expect(await blobs.stat(derivedOfGone)).to.equal(undefined);
    expect(await blobs.stat(youngOrphan), 'an upload in flight is never touched').to.not.equal(undefined);
    expect(await blobs.stat(derivedOfLive), 'a derived blob of a live file is kept').to.not.equal(undefined);

    const now = await fsck('--repair', '--grace-seconds', '0');
    expect(now.stdout).to.contain('orphan blobs (no record, older than 0 s): 1 (').and.contain(youngOrphan);
    expect(await blobs.stat(youngOrphan)).to.equal(undefined);

    // The record whose bytes are gone cannot be repaired: its owner deletes it, and the store is clean.
    expect((await call(server.api, `/files/${broken.file_id}`, { method: 'DELETE', apiKey })).status).to.equal(204);
    const clean = await fsck();
    expect(clean.code, clean.stdout).to.equal(0);
    expect(clean.stdout).to.match(/fsck: checked 2 blobs and 1 file record\n[\s\S]*fsck: clean\n$/);
    const read = await fetch(`${server.content}/d/${kept.file_id}`);
    expect(read.status).to.equal(200);
  });

  it('refuses a grace period that is not a whole number of seconds (exit 64) and lists fsck in the help', async () => {
    const wrong = await fsck('--grace-seconds', 'soon');
    expect(wrong.code).to.equal(64);
    expect(wrong.stderr).to.contain('--grace-seconds must be a whole number of seconds');
    const help = await runCli(['help'], serverEnv(dataDir));
    expect(help.stdout).to.contain('fsck [--repair] [--grace-seconds N] [--json]');
  });
});
