import { expect } from 'chai';
import type { FileRepository, InsertResult, QuotaLimits, StoredFile } from '../../core/index.js';
import { brokenBody, bytes, createMemoryHangar, expectDomainError, settle, untouchableBody, withTrialPlan } from '../support/memory-hangar.js';

/**
 * A FileRepository that holds every insert until `expected` inserts are waiting, then lets them
 * all through at once: every upload has passed the use case's own checks on the same totals, so
 * only the repository's atomic insert can keep the quota.
 */
class BarrierFileRepository implements FileRepository {
  private waiting: (() => void)[] = [];
  constructor(
    private readonly inner: FileRepository,
    private readonly expected: number,
  ) {}
  async insert(file: StoredFile, limits: QuotaLimits): Promise<InsertResult> {
    await new Promise<void>((resolve) => {
      this.waiting.push(resolve);
      if (this.waiting.length >= this.expected) for (const release of this.waiting.splice(0)) release();
    });
    return this.inner.insert(file, limits);
  }
  totals(userId: string) {
    return this.inner.totals(userId);
  }
  findByFileId(fileId: string) {
    return this.inner.findByFileId(fileId);
  }
  totalsAndFileIdTaken(userId: string, fileId: string) {
    return this.inner.totalsAndFileIdTaken(userId, fileId);
  }
  list(options: Parameters<FileRepository['list']>[0]) {
    return this.inner.list(options);
  }
  deleteMany(options: Parameters<FileRepository['deleteMany']>[0]) {
    return this.inner.deleteMany(options);
  }
  scan(options: Parameters<FileRepository['scan']>[0]) {
    return this.inner.scan(options);
  }
  update(options: Parameters<FileRepository['update']>[0]) {
    return this.inner.update(options);
  }
  findExpired(options: Parameters<FileRepository['findExpired']>[0]) {
    return this.inner.findExpired(options);
  }
  findWithSigningKey(fileId: string) {
    return this.inner.findWithSigningKey(fileId);
  }
  addReadCounts(entries: Parameters<FileRepository['addReadCounts']>[0]) {
    return this.inner.addReadCounts(entries);
  }
}

/** Alice on a plan with `limits`; `stored` lists what she uploads first. */
async function withAlice(limits: { storageLimitBytes?: number; fileCountLimit?: number }, replacePorts?: Parameters<typeof createMemoryHangar>[1]) {
  const world = createMemoryHangar(withTrialPlan(limits), replacePorts);
  const alice = await world.registerConfirmed('alice@example.com');
  const listed = async () => (await world.hangar.listFiles.execute({ userId: alice.userId, filter: {}, page: 1, limit: 100 })).total;
  return { ...world, alice, listed };
}

