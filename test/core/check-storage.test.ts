import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { MemoryBlobStore } from '../../adapters/blobs/memory-blob-store.js';
import { MemoryFileRepository } from '../../adapters/persistence/memory/memory-file-repository.js';
import { blobRoleOf, isLiveBlob } from '../../core/files/blob-ownership.js';
import { CheckStorage } from '../../core/files/check-storage.js';
import type { StoredFile } from '../../core/files/stored-file.js';
import { aFile } from '../contracts/persistence-fixtures.js';
import { FixedClock } from '../support/fixed-clock.js';

const HOUR = 60 * 60 * 1000;
const ROOMY = { storageLimitBytes: 1e12, fileCountLimit: 1e6 };

async function* bytesOf(text: string): AsyncGenerator<Uint8Array> {
  yield Buffer.from(text);
}

describe('CheckStorage (fsck): blobs against file records', () => {
  let files: MemoryFileRepository;
  let blobs: MemoryBlobStore;
  let clock: FixedClock;
  let check: CheckStorage;
  const userId = randomUUID();

  beforeEach(() => {
    files = new MemoryFileRepository();
    blobs = new MemoryBlobStore();
    clock = new FixedClock(new Date());
    check = new CheckStorage({ files, blobs, clock });
  });

  /** A blob under `key`, stored `ageMs` ago. */
  async function blob(key: string, text: string, ageMs = 2 * HOUR): Promise<void> {
    await blobs.put({ key, body: bytesOf(text), contentType: 'text/plain', maxBytes: 1_000 });
    blobs.setModifiedAt(key, new Date(clock.now().getTime() - ageMs));
  }

  /** A record with its blob. */
  async function file(text = 'contents'): Promise<StoredFile> {
    const record = aFile(userId, { size: Buffer.byteLength(text) });
    await blob(record.blobKey, text);
    expect(await files.insert(record, ROOMY)).to.equal('inserted');
    return record;
  }

  it('finds nothing wrong when every record has its blob and every blob its record', async () => {
    await file('a');
    await file('bb');
    const report = await check.execute({ repair: false, graceMs: HOUR });
    expect(report).to.deep.include({ blobsChecked: 2, recordsChecked: 2, clean: true });
    expect(report.orphanBlobs.count).to.equal(0);
  });

  it('reports an old blob without a record as an orphan, and removes it only with repair', async () => {
    const kept = await file();
    const orphanKey = `${userId}/AbCdEfGhIj`;
    await blob(orphanKey, 'left by a crash');
    const looked = await check.execute({ repair: false, graceMs: HOUR });
    expect(looked.clean).to.equal(false);
    expect(looked.orphanBlobs.count).to.equal(1);
    expect(looked.orphanBlobs.bytes).to.equal(15);
    expect(looked.orphanBlobs.items.map((b) => b.key)).to.deep.equal([orphanKey]);
    expect(await blobs.stat(orphanKey)).to.not.equal(undefined);

    const repaired = await check.execute({ repair: true, graceMs: HOUR });
    expect(repaired.clean).to.equal(true);
    expect(repaired.orphanBlobs.count).to.equal(1);
    expect(await blobs.stat(orphanKey)).to.equal(undefined);
    expect(await blobs.stat(kept.blobKey)).to.not.equal(undefined);
    expect((await check.execute({ repair: false, graceMs: HOUR })).orphanBlobs.count).to.equal(0);
  });

  it('never touches a blob without a record that is younger than the grace period (an upload in flight)', async () => {
    const inFlight = `${userId}/InFlight01`;
    await blob(inFlight, 'still being committed', HOUR - 1000);
    const report = await check.execute({ repair: true, graceMs: HOUR });
    expect(report.youngBlobsSkipped).to.equal(1);
    expect(report.orphanBlobs.count).to.equal(0);
    expect(report.clean).to.equal(true);
    expect(await blobs.stat(inFlight)).to.not.equal(undefined);
  });

  it('keeps derived blobs (<file blob key>/<variant>) of a live file and removes those of a deleted file', async () => {
    const live = await file();
    await blob(`${live.blobKey}/w200_webp_v1`, 'thumbnail');
    const gone = `${userId}/GoneFile01/w200_webp_v1`;
    await blob(gone, 'thumbnail of a deleted file');
    const report = await check.execute({ repair: true, graceMs: HOUR });
    expect(report.orphanBlobs.items.map((b) => b.key)).to.deep.equal([gone]);
    expect(await blobs.stat(`${live.blobKey}/w200_webp_v1`)).to.not.equal(undefined);
    expect(await blobs.stat(gone)).to.equal(undefined);
  });

  it("treats a blob under another account's prefix with a live file id as an orphan (the key must match the record)", async () => {
    const live = await file();
    const impostor = `${randomUUID()}/${live.fileId}`;
    await blob(impostor, 'x');
    const report = await check.execute({ repair: true, graceMs: HOUR });
    expect(report.orphanBlobs.items.map((b) => b.key)).to.deep.equal([impostor]);
    expect(await blobs.stat(live.blobKey)).to.not.equal(undefined);
  });

  it('reports blobs of an unknown key shape and leaves them alone', async () => {
    await blob('a/b/c/d', 'unknown');
    const report = await check.execute({ repair: true, graceMs: HOUR });
    expect(report.unrecognisedBlobs).to.deep.equal({ count: 1, items: ['a/b/c/d'] });
    expect(await blobs.stat('a/b/c/d')).to.not.equal(undefined);
  });

  it('reports records whose blob is missing or has another size, and cannot repair them', async () => {
    const missing = await file('aaaa');
    await blobs.delete(missing.blobKey);
    const truncated = aFile(userId, { size: 100 });
    await blob(truncated.blobKey, 'short');
    await files.insert(truncated, ROOMY);
    const report = await check.execute({ repair: true, graceMs: HOUR });
    expect(report.clean).to.equal(false);
    expect(report.recordsWithoutBlob.items.map((r) => r.fileId)).to.deep.equal([missing.fileId]);
    expect(report.sizeMismatches.items).to.deep.equal([{ fileId: truncated.fileId, userId, blobKey: truncated.blobKey, size: 100, blobSize: 5 }]);
  });

  it('reads records in pages: 1 200 files are all checked', async function () {
    this.timeout(20_000);
    for (let i = 0; i < 1_200; i++) await file(`f${i}`);
    const report = await check.execute({ repair: false, graceMs: HOUR });
    expect(report).to.deep.include({ blobsChecked: 1_200, recordsChecked: 1_200, clean: true });
  });
});

