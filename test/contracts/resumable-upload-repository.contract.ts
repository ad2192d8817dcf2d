import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { UserRepository } from '../../core/accounts/user-repository.js';
import type { FileRepository } from '../../core/files/file-repository.js';
import type { ResumableUpload, ResumableUploadRepository } from '../../core/files/resumable-upload-repository.js';
import { aFile, aFileId, at, givenUser, T0 } from './persistence-fixtures.js';

/** What a contract run needs: the repository, the file repository over the same store (reservations meet files there), users. */
export interface ResumableUploadRepositorySubject {
  subject: ResumableUploadRepository;
  files: FileRepository;
  users: UserRepository;
  close(): Promise<void>;
}

export function anUpload(userId: string, overrides: Partial<ResumableUpload> = {}): ResumableUpload {
  return {
    id: randomUUID().replaceAll('-', ''),
    userId,
    fileId: aFileId(),
    length: 1000,
    offset: 0,
    contentType: 'video/mp4',
    name: 'clip.mp4',
    isPublic: true,
    fileExpiresAt: null,
    expiresAt: at(24 * 3_600_000),
    state: { file: 'x', parts: [{ n: 1, etag: 'abc' }] },
    status: 'uploading',
    createdAt: T0,
    ...overrides,
  };
}

const LIMITS = { storageLimitBytes: 10_000, fileCountLimit: 5 };