describe('Quotas', () => {
  describe('file count', () => {
    it('refuses the 11th file when the plan allows 10, before reading the body, and stores nothing', async () => {
      const { hangar, alice, upload, blobs, totals, listed } = await withAlice({ fileCountLimit: 10 });
      for (let i = 0; i < 10; i++) await upload(alice.userId, { size: 10 });
      const putsBefore = blobs.putKeys.length;
      const body = untouchableBody();
      const error = await expectDomainError(
        hangar.uploadFile.execute({ userId: alice.userId, contentType: 'text/plain', fileName: undefined, body }),
        'FILE_COUNT_LIMIT_REACHED',
      );
      expect(error.details).to.deep.equal({ file_count_limit: 10 });
      expect(body.touched).to.equal(false);
      expect(blobs.putKeys).to.have.length(putsBefore);
      expect(await totals(alice.userId)).to.deep.equal({ storageBytes: 100, filesCount: 10 });
      expect(await listed()).to.equal(10);
    });

    it('accepts a file again once one is deleted', async () => {
      const { hangar, alice, upload, totals } = await withAlice({ fileCountLimit: 3 });
      const first = (await upload(alice.userId, { size: 10 })).file;
      await upload(alice.userId, { size: 10 });
      await upload(alice.userId, { size: 10 });
      await expectDomainError(upload(alice.userId, { size: 10 }), 'FILE_COUNT_LIMIT_REACHED');
      await hangar.deleteFile.execute({ userId: alice.userId, fileId: first.fileId });
      await upload(alice.userId, { size: 7 });
      expect(await totals(alice.userId)).to.deep.equal({ storageBytes: 27, filesCount: 3 });
    });

    it('counts per account: another account’s files do not use Alice’s slots', async () => {
      const world = await withAlice({ fileCountLimit: 2 });
      const bob = await world.registerConfirmed('bob@example.com');
      await world.upload(bob.userId);
      await world.upload(bob.userId);
      await world.upload(world.alice.userId);
      await world.upload(world.alice.userId);
      await expectDomainError(world.upload(world.alice.userId), 'FILE_COUNT_LIMIT_REACHED');
    });
  });

  describe('storage', () => {
    /** Alice with 2000 of 2500 bytes used: 500 left, under the 1024-byte upload limit. */
    async function withAliceNearlyFull() {
      const world = await withAlice({ storageLimitBytes: 2500, fileCountLimit: 100 });
      await world.upload(world.alice.userId, { size: 1000 });
      await world.upload(world.alice.userId, { size: 1000 });
      return world;
    }

    it('accepts exactly the storage left, with and without Content-Length', async () => {
      const a = await withAliceNearlyFull();
      expect((await a.upload(a.alice.userId, { size: 500, contentLength: 500 })).file.size).to.equal(500);
      expect(await a.totals(a.alice.userId)).to.deep.equal({ storageBytes: 2500, filesCount: 3 });
      const b = await withAliceNearlyFull();
      expect((await b.upload(b.alice.userId, { size: 500 })).file.size).to.equal(500);
      expect(await b.totals(b.alice.userId)).to.deep.equal({ storageBytes: 2500, filesCount: 3 });
    });

    it('refuses any upload with STORAGE_LIMIT_REACHED once storage is full, before reading the body', async () => {
      const { hangar, alice, upload, blobs, totals } = await withAliceNearlyFull();
      await upload(alice.userId, { size: 500 });
      const putsBefore = blobs.putKeys.length;
      const body = untouchableBody();
      const error = await expectDomainError(
        hangar.uploadFile.execute({ userId: alice.userId, contentType: 'text/plain', fileName: undefined, body }),
        'STORAGE_LIMIT_REACHED',
      );
      expect(error.details).to.deep.equal({ storage_limit_bytes: 2500 });
      expect(body.touched).to.equal(false);
      expect(blobs.putKeys).to.have.length(putsBefore);
      expect(await totals(alice.userId)).to.deep.equal({ storageBytes: 2500, filesCount: 3 });
    });

    it('refuses a Content-Length that would cross the limit before reading the body, leaving nothing', async () => {
      const { hangar, alice, blobs, totals, listed } = await withAliceNearlyFull();
      const putsBefore = blobs.putKeys.length;
      const body = untouchableBody();
      const error = await expectDomainError(
        hangar.uploadFile.execute({ userId: alice.userId, contentType: 'text/plain', fileName: undefined, contentLength: 501, body }),
        'STORAGE_LIMIT_REACHED',
      );
      expect(error.details).to.deep.equal({ storage_limit_bytes: 2500 });
      expect(body.touched).to.equal(false);
      expect(blobs.putKeys).to.have.length(putsBefore);
      expect(await totals(alice.userId)).to.deep.equal({ storageBytes: 2000, filesCount: 2 });
      expect(await listed()).to.equal(2);
    });

    it('refuses a streamed body (no Content-Length) that crosses the limit, leaving no blob and no record', async () => {
      const { alice, upload, blobs, totals, listed } = await withAliceNearlyFull();
      const live = await blobs.liveKeys();
      const error = await expectDomainError(upload(alice.userId, { size: 501 }), 'STORAGE_LIMIT_REACHED');
      expect(error.details).to.deep.equal({ storage_limit_bytes: 2500 });
      expect(await blobs.liveKeys()).to.have.members(live);
      expect(await blobs.liveKeys()).to.have.length(2);
      expect(await totals(alice.userId)).to.deep.equal({ storageBytes: 2000, filesCount: 2 });
      expect(await listed()).to.equal(2);
    });

    it('refuses a body that crosses the limit although its Content-Length claimed it fits', async () => {
      const { alice, upload, blobs, totals } = await withAliceNearlyFull();
      await expectDomainError(upload(alice.userId, { size: 900, contentLength: 400 }), 'STORAGE_LIMIT_REACHED');
      expect(await blobs.liveKeys()).to.have.length(2);
      expect(await totals(alice.userId)).to.deep.equal({ storageBytes: 2000, filesCount: 2 });
    });

    it('counts per account: Bob’s bytes do not fill Alice’s storage', async () => {
      const world = await withAlice({ storageLimitBytes: 1000 });
      const bob = await world.registerConfirmed('bob@example.com');
      await world.upload(bob.userId, { size: 1000 });
      expect((await world.upload(world.alice.userId, { size: 1000 })).file.size).to.equal(1000);
      await expectDomainError(world.upload(bob.userId, { size: 1 }), 'STORAGE_LIMIT_REACHED');
    });
  });

  describe('totals', () => {
    it('stay exact through uploads, deletes, bulk deletes and every kind of refused upload', async () => {
      const world = await withAlice({ storageLimitBytes: 3000, fileCountLimit: 5 });
      const { hangar, alice, upload, totals } = world;
      const bob = await world.registerConfirmed('bob@example.com');
      const bobs = (await upload(bob.userId, { size: 77 })).file;
      expect(await totals(alice.userId)).to.deep.equal({ storageBytes: 0, filesCount: 0 });

      const a = (await upload(alice.userId, { size: 100 })).file;
      const b = (await upload(alice.userId, { size: 200 })).file;
      const c = (await upload(alice.userId, { size: 300 })).file;
      expect(await totals(alice.userId)).to.deep.equal({ storageBytes: 600, filesCount: 3 });

      await expectDomainError(upload(alice.userId, { size: 1025 }), 'FILE_TOO_LARGE');
      await expectDomainError(upload(alice.userId, { contentLength: 2000, body: untouchableBody() }), 'FILE_TOO_LARGE');
      await expectDomainError(upload(alice.userId, { body: bytes(0) }), 'EMPTY_FILE');
      await expectDomainError(upload(alice.userId, { size: 50, contentLength: 60 }), 'UPLOAD_INCOMPLETE');
      await expectDomainError(upload(alice.userId, { body: brokenBody(40) }), 'UPLOAD_INCOMPLETE');
      await expectDomainError(upload(alice.userId, { contentType: 'application/x-msdownload' }), 'CONTENT_TYPE_NOT_ALLOWED');
      expect(await totals(alice.userId)).to.deep.equal({ storageBytes: 600, filesCount: 3 });

      await hangar.deleteFile.execute({ userId: alice.userId, fileId: b.fileId });
      await expectDomainError(hangar.deleteFile.execute({ userId: alice.userId, fileId: b.fileId }), 'FILE_NOT_FOUND');
      await expectDomainError(hangar.deleteFile.execute({ userId: alice.userId, fileId: bobs.fileId }), 'FILE_NOT_FOUND');
      expect(await totals(alice.userId)).to.deep.equal({ storageBytes: 400, filesCount: 2 });

      const result = await hangar.bulkDeleteFiles.execute({ userId: alice.userId, ids: [a.fileId, a.fileId, bobs.fileId, b.fileId, 'AAAAAAAAAA'] });
      expect(result.deleted).to.equal(1);
      expect(await totals(alice.userId)).to.deep.equal({ storageBytes: 300, filesCount: 1 });
      expect(await totals(bob.userId)).to.deep.equal({ storageBytes: 77, filesCount: 1 });

      await hangar.bulkDeleteFiles.execute({ userId: alice.userId, ids: [c.fileId] });
      expect(await totals(alice.userId)).to.deep.equal({ storageBytes: 0, filesCount: 0 });
    });

    it('stay exact through quota refusals', async () => {
      const { alice, upload, totals } = await withAlice({ storageLimitBytes: 1000, fileCountLimit: 2 });
      await upload(alice.userId, { size: 900 });
      await expectDomainError(upload(alice.userId, { size: 101 }), 'STORAGE_LIMIT_REACHED');
      await expectDomainError(upload(alice.userId, { size: 101, contentLength: 101 }), 'STORAGE_LIMIT_REACHED');
      expect(await totals(alice.userId)).to.deep.equal({ storageBytes: 900, filesCount: 1 });
      await upload(alice.userId, { size: 100 });
      await expectDomainError(upload(alice.userId, { size: 1 }), 'FILE_COUNT_LIMIT_REACHED');
      expect(await totals(alice.userId)).to.deep.equal({ storageBytes: 1000, filesCount: 2 });
    });
  });

  describe('under concurrency', () => {
    it('20 uploads at once with 10 file slots left make exactly 10 files, the others FILE_COUNT_LIMIT_REACHED', async () => {
      const { alice, upload, blobs, totals, listed } = await withAlice({ fileCountLimit: 15, storageLimitBytes: 100_000 });
      for (let i = 0; i < 5; i++) await upload(alice.userId, { size: 10 });
      const { values, codes } = await settle(Array.from({ length: 20 }, () => upload(alice.userId, { size: 10 })));
      expect(values).to.have.length(10);
      expect(codes).to.deep.equal(Array(10).fill('FILE_COUNT_LIMIT_REACHED'));
      expect(await totals(alice.userId)).to.deep.equal({ storageBytes: 150, filesCount: 15 });
      expect(await listed()).to.equal(15);
      expect(await blobs.liveKeys()).to.have.length(15);
    });

    it('keeps the file count even when every upload passed the use case’s checks before any insert (the repository decides)', async () => {
      const { alice, upload, blobs, totals, listed } = await withAlice({ fileCountLimit: 10, storageLimitBytes: 100_000 }, (ports) => ({
        files: new BarrierFileRepository(ports.files, 20),
      }));
      const { values, codes } = await settle(Array.from({ length: 20 }, () => upload(alice.userId, { size: 10 })));
      expect(values).to.have.length(10);
      expect(codes).to.deep.equal(Array(10).fill('FILE_COUNT_LIMIT_REACHED'));
      expect(await totals(alice.userId)).to.deep.equal({ storageBytes: 100, filesCount: 10 });
      expect(await listed()).to.equal(10);
      expect(await blobs.liveKeys()).to.have.length(10);
    });

    it('20 uploads of 100 bytes at once with 1000 bytes left store exactly 10, the others STORAGE_LIMIT_REACHED', async () => {
      const { alice, upload, blobs, totals, listed } = await withAlice({ fileCountLimit: 100, storageLimitBytes: 1000 }, (ports) => ({
        files: new BarrierFileRepository(ports.files, 20),
      }));
      const { values, codes } = await settle(Array.from({ length: 20 }, () => upload(alice.userId, { size: 100 })));
      expect(values).to.have.length(10);
      expect(codes).to.deep.equal(Array(10).fill('STORAGE_LIMIT_REACHED'));
      expect(await totals(alice.userId)).to.deep.equal({ storageBytes: 1000, filesCount: 10 });
      expect(await listed()).to.equal(10);
      expect(await blobs.liveKeys()).to.have.length(10);
    });

    it('never overshoots storage with sizes that do not divide the limit: 20 × 150 bytes into 1000 store 6', async () => {
      const { alice, upload, totals } = await withAlice({ fileCountLimit: 100, storageLimitBytes: 1000 }, (ports) => ({
        files: new BarrierFileRepository(ports.files, 20),
      }));
      const { values, codes } = await settle(Array.from({ length: 20 }, () => upload(alice.userId, { size: 150 })));
      expect(values).to.have.length(6);
      expect(codes).to.deep.equal(Array(14).fill('STORAGE_LIMIT_REACHED'));
      expect(await totals(alice.userId)).to.deep.equal({ storageBytes: 900, filesCount: 6 });
    });
  });
});