describe('the orphan rule (blobRoleOf, isLiveBlob)', () => {
  const record = aFile('acct');
  it('knows a file blob, a derived blob and anything else by the key shape', () => {
    expect(blobRoleOf('acct/AbCdEfGhIj')).to.deep.equal({ kind: 'file', fileId: 'AbCdEfGhIj' });
    expect(blobRoleOf('acct/AbCdEfGhIj/w100')).to.deep.equal({ kind: 'derived', fileId: 'AbCdEfGhIj' });
    expect(blobRoleOf('x')).to.deep.equal({ kind: 'unknown' });
    expect(blobRoleOf('a/b/c/d')).to.deep.equal({ kind: 'unknown' });
  });
  it('calls a blob live only when its record owns exactly that key or the key is under it', () => {
    expect(isLiveBlob(record.blobKey, blobRoleOf(record.blobKey), record)).to.equal(true);
    expect(isLiveBlob(`${record.blobKey}/v`, blobRoleOf(`${record.blobKey}/v`), record)).to.equal(true);
    expect(isLiveBlob(record.blobKey, blobRoleOf(record.blobKey), undefined)).to.equal(false);
    expect(isLiveBlob(`other/${record.fileId}`, blobRoleOf(`other/${record.fileId}`), record)).to.equal(false);
  });
});