/** The behaviour every {@link ResumableUploadRepository} adapter must have (core/files/resumable-upload-repository.ts). */
export function describeResumableUploadRepositoryContract(name: string, makeSubject: () => Promise<ResumableUploadRepositorySubject>): void {
  describe(`ResumableUploadRepository contract: ${name}`, () => {
    let s: ResumableUploadRepositorySubject;
    let userId: string;

    beforeEach(async () => {
      s = await makeSubject();
      userId = (await givenUser(s.users)).id;
    });
    afterEach(async () => {
      await s.close();
    });

    it('stores an upload with its state and finds it by id', async () => {
      const upload = anUpload(userId, { fileExpiresAt: at(5000) });
      expect(await s.subject.create(upload, LIMITS)).to.equal('inserted');
      expect(await s.subject.find(upload.id)).to.deep.equal(upload);
      expect(await s.subject.find('nope')).to.equal(undefined);
    });

    it('reserves the length and one file, which the totals report and plain inserts respect', async () => {
      await s.subject.create(anUpload(userId, { length: 6000 }), LIMITS);
      expect(await s.files.totals(userId)).to.deep.equal({ storageBytes: 0, filesCount: 0, reservedBytes: 6000, reservedFiles: 1 });
      expect((await s.files.totalsAndFileIdTaken(userId, 'AAAAAAAAAA')).totals).to.deep.equal({
        storageBytes: 0,
        filesCount: 0,
        reservedBytes: 6000,
        reservedFiles: 1,
      });
      expect(await s.files.insert(aFile(userId, { size: 5000 }), LIMITS)).to.equal('storage_limit_reached');
      expect(await s.files.insert(aFile(userId, { size: 4000 }), LIMITS)).to.equal('inserted');
      expect(await s.subject.create(anUpload(userId, { length: 1 }), LIMITS)).to.equal('storage_limit_reached');
    });

    it('counts reservations against the file count limit', async () => {
      for (let i = 0; i < 4; i++) expect(await s.subject.create(anUpload(userId, { length: 10 }), LIMITS)).to.equal('inserted');
      expect(await s.files.insert(aFile(userId, { size: 10 }), LIMITS)).to.equal('inserted');
      expect(await s.subject.create(anUpload(userId, { length: 10 }), LIMITS)).to.equal('file_count_limit_reached');
      expect(await s.files.insert(aFile(userId, { size: 10 }), LIMITS)).to.equal('file_count_limit_reached');
    });

    it('caps unfinished uploads per account (maxOpenUploads): stored files and other accounts do not count; a finished one frees its place', async () => {
      const roomy = { storageLimitBytes: 1_000_000, fileCountLimit: 100 };
      const other = (await givenUser(s.users)).id;
      expect(await s.subject.create(anUpload(other, { length: 10 }), roomy, { maxOpenUploads: 2 })).to.equal('inserted');
      expect(await s.files.insert(aFile(userId, { size: 10 }), roomy)).to.equal('inserted');
      const first = anUpload(userId, { length: 10 });
      expect(await s.subject.create(first, roomy, { maxOpenUploads: 2 })).to.equal('inserted');
      expect(await s.subject.create(anUpload(userId, { length: 10 }), roomy, { maxOpenUploads: 2 })).to.equal('inserted');
      const refused = anUpload(userId, { length: 10 });
      expect(await s.subject.create(refused, roomy, { maxOpenUploads: 2 })).to.equal('open_uploads_limit_reached');
      expect(await s.subject.find(refused.id), 'nothing stored').to.equal(undefined);
      expect((await s.files.totals(userId)).reservedFiles).to.equal(2);
      await s.subject.delete({ id: first.id });
      expect(await s.subject.create(anUpload(userId, { length: 10 }), roomy, { maxOpenUploads: 2 })).to.equal('inserted');
    });

    it('of parallel creations against the open-uploads cap, exactly those that fit are stored', async () => {
      const roomy = { storageLimitBytes: 1_000_000, fileCountLimit: 100 };
      const results = await Promise.all(Array.from({ length: 10 }, () => s.subject.create(anUpload(userId, { length: 10 }), roomy, { maxOpenUploads: 4 })));
      expect(results.filter((r) => r === 'inserted')).to.have.length(4);
      expect(results.filter((r) => r !== 'inserted')).to.deep.equal(Array(6).fill('open_uploads_limit_reached'));
      expect((await s.files.totals(userId)).reservedFiles).to.equal(4);
    });

    it('of parallel creations against a nearly full quota, exactly those that fit are stored', async () => {
      await s.files.insert(aFile(userId, { size: 7000 }), LIMITS);
      const results = await Promise.all(
        Array.from({ length: 8 }, () => s.subject.create(anUpload(userId, { length: 1000 }), { ...LIMITS, fileCountLimit: 100 })),
      );
      expect(results.filter((r) => r === 'inserted')).to.have.length(3);
      expect((await s.files.totals(userId)).reservedBytes).to.equal(3000);
    });

    it('a lease is exclusive until it ends, and only at the stored offset', async () => {
      const upload = anUpload(userId);
      await s.subject.create(upload, LIMITS);
      expect(await s.subject.lock({ id: upload.id, offset: 5, owner: 'a', now: 1000, until: 2000 })).to.equal(false);
      expect(await s.subject.lock({ id: upload.id, offset: 0, owner: 'a', now: 1000, until: 2000 })).to.equal(true);
      expect(await s.subject.lock({ id: upload.id, offset: 0, owner: 'b', now: 1500, until: 2500 })).to.equal(false);
      expect(await s.subject.renew({ id: upload.id, owner: 'b', until: 9000 })).to.equal(false);
      expect(await s.subject.renew({ id: upload.id, owner: 'a', until: 3000 })).to.equal(true);
      expect(await s.subject.lock({ id: upload.id, offset: 0, owner: 'b', now: 2500, until: 4000 })).to.equal(false);
      // A lease whose holder died (never unlocked) ends at its time.
      expect(await s.subject.lock({ id: upload.id, offset: 0, owner: 'b', now: 3000, until: 4000 })).to.equal(true);
      expect(await s.subject.advance({ id: upload.id, owner: 'a', offset: 500, state: {} })).to.equal(false);
      expect(await s.subject.advance({ id: upload.id, owner: 'b', offset: 500, state: { file: 'y' } })).to.equal(true);
      await s.subject.unlock({ id: upload.id, owner: 'b' });
      expect(await s.subject.find(upload.id))
        .to.include({ offset: 500 })
        .and.to.have.deep.property('state', { file: 'y' });
      expect(await s.subject.lock({ id: upload.id, offset: 500, owner: 'c', now: 3000, until: 4000 })).to.equal(true);
    });

    it('advance with release records the progress and ends the lease in one write; without, the lease stays', async () => {
      const upload = anUpload(userId);
      await s.subject.create(upload, LIMITS);
      expect(await s.subject.lock({ id: upload.id, offset: 0, owner: 'a', now: 1000, until: 2000 })).to.equal(true);
      expect(await s.subject.advance({ id: upload.id, owner: 'a', offset: 100, state: { n: 1 } })).to.equal(true);
      expect(await s.subject.lock({ id: upload.id, offset: 100, owner: 'b', now: 1500, until: 2500 }), 'still leased after a plain advance').to.equal(false);
      expect(await s.subject.advance({ id: upload.id, owner: 'a', offset: 300, state: { n: 2 }, release: true })).to.equal(true);
      expect(await s.subject.find(upload.id))
        .to.include({ offset: 300 })
        .and.to.have.deep.property('state', { n: 2 });
      // Released: another request takes it at once, long before the lease's time, and the old owner can no longer write.
      expect(await s.subject.lock({ id: upload.id, offset: 300, owner: 'b', now: 1500, until: 2500 })).to.equal(true);
      expect(await s.subject.advance({ id: upload.id, owner: 'a', offset: 400, state: {}, release: true })).to.equal(false);
      expect(await s.subject.renew({ id: upload.id, owner: 'a', until: 9000 })).to.equal(false);
      expect(await s.subject.find(upload.id)).to.include({ offset: 300 });
    });

    it('completing through the file insert consumes the reservation and marks the upload complete, once', async () => {
      const upload = anUpload(userId, { length: 9000 });
      await s.subject.create(upload, LIMITS);
      const file = aFile(userId, { fileId: upload.fileId, size: 9000 });
      // A listing asked before the upload completes answers the new file when asked again after.
      const listing = { userId, filter: {}, window: { offset: 0, limit: 10 } };
      expect(await s.files.list(listing)).to.deep.equal({ items: [], total: 0 });
      expect(await s.files.insert(file, LIMITS, { fromUpload: upload.id })).to.equal('inserted');
      expect(await s.files.totals(userId)).to.deep.equal({ storageBytes: 9000, filesCount: 1 });
      expect((await s.files.list(listing)).items.map((listed) => listed.fileId)).to.deep.equal([upload.fileId]);
      expect(await s.subject.find(upload.id)).to.include({ status: 'complete', offset: 9000 });
      let failed = false;
      await s.files.insert(aFile(userId, { size: 9000 }), LIMITS, { fromUpload: upload.id }).catch(() => (failed = true));
      expect(failed).to.equal(true);
      expect(await s.files.totals(userId)).to.include({ storageBytes: 9000, filesCount: 1 });
      // Deleting a complete upload releases nothing more.
      await s.subject.delete({ id: upload.id });
      expect(await s.files.totals(userId)).to.deep.equal({ storageBytes: 9000, filesCount: 1 });
    });

    it('delete releases an unfinished upload’s reservation, and skips a leased one when asked', async () => {
      const upload = anUpload(userId, { length: 4000 });
      await s.subject.create(upload, LIMITS);
      await s.subject.lock({ id: upload.id, offset: 0, owner: 'a', now: 1000, until: 2000 });
      expect(await s.subject.delete({ id: upload.id, unleasedAt: 1500 })).to.equal(undefined);
      expect((await s.files.totals(userId)).reservedBytes).to.equal(4000);
      expect(await s.subject.delete({ id: upload.id, unleasedAt: 2000 })).to.include({ id: upload.id });
      expect(await s.files.totals(userId)).to.deep.equal({ storageBytes: 0, filesCount: 0 });
      expect(await s.subject.find(upload.id)).to.equal(undefined);
      expect(await s.subject.delete({ id: upload.id })).to.equal(undefined);
    });

    it('finds expired uploads, soonest first, up to the limit', async () => {
      const late = anUpload(userId, { expiresAt: at(3000) });
      const soon = anUpload(userId, { expiresAt: at(1000) });
      const future = anUpload(userId, { expiresAt: at(9000) });
      for (const upload of [late, soon, future]) await s.subject.create(upload, LIMITS);
      expect((await s.subject.findExpired({ now: at(5000), limit: 10 })).map((u) => u.id)).to.deep.equal([soon.id, late.id]);
      expect((await s.subject.findExpired({ now: at(5000), limit: 1 })).map((u) => u.id)).to.deep.equal([soon.id]);
    });

    it('finds one account’s uploads, up to the limit, and none of another’s', async () => {
      const other = (await givenUser(s.users)).id;
      const mine = [anUpload(userId), anUpload(userId), anUpload(userId)];
      for (const upload of [...mine, anUpload(other)]) await s.subject.create(upload, LIMITS);
      expect((await s.subject.findByUser({ userId, limit: 10 })).map((u) => u.id).sort()).to.deep.equal(mine.map((u) => u.id).sort());
      const two = await s.subject.findByUser({ userId, limit: 2 });
      expect(two).to.have.length(2);
      expect(mine.map((u) => u.id)).to.include.members(two.map((u) => u.id));
      expect(await s.subject.findByUser({ userId: (await givenUser(s.users)).id, limit: 10 })).to.deep.equal([]);
    });
  });
}
