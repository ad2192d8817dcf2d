import { expect } from 'chai';
import fc from 'fast-check';
import type { UserRepository } from '../../core/accounts/user-repository.js';
import type { FileFilter, FileRepository, QuotaLimits } from '../../core/files/file-repository.js';
import type { StoredFile } from '../../core/files/stored-file.js';
import type { SigningKeyRepository } from '../../core/files/signing-key-repository.js';
import { mapConcurrently } from '../support/concurrently.js';
import { aFile, aFileId, at, aUser, givenUser, matchesRangeFilter, T0 } from './persistence-fixtures.js';

/** What a {@link describeFileRepositoryContract} factory returns: repositories over one empty store. */
export interface FileRepositorySubject {
  subject: FileRepository;
  /** Creates the users that own files (a database checks the foreign key). */
  users: UserRepository;
  /** A second repository over the same store, as another process would hold (defaults to `subject`). */
  other?: FileRepository;
  /** The signing keys over the same store (read back by `findWithSigningKey`). */
  signingKeys: SigningKeyRepository;
  close?: () => Promise<void>;
}

const GiB = 1024 ** 3;
/** One hour in ms. */
const HOUR = 3_600_000;
/** Limits no test reaches unless it means to. */
const ROOMY: QuotaLimits = { storageLimitBytes: 1024 * GiB, fileCountLimit: 1_000_000 };

/** The behaviour every {@link FileRepository} adapter must have; `makeSubject` is called once per test. */
export function describeFileRepositoryContract(name: string, makeSubject: () => Promise<FileRepositorySubject>): void {
  describe(`FileRepository contract: ${name}`, () => {
    let files: FileRepository;
    let users: UserRepository;
    let close: (() => Promise<void>) | undefined;
    let other: FileRepository | undefined;
    let signingKeys: SigningKeyRepository;
    let userId: string;
    let otherUserId: string;

    beforeEach(async () => {
      ({ subject: files, users, close, other, signingKeys } = await makeSubject());
      userId = (await givenUser(users)).id;
      otherUserId = (await givenUser(users)).id;
    });
    afterEach(async () => {
      await close?.();
    });

    async function givenFiles(owner: string, overrides: Partial<StoredFile>[]): Promise<StoredFile[]> {
      const created = overrides.map((o) => aFile(owner, o));
      for (const file of created) expect(await files.insert(file, ROOMY)).to.equal('inserted');
      return created;
    }

    /** The file ids of the user's files matching `filter`, in list order (one page of 100). */
    async function found(filter: FileFilter, owner = userId): Promise<string[]> {
      const page = await files.list({ userId: owner, filter, window: { offset: 0, limit: 100 } });
      return page.items.map((file) => file.fileId);
    }

    async function rejects(promise: Promise<unknown>): Promise<void> {
      let failed = false;
      await promise.catch(() => {
        failed = true;
      });
      expect(failed, 'expected the promise to reject').to.equal(true);
    }

    it('keeps a filtered total exact while files come and go, also through another process, asked again and again', async () => {
      const [cat1] = await givenFiles(userId, [{ name: 'cat-1.png' }, { name: 'cat-2.png' }, { name: 'dog.png' }]);
      await givenFiles(otherUserId, [{ name: 'cat-9.png' }]);
      // 'cat-' and not 'cat': q matches file ids too, and a random 10-character base62 file id
      // contains "cat" in any case once in ~3,700 (this test failed once that way).
      const total = async () => (await files.list({ userId, filter: { q: 'cat-', sizeMin: 0 }, window: { offset: 0, limit: 1 } })).total;
      const writer = other ?? files;
      expect(await total()).to.equal(2);
      expect(await total()).to.equal(2);
      expect(await writer.insert(aFile(userId, { name: 'cat-3.png' }), ROOMY)).to.equal('inserted');
      expect(await total()).to.equal(3);
      await writer.deleteMany({ userId, fileIds: [cat1.fileId] });
      expect(await total()).to.equal(2);
      // One in, one out: the same count of files, and still counted anew.
      expect(await writer.insert(aFile(userId, { name: 'dog-2.png' }), ROOMY)).to.equal('inserted');
      const [cat2] = (await files.list({ userId, filter: { q: 'cat-2' }, window: { offset: 0, limit: 1 } })).items;
      await writer.deleteMany({ userId, fileIds: [cat2.fileId] });
      expect(await total()).to.equal(1);
      expect((await files.list({ userId: otherUserId, filter: { q: 'cat-', sizeMin: 0 }, window: { offset: 0, limit: 1 } })).total).to.equal(1);
    });

    it('answers one page asked again and again as it is now, while files come, go and change through another process', async () => {
      const writer = other ?? files;
      const [lake, fern] = await givenFiles(userId, [
        { name: 'pine-lake.png', createdAt: at(1) },
        { name: 'pine-fern.png', createdAt: at(2), isPublic: false },
        { name: 'oak.png', createdAt: at(3) },
      ]);
      await givenFiles(otherUserId, [{ name: 'pine-theirs.png', createdAt: at(4) }]);
      // Each filter path: the search, the search with other filters, a content type, a size range.
      const filters: FileFilter[] = [{ q: 'pine-' }, { q: 'pine-', isPublic: true }, { type: 'application/pdf' }, { sizeMin: 0, sizeMax: 10_000 }];
      /** What each filter answers for page 1 of 2: ids and names in list order, view counts, and the total. */
      const pages = async (repository: FileRepository) =>
        Promise.all(
          filters.map(async (filter) => {
            const page = await repository.list({ userId, filter, window: { offset: 0, limit: 2 } });
            return {
              total: page.total,
              files: page.items.map((file) => `${file.fileId} ${file.name} ${file.isPublic} ${file.viewCount} ${file.expiresAt?.getTime() ?? '-'}`),
            };
          }),
        );
      const expectSame = async () => {
        const first = await pages(files);
        expect(await pages(files), 'asked again').to.deep.equal(first);
        if (other) expect(await pages(other), 'through the other process').to.deep.equal(first);
        return first;
      };
      const line = (file: StoredFile, changes: Partial<StoredFile> = {}) => {
        const now = { ...file, ...changes };
        return `${now.fileId} ${now.name} ${now.isPublic} ${now.viewCount} ${now.expiresAt?.getTime() ?? '-'}`;
      };
      expect((await expectSame())[0]).to.deep.equal({ total: 2, files: [line(fern), line(lake)] });

      const [newest] = [aFile(userId, { name: 'pine-new.png', createdAt: at(5) })];
      expect(await writer.insert(newest, ROOMY)).to.equal('inserted');
      let now = await expectSame();
      expect(now[0]).to.deep.equal({ total: 3, files: [line(newest), line(fern)] });
      expect(now[1]).to.deep.equal({ total: 2, files: [line(newest), line(lake)] });
      expect(now[2].total).to.equal(4);

      await writer.update({ userId, fileId: newest.fileId, changes: { name: 'birch.png' } });
      now = await expectSame();
      expect(now[0]).to.deep.equal({ total: 2, files: [line(fern), line(lake)] });
      expect(now[2].files[0]).to.equal(line(newest, { name: 'birch.png' }));

      await writer.update({ userId, fileId: fern.fileId, changes: { isPublic: true, expiresAt: at(9) } });
      now = await expectSame();
      expect(now[1]).to.deep.equal({ total: 2, files: [line(fern, { isPublic: true, expiresAt: at(9) }), line(lake)] });

      // Read counts change no total and no order, and still show.
      await writer.addReadCounts([{ fileId: lake.fileId, views: 3, downloads: 0 }]);
      now = await expectSame();
      expect(now[0].files[1]).to.equal(line(lake, { viewCount: 3 }));

      await writer.deleteMany({ userId, fileIds: [fern.fileId] });
      now = await expectSame();
      expect(now[0]).to.deep.equal({ total: 1, files: [line(lake, { viewCount: 3 })] });
      expect(now[3].total).to.equal(3);
    });

    it('answers pages of several accounts asked at once, each its own, the first time and again', async () => {
      // Fixed file ids: q matches file ids too, and a random one holds "ash" about one time in 4,000.
      await givenFiles(userId, [
        { name: 'elm-1.png', fileId: 'file000001', createdAt: at(1) },
        { name: 'elm-2.png', fileId: 'file000002', createdAt: at(2) },
        { name: 'ash.png', fileId: 'file000003', createdAt: at(3) },
      ]);
      await givenFiles(otherUserId, [
        { name: 'elm-9.png', fileId: 'file000004', createdAt: at(4) },
        { name: 'ash-9.png', fileId: 'file000005', createdAt: at(5) },
      ]);
      const asks = [
        { userId, filter: { q: 'elm-' }, window: { offset: 0, limit: 1 } },
        { userId, filter: { q: 'elm-' }, window: { offset: 1, limit: 1 } },
        { userId, filter: { q: 'ash' }, window: { offset: 0, limit: 10 } },
        { userId: otherUserId, filter: { q: 'elm-' }, window: { offset: 0, limit: 1 } },
        { userId: otherUserId, filter: { q: 'ash' }, window: { offset: 0, limit: 10 } },
      ];
      const names = (page: { items: StoredFile[]; total: number }) => ({ total: page.total, names: page.items.map((file) => file.name) });
      const expected = [
        { total: 2, names: ['elm-2.png'] },
        { total: 2, names: ['elm-1.png'] },
        { total: 1, names: ['ash.png'] },
        { total: 1, names: ['elm-9.png'] },
        { total: 1, names: ['ash-9.png'] },
      ];
      for (let round = 0; round < 3; round++) {
        expect((await Promise.all(asks.map((ask) => files.list(ask)))).map(names), `round ${round}`).to.deep.equal(expected);
      }
      await (other ?? files).addReadCounts([{ fileId: (await files.list(asks[0])).items[0].fileId, views: 2, downloads: 5 }]);
      const again = await Promise.all(asks.map((ask) => files.list(ask)));
      expect(again.map(names)).to.deep.equal(expected);
      expect(again.map((page) => page.items.map((file) => [file.viewCount, file.downloadCount]))).to.deep.equal([
        [[2, 5]],
        [[0, 0]],
        [[0, 0]],
        [[0, 0]],
        [[0, 0]],
      ]);
      // A new file of one account, asked together with the other's pages.
      expect(await (other ?? files).insert(aFile(userId, { name: 'elm-3.png', createdAt: at(6) }), ROOMY)).to.equal('inserted');
      expect((await Promise.all(asks.map((ask) => files.list(ask)))).map(names)).to.deep.equal([
        { total: 3, names: ['elm-3.png'] },
        { total: 3, names: ['elm-2.png'] },
        ...expected.slice(2),
      ]);
    });

    it('stores a record and finds it by its public file id, every field intact', async () => {
      const file = aFile(userId, { name: 'holiday.mp4', contentType: 'video/mp4', size: 6 * GiB, isPublic: false, createdAt: at(1234) });
      expect(await files.insert(file, ROOMY)).to.equal('inserted');
      expect(await files.findByFileId(file.fileId)).to.deep.equal(file);
    });

    it('keeps what an upload removed from an image, read back by file id, in listings and with the signing key', async () => {
      const file = aFile(userId, { name: 'beach.jpg', contentType: 'image/jpeg', metadataRemoved: ['location', 'xmp'] });
      expect(await files.insert(file, ROOMY)).to.equal('inserted');
      expect((await files.findByFileId(file.fileId))?.metadataRemoved).to.deep.equal(['location', 'xmp']);
      expect((await files.findWithSigningKey(file.fileId))?.file.metadataRemoved).to.deep.equal(['location', 'xmp']);
      const listed = (await files.list({ userId, filter: {}, window: { offset: 0, limit: 10 } })).items.find((item) => item.fileId === file.fileId);
      expect(listed?.metadataRemoved).to.deep.equal(['location', 'xmp']);
      const plain = aFile(userId, { name: 'plain.jpg', metadataRemoved: [] });
      await files.insert(plain, ROOMY);
      expect((await files.findByFileId(plain.fileId))?.metadataRemoved).to.equal(undefined);
    });

    it('keeps a file without a name as null', async () => {
      const [file] = await givenFiles(userId, [{ name: null }]);
      expect((await files.findByFileId(file.fileId))?.name).to.equal(null);
    });

    it('finds a file by file id whoever owns it, and answers undefined for an unknown id', async () => {
      const [theirs] = await givenFiles(otherUserId, [{}]);
      expect(await files.findByFileId(theirs.fileId)).to.deep.equal(theirs);
      expect(await files.findByFileId(aFileId())).to.equal(undefined);
    });

    it('answers the totals and whether a file id is taken (by any account) in one read', async () => {
      expect(await files.totalsAndFileIdTaken(userId, aFileId())).to.deep.equal({ totals: { storageBytes: 0, filesCount: 0 }, fileIdTaken: false });
      const [mine] = await givenFiles(userId, [{ size: 100 }, { size: 20 }]);
      const [theirs] = await givenFiles(otherUserId, [{ size: 7 }]);
      expect(await files.totalsAndFileIdTaken(userId, mine.fileId)).to.deep.equal({ totals: { storageBytes: 120, filesCount: 2 }, fileIdTaken: true });
      expect(await files.totalsAndFileIdTaken(userId, theirs.fileId)).to.deep.equal({ totals: { storageBytes: 120, filesCount: 2 }, fileIdTaken: true });
      expect(await files.totalsAndFileIdTaken(userId, aFileId())).to.deep.equal({ totals: await files.totals(userId), fileIdTaken: false });
      await files.deleteMany({ userId, fileIds: [mine.fileId] });
      expect(await files.totalsAndFileIdTaken(userId, mine.fileId)).to.deep.equal({ totals: { storageBytes: 20, filesCount: 1 }, fileIdTaken: false });
    });

    it('refuses a second record with the same file id or the same id, and leaves the totals as they were', async () => {
      const [file] = await givenFiles(userId, [{ size: 100 }]);
      await rejects(files.insert(aFile(userId, { fileId: file.fileId, size: 7 }), ROOMY));
      await rejects(files.insert(aFile(userId, { id: file.id, size: 7 }), ROOMY));
      expect(await found({})).to.deep.equal([file.fileId]);
      expect(await files.totals(userId)).to.deep.equal({ storageBytes: 100, filesCount: 1 });
    });

    it('pages through searches and filters asked in turn, each page by its own values and window', async () => {
      const created = await givenFiles(
        userId,
        [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map((i) => ({
          name: `${i % 2 ? 'odd' : 'even'}-${i}.txt`,
          size: i * 10,
          contentType: i < 5 ? 'text/plain' : 'image/png',
          createdAt: at(i * 1000),
        })),
      );
      const expected = (keep: (file: StoredFile) => boolean, offset: number, limit: number) => {
        const all = [...created].reverse().filter(keep);
        return { ids: all.slice(offset, offset + limit).map((file) => file.fileId), total: all.length };
      };
      const asked = async (filter: FileFilter, offset: number, limit: number) => {
        const page = await files.list({ userId, filter, window: { offset, limit } });
        return { ids: page.items.map((file) => file.fileId), total: page.total };
      };
      // The same filters with other values and windows, and other filters in between.
      for (const [offset, limit] of [
        [0, 2],
        [2, 2],
        [4, 3],
        [1, 10],
      ] as const) {
        expect(await asked({ q: 'odd-' }, offset, limit)).to.deep.equal(expected((f) => f.name!.startsWith('odd-'), offset, limit));
        expect(await asked({ q: 'even-' }, offset, limit)).to.deep.equal(expected((f) => f.name!.startsWith('even-'), offset, limit));
        expect(await asked({ q: 'odd-', type: 'image/png' }, offset, limit)).to.deep.equal(
          expected((f) => f.name!.startsWith('odd-') && f.contentType === 'image/png', offset, limit),
        );
        expect(await asked({ sizeMin: offset * 10, sizeMax: 70 }, offset, limit)).to.deep.equal(
          expected((f) => f.size >= offset * 10 && f.size <= 70, offset, limit),
        );
        expect(await asked({ type: 'text/plain' }, offset, limit)).to.deep.equal(expected((f) => f.contentType === 'text/plain', offset, limit));
      }
    });

    it('lists newest first, equal times by id descending, with the total', async () => {
      const [a, b, c, d] = await givenFiles(userId, [
        { id: '00000000-0000-4000-8000-00000000000a', createdAt: at(1000) },
        { id: '00000000-0000-4000-8000-00000000000c', createdAt: at(2000) },
        { id: '00000000-0000-4000-8000-00000000000b', createdAt: at(2000) },
        { id: '00000000-0000-4000-8000-000000000001', createdAt: at(3000) },
      ]);
      const page = await files.list({ userId, filter: {}, window: { offset: 0, limit: 10 } });
      expect(page).to.deep.equal({ items: [d, b, c, a], total: 4 });
    });

    it('pages through the list: the window picks the items, the total counts every match', async () => {
      const created = await givenFiles(
        userId,
        [0, 1, 2, 3, 4, 5, 6].map((i) => ({ createdAt: at(i * 1000) })),
      );
      const newestFirst = [...created].reverse().map((file) => file.fileId);
      const second = await files.list({ userId, filter: {}, window: { offset: 3, limit: 3 } });
      expect(second.total).to.equal(7);
      expect(second.items.map((file) => file.fileId)).to.deep.equal(newestFirst.slice(3, 6));
      const last = await files.list({ userId, filter: {}, window: { offset: 6, limit: 3 } });
      expect(last.items.map((file) => file.fileId)).to.deep.equal(newestFirst.slice(6));
      expect(await files.list({ userId, filter: {}, window: { offset: 30, limit: 3 } })).to.deep.equal({ items: [], total: 7 });
    });

    it("never lists another user's files, whatever the filter", async () => {
      const [mine] = await givenFiles(userId, [{ name: 'shared-name.txt', contentType: 'text/plain', size: 10 }]);
      await givenFiles(otherUserId, [{ name: 'shared-name.txt', contentType: 'text/plain', size: 10 }]);
      expect(await found({})).to.deep.equal([mine.fileId]);
      expect(await found({ q: 'shared', type: 'text/plain', sizeMin: 10, sizeMax: 10, isPublic: true })).to.deep.equal([mine.fileId]);
      expect((await files.list({ userId, filter: { q: 'shared' }, window: { offset: 0, limit: 10 } })).total).to.equal(1);
    });

    it('finds files whose name contains q, whatever the case', async () => {
      const [report, photo] = await givenFiles(userId, [{ name: 'Quarterly-REPORT.pdf' }, { name: 'photo.png' }]);
      expect(await found({ q: 'report' })).to.deep.equal([report.fileId]);
      expect(await found({ q: 'LY-rep' })).to.deep.equal([report.fileId]);
      expect(await found({ q: 'PHOTO' })).to.deep.equal([photo.fileId]);
      expect(await found({ q: 'missing' })).to.deep.equal([]);
    });

    it('counts a search only up to countLimit: more matches answer the bound with gte, fewer the exact total with eq', async () => {
      // Fixed file ids: a random one holds "cat" or "dog" about one time in 4,000 (q matches file ids too).
      await givenFiles(
        userId,
        ['cat-1.png', 'cat-2.png', 'cat-3.png', 'cat-4.png', 'dog.png'].map((name, i) => ({ name, fileId: `file00000${i}` })),
      );
      const list = (filter: FileFilter, countLimit?: number) => files.list({ userId, filter, window: { offset: 0, limit: 2 }, countLimit });
      const many = await list({ q: 'cat' }, 3);
      expect({ total: many.total, relation: many.totalRelation }).to.deep.equal({ total: 3, relation: 'gte' });
      expect(many.items).to.have.length(2);
      const exactlyAtTheBound = await list({ q: 'cat' }, 4);
      expect({ total: exactlyAtTheBound.total, relation: exactlyAtTheBound.totalRelation ?? 'eq' }).to.deep.equal({ total: 4, relation: 'eq' });
      const few = await list({ q: 'dog' }, 3);
      expect({ total: few.total, relation: few.totalRelation ?? 'eq' }).to.deep.equal({ total: 1, relation: 'eq' });
      const unbounded = await list({ q: 'cat' });
      expect({ total: unbounded.total, relation: unbounded.totalRelation ?? 'eq' }).to.deep.equal({ total: 4, relation: 'eq' });
      // Asked again after a change (another process's count is not reused across the bound).
      await givenFiles(userId, [{ name: 'cat-5.png', fileId: 'file000005' }]);
      expect((await list({ q: 'cat' }, 10)).total).to.equal(5);
      expect((await list({ q: 'cat' }, 3)).totalRelation).to.equal('gte');
      // Deep pages of a count past its bound: the last of the five matches, then nothing, up to and
      // past the account's six files, each with the bounded total.
      const deep = async (offset: number) => {
        const page = await files.list({ userId, filter: { q: 'cat' }, window: { offset, limit: 2 }, countLimit: 3 });
        return { names: page.items.map((file) => file.name?.slice(0, 4)), total: page.total, relation: page.totalRelation };
      };
      expect(await deep(4)).to.deep.equal({ names: ['cat-'], total: 3, relation: 'gte' });
      for (const offset of [5, 6, 7, 1_000_000]) expect(await deep(offset), `offset ${offset}`).to.deep.equal({ names: [], total: 3, relation: 'gte' });
      // A total the adapter keeps is exact whatever countLimit says.
      const all = await list({}, 3);
      expect({ total: all.total, relation: all.totalRelation ?? 'eq' }).to.deep.equal({ total: 6, relation: 'eq' });
    });

    it('finds files whose file id contains q, whatever the case, even without a name', async () => {
      const [file] = await givenFiles(userId, [
        { fileId: 'AbCdE12345', name: null },
        { fileId: 'zzzzz99999', name: 'other.txt' },
      ]);
      expect(await found({ q: 'bcde1' })).to.deep.equal([file.fileId]);
      expect(await found({ q: 'ABCDE12345' })).to.deep.equal([file.fileId]);
    });

    it('matches names beyond ASCII without regard to case or accents: "resume", "résumé" and "RÉSUMÉ" find "Résumé.pdf" and "resume-plain.pdf"', async () => {
      const [resume, plain] = await givenFiles(userId, [
        { name: 'Résumé.pdf', fileId: 'file000001', createdAt: at(1) },
        { name: 'resume-plain.pdf', fileId: 'file000002', createdAt: at(2) },
        { name: 'Straße.txt', fileId: 'file000003', createdAt: at(3) },
      ]);
      for (const q of ['resume', 'résumé', 'RÉSUMÉ', 'Resumé', 'ésu']) expect(await found({ q }), q).to.deep.equal([plain.fileId, resume.fileId]);
      expect(await found({ q: 'sumé.pdf' })).to.deep.equal([resume.fileId]);
      expect(await found({ q: 'STRASSE' })).to.deep.equal([]);
      expect(await found({ q: 'straße' })).to.have.length(1);
    });

    it('finds "résumé 日本.pdf" by "resume", "RESUME 日本" and "é 日", and keeps Japanese voiced marks apart ("が" is not "か")', async () => {
      const [japanese, ga, ka] = await givenFiles(userId, [
        { name: 'résumé 日本.pdf', fileId: 'file000001', createdAt: at(1) },
        { name: 'がっこう.txt', fileId: 'file000002', createdAt: at(2) },
        { name: 'かっこう.txt', fileId: 'file000003', createdAt: at(3) },
      ]);
      for (const q of ['resume', 'RESUME 日本', 'é 日', 'ume 日本.p', '日']) expect(await found({ q }), q).to.deep.equal([japanese.fileId]);
      expect(await found({ q: 'が' })).to.deep.equal([ga.fileId]);
      expect(await found({ q: 'か' })).to.deep.equal([ka.fileId]);
      expect(await found({ q: 'がっこ' })).to.deep.equal([ga.fileId]);
      expect(await found({ q: 'っこう.txt' })).to.deep.equal([ka.fileId, ga.fileId]);
      // Decomposed (as macOS sends it): the voiced mark is kept as "が".
      expect(await found({ q: 'か\u3099っこう' })).to.deep.equal([ga.fileId]);
    });

    it('matches a name written with combining accents (as macOS sends it) from a composed query', async () => {
      const [decomposed] = await givenFiles(userId, [{ name: 'Re\u0301sume\u0301.pdf' }]);
      expect(await found({ q: 'résumé' })).to.deep.equal([decomposed.fileId]);
    });

    it('treats %, _ and \\ in q as themselves, not as wildcards', async () => {
      const [percent, underscore, backslash] = await givenFiles(userId, [
        { name: '100% done.txt' },
        { name: 'my_file.txt' },
        { name: 'C:\\temp\\notes.txt' },
        { name: '1000 done.txt' },
        { name: 'myXfile.txt' },
      ]);
      expect(await found({ q: '0%' })).to.deep.equal([percent.fileId]);
      expect(await found({ q: '%' })).to.deep.equal([percent.fileId]);
      expect(await found({ q: 'y_f' })).to.deep.equal([underscore.fileId]);
      expect(await found({ q: '_' })).to.deep.equal([underscore.fileId]);
      expect(await found({ q: ':\\temp' })).to.deep.equal([backslash.fileId]);
    });

    it('finds needles of one and two characters (beyond ASCII and beyond the BMP too) alone and with other filters', async () => {
      const [accented, camera, pair] = await givenFiles(userId, [
        { name: 'É.png', fileId: '0000000001', contentType: 'image/png' },
        { name: '\u{1F4F7} shot.jpg', fileId: '0000000002', contentType: 'image/jpeg' },
        { name: 'zq-note.txt', fileId: '0000000003', contentType: 'text/plain' },
        { name: 'a', fileId: '1000000004', contentType: 'text/plain' },
      ]);
      // Accents are ignored: "é" is "e", which "zq-note.txt" holds too.
      expect((await found({ q: 'é' })).sort()).to.deep.equal([accented.fileId, pair.fileId].sort());
      expect((await found({ q: 'É' })).sort()).to.deep.equal([accented.fileId, pair.fileId].sort());
      expect(await found({ q: 'é.p' })).to.deep.equal([accented.fileId]);
      expect(await found({ q: '\u{1F4F7}' })).to.deep.equal([camera.fileId]);
      expect(await found({ q: 'Q' })).to.deep.equal([pair.fileId]);
      expect(await found({ q: 'zQ' })).to.deep.equal([pair.fileId]);
      expect(await found({ q: 'qz' })).to.deep.equal([]);
      expect(await found({ q: 'q', type: 'text/plain' })).to.deep.equal([pair.fileId]);
      expect(await found({ q: 'q', type: 'image/png' })).to.deep.equal([]);
      expect(await found({ q: 'a1' }), 'not across the name and the file id').to.deep.equal([]);
      expect((await files.list({ userId, filter: { q: '0' }, window: { offset: 0, limit: 2 } })).total).to.equal(4);
    });

    it('answers needles short and long with type, visibility, range and window as a brute-force search does, totals bounded as asked, before and after renames and deletes, counted or not', async function () {
      // Every needle × filter × window × bound.
      this.timeout(120_000);
      let current = await givenFiles(
        userId,
        ['zeta.png', 'Ézé.txt', 'a-b.pdf', null, 'xy.png', 'ZZ top.mp3', '\u{1F4F7}-zz.png', 'plain.txt', 'é', 'zz', 'q.png', 'Zq'].map((name, i) => ({
          name,
          fileId: `${'0123456789'[i % 10]}00000000${i % 10}`.slice(0, 9) + String.fromCharCode(65 + i),
          contentType: i % 3 === 0 ? 'image/png' : 'text/plain',
          isPublic: i % 4 !== 1,
          size: i * 10,
          // Two pairs of equal times: ties are ordered by id.
          createdAt: at((i - (i % 5 === 4 ? 1 : 0)) * 1000),
        })),
      );
      await givenFiles(otherUserId, [{ name: 'zz-theirs.png' }, { name: 'é-theirs' }]);
      // The fold every adapter shares (file-search.ts), written out: accents and case ignored.
      const fold = (text: string) =>
        text
          .normalize('NFD')
          .replace(/[\u0300-\u036f]/g, '')
          .toLowerCase()
          .normalize('NFC');
      const searchText = (file: StoredFile) => fold(`${file.name ?? ''}\n${file.fileId}`);
      const inListOrder = (a: StoredFile, b: StoredFile) => b.createdAt.getTime() - a.createdAt.getTime() || (b.id < a.id ? -1 : b.id > a.id ? 1 : 0);
      const filters: FileFilter[] = [
        {},
        { type: 'image/png' },
        { isPublic: false },
        { createdAfter: at(4000) },
        { sizeMin: 30, type: 'text/plain', isPublic: true },
      ];
      const check = async () => {
        const cases: { q: string; filter: FileFilter; offset: number; limit: number; countLimit: number | undefined; all: StoredFile[] }[] = [];
        for (const q of [
          'z',
          'zz',
          'É',
          'e',
          'x',
          'q',
          '-',
          '\u{1F4F7}',
          'zq',
          'y',
          '.',
          '.pn',
          'ézé',
          'eze',
          'EZE.T',
          'zz ',
          '\u{1F4F7}-z',
          'x-r',
          '00',
          '',
          'nothing',
          '.png',
          'zeta.png',
          'top.png',
          'ézé.txt',
          'ézé.pdf',
          'e\u0301ze\u0301',
        ]) {
          const needle = fold(q);
          for (const filter of filters) {
            const all = current.filter((file) => searchText(file).includes(needle) && matchesRangeFilter(file, userId, filter)).sort(inListOrder);
            for (const [offset, limit] of [
              [0, 3],
              [2, 10],
            ] as const) {
              for (const countLimit of [undefined, 2]) cases.push({ q, filter, offset, limit, countLimit, all });
            }
          }
        }
        // Independent reads, four at a time (Postgres's round trips overlap), checked in order.
        const pages = await mapConcurrently(cases, 4, ({ q, filter, offset, limit, countLimit }) =>
          files.list({ userId, filter: { ...filter, q }, window: { offset, limit }, countLimit }),
        );
        for (const [i, { q, filter, offset, limit, countLimit, all }] of cases.entries()) {
          const page = pages[i];
          const total = countLimit !== undefined && all.length > countLimit ? { total: countLimit, relation: 'gte' } : { total: all.length, relation: 'eq' };
          expect(
            { ids: page.items.map((file) => file.fileId), total: page.total, relation: page.totalRelation ?? 'eq' },
            `${q} ${JSON.stringify(filter)} ${offset} ${countLimit}`,
          ).to.deep.equal({
            ids: all.slice(offset, offset + limit).map((file) => file.fileId),
            ...total,
          });
        }
      };
      await check();
      const renamed = await files.update({ userId, fileId: current[0].fileId, changes: { name: 'yy.png' } });
      const hidden = await files.update({ userId, fileId: current[5].fileId, changes: { name: 'x-ray', isPublic: false } });
      const unnamed = await files.update({ userId, fileId: current[9].fileId, changes: { name: null } });
      await files.deleteMany({ userId, fileIds: [current[6].fileId] });
      current = current
        .map((file) => [renamed!, hidden!, unnamed!].find((changed) => changed.fileId === file.fileId) ?? file)
        .filter((file) => file.fileId !== current[6].fileId);
      await check();
    });

    it('does not match q across the end of the name and the start of the file id', async () => {
      const [file] = await givenFiles(userId, [{ name: 'abc', fileId: 'XYZ0000000' }]);
      expect(await found({ q: 'abcxyz' })).to.deep.equal([]);
      expect(await found({ q: 'abc\nxyz' })).to.deep.equal([]);
      expect(await found({ q: 'xyz0' })).to.deep.equal([file.fileId]);
    });

    it('filters by exact content type', async () => {
      const [png] = await givenFiles(userId, [{ contentType: 'image/png' }, { contentType: 'image/jpeg' }, { contentType: 'image/png+extra' }]);
      expect(await found({ type: 'image/png' })).to.deep.equal([png.fileId]);
    });

    it('filters by size with inclusive bounds, beyond 4 GiB too', async () => {
      const [small, exact10, exact20, huge] = await givenFiles(userId, [
        { size: 9, createdAt: at(4) },
        { size: 10, createdAt: at(3) },
        { size: 20, createdAt: at(2) },
        { size: 5 * GiB, createdAt: at(1) },
      ]);
      expect(await found({ sizeMin: 10 })).to.deep.equal([exact10.fileId, exact20.fileId, huge.fileId]);
      expect(await found({ sizeMax: 20 })).to.deep.equal([small.fileId, exact10.fileId, exact20.fileId]);
      expect(await found({ sizeMin: 10, sizeMax: 20 })).to.deep.equal([exact10.fileId, exact20.fileId]);
      expect(await found({ sizeMin: 4 * GiB })).to.deep.equal([huge.fileId]);
    });

    it('filters by visibility', async () => {
      const [shown, hidden] = await givenFiles(userId, [{ isPublic: true }, { isPublic: false }]);
      expect(await found({ isPublic: true })).to.deep.equal([shown.fileId]);
      expect(await found({ isPublic: false })).to.deep.equal([hidden.fileId]);
    });

    it('totals every listing exactly, with no filter or by visibility alone, through inserts and deletes', async () => {
      const [p1, , , h1] = await givenFiles(userId, [{ isPublic: true }, { isPublic: true }, { isPublic: true }, { isPublic: false }, { isPublic: false }]);
      await givenFiles(otherUserId, [{ isPublic: true }, { isPublic: false }]);
      const totals = async () => {
        const window = { offset: 0, limit: 1 };
        const total = async (filter: FileFilter) => (await files.list({ userId, filter, window })).total;
        return [await total({}), await total({ isPublic: true }), await total({ isPublic: false }), await total({ isPublic: true, type: 'application/pdf' })];
      };
      expect(await totals()).to.deep.equal([5, 3, 2, 3]);
      await files.deleteMany({ userId, fileIds: [p1.fileId, h1.fileId, aFileId()] });
      expect(await totals()).to.deep.equal([3, 2, 1, 2]);
      expect((await files.list({ userId: aUser().id, filter: { isPublic: false }, window: { offset: 0, limit: 1 } })).total).to.equal(0);
    });

    describe('totals and deep pages of range and content type filters', function () {
      // Hundreds of counted listings per test: a loaded machine takes longer than the default 20 s.
      this.timeout(90_000);
      const DAY = 24 * HOUR;
      /** The start of T0's UTC day: a day and an hour boundary. */
      const DAY0 = Math.floor(T0.getTime() / DAY) * DAY;
      /** Room for one file of 2^45 bytes among the others, and every count. */
      const HUGE_ROOM: QuotaLimits = { storageLimitBytes: 2 ** 50, fileCountLimit: 1_000_000 };
      /** Upload times on and next to hour and day boundaries, and one far away. */
      const TIMES = [-1, 0, 1, HOUR - 1, HOUR, HOUR + 1, 5 * HOUR + 7, DAY - 1, DAY, DAY + 1, 2 * DAY + HOUR, 40 * DAY + 3].map((ms) => DAY0 + ms);
      /** Sizes 0, on and next to size-class and octave boundaries (64 = first shared class, 66 = its end + 1), 5 GiB, 2^45. */
      const SIZES = [0, 1, 63, 64, 65, 66, 127, 128, 4095, 4096, 4097, 4224, 1_000_000, 5 * GiB, 2 ** 45];
      /** Content types of the files (`gif`: none). */
      const TYPES = ['image/png', 'image/jpeg', 'application/pdf'];
      /** Listings a check runs at once: the Postgres fixture's pool size (persistence-fixtures.ts). */
      const LISTING_CONCURRENCY = 4;

      /** The total `list` reports for `filter`, and the number of `live` files of `owner` that match it, counted here. */
      async function totalAndBruteForce(live: StoredFile[], filter: FileFilter, owner = userId): Promise<[number, number]> {
        const total = (await files.list({ userId: owner, filter, window: { offset: 0, limit: 1 } })).total;
        const expected = live.filter((file) => matchesRangeFilter(file, owner, filter)).length;
        return [total, expected];
      }

      /**
       * One-sided ranges ending on each interesting value or next to it, two-sided ranges between
       * any two interesting values (both orders, so some are empty), and visibility with one-sided ranges.
       */
      function rangeFilters(values: number[], toFilter: (from?: number, to?: number) => FileFilter): FileFilter[] {
        const ends = [...new Set(values.flatMap((value) => [value - 1, value, value + 1]))].filter((value) => value >= 0);
        const filters: FileFilter[] = [];
        for (const end of ends) {
          filters.push(toFilter(end, undefined), toFilter(undefined, end));
          for (const isPublic of [true, false]) filters.push({ ...toFilter(end, undefined), isPublic }, { ...toFilter(undefined, end), isPublic });
        }
        for (const from of values) for (const to of values) filters.push(toFilter(from, to), toFilter(from + 1, to - 1));
        return filters;
      }

      const timeFilter = (from?: number, to?: number): FileFilter => ({
        createdAfter: from === undefined ? undefined : new Date(from),
        createdBefore: to === undefined ? undefined : new Date(to),
      });
      const sizeFilter = (from?: number, to?: number): FileFilter => ({ sizeMin: from, sizeMax: to });

      /** Every range over the interesting times and sizes totals exactly what a brute-force count finds. */
      async function expectExactRangeTotals(live: StoredFile[]): Promise<void> {
        const filters = [
          ...rangeFilters(TIMES, timeFilter),
          ...rangeFilters(SIZES, sizeFilter),
          { sizeMax: Number.MAX_SAFE_INTEGER },
          { sizeMin: Number.MAX_SAFE_INTEGER },
          { sizeMin: 2 ** 45 + 1, sizeMax: Number.MAX_SAFE_INTEGER },
        ];
        // A content type alone, with visibility, and with every third range (a type no file has too).
        for (const type of [...TYPES, 'image/gif']) filters.push({ type }, { type, isPublic: true }, { type, isPublic: false });
        filters.push(
          ...filters.filter((filter, i) => i % 3 === 0 && filter.type === undefined).map((filter, i) => ({ ...filter, type: TYPES[i % TYPES.length] })),
        );
        // Independent reads: a few at a time (LISTING_CONCURRENCY), so Postgres's round trips overlap.
        const totals = await mapConcurrently(filters, LISTING_CONCURRENCY, (filter) => totalAndBruteForce(live, filter));
        const wrong = filters.flatMap((filter, i) =>
          totals[i][0] !== totals[i][1] ? [`${JSON.stringify(filter)}: total ${totals[i][0]}, expected ${totals[i][1]}`] : [],
        );
        expect(wrong, 'range filters whose total differs from a brute-force count').to.deep.equal([]);
      }

      async function insertAll(overrides: Partial<StoredFile>[], owner = userId): Promise<StoredFile[]> {
        const created = overrides.map((o) => aFile(owner, o));
        for (const file of created) expect(await files.insert(file, HUGE_ROOM)).to.equal('inserted');
        return created;
      }

      /** One file per interesting time and per interesting size, in both visibilities, plus a second account's. */
      async function givenEdgeFiles(): Promise<StoredFile[]> {
        const overrides: Partial<StoredFile>[] = [];
        TIMES.forEach((ms, i) => overrides.push({ createdAt: new Date(ms), size: SIZES[i % SIZES.length], isPublic: i % 2 === 0, contentType: TYPES[i % 3] }));
        SIZES.forEach((size, i) =>
          overrides.push({ size, createdAt: new Date(TIMES[(i * 5) % TIMES.length]), isPublic: i % 3 !== 0, contentType: TYPES[(i + 1) % 3] }),
        );
        // Several files in one hour and one size class, so a cut bucket holds files on both sides of the cut.
        for (let i = 0; i < 4; i++) overrides.push({ createdAt: new Date(DAY0 + HOUR + i), size: 4096 + i, isPublic: true, contentType: TYPES[i % 2] });
        await insertAll(
          TIMES.map((ms, i) => ({ createdAt: new Date(ms), size: SIZES[i] })),
          otherUserId,
        );
        return insertAll(overrides);
      }

      it('totals date and size ranges exactly: bounds on and next to bucket edges, open ends, after = before, min > max, 0 and huge sizes', async () => {
        const live = await givenEdgeFiles();
        await expectExactRangeTotals(live);
        const [at, expected] = await totalAndBruteForce(live, { createdAfter: new Date(DAY0 + HOUR), createdBefore: new Date(DAY0 + HOUR) });
        expect(at).to.equal(expected).and.to.be.above(1);
        expect((await totalAndBruteForce(live, { createdAfter: new Date(DAY0 + DAY), createdBefore: new Date(DAY0) }))[0]).to.equal(0);
        expect((await totalAndBruteForce(live, { sizeMin: 4097, sizeMax: 4096 }))[0]).to.equal(0);
        for (const filter of [{ sizeMin: 0, sizeMax: 0 }, { sizeMin: 2 ** 45 }, { sizeMin: 2 ** 45, isPublic: true }]) {
          const [total, count] = await totalAndBruteForce(live, filter);
          expect(total, JSON.stringify(filter)).to.equal(count).and.to.be.above(0);
        }
      });

      /** The file ids of `owner`'s `live` files matching `filter`, newest first, equal times by id descending. */
      function inListOrder(live: StoredFile[], filter: FileFilter, owner = userId): string[] {
        return live
          .filter((file) => matchesRangeFilter(file, owner, filter))
          .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
          .map((file) => file.fileId);
      }

      /** Each page of `filter` at `offsets` (windows of `limit`), as the deep-paging repository answers it, next to the brute-force one. */
      async function pagesAndBruteForce(live: StoredFile[], filter: FileFilter, offsets: number[], limit: number, owner = userId): Promise<string[]> {
        const expected = inListOrder(live, filter, owner);
        const pages = await mapConcurrently(offsets, LISTING_CONCURRENCY, (offset) => files.list({ userId: owner, filter, window: { offset, limit } }));
        const wrong: string[] = [];
        for (const [i, offset] of offsets.entries()) {
          const page = pages[i];
          const ids = page.items.map((file) => file.fileId);
          const want = expected.slice(offset, offset + limit);
          if (JSON.stringify(ids) !== JSON.stringify(want) || page.total !== expected.length) {
            wrong.push(
              `${JSON.stringify(filter)} at ${offset}: ${JSON.stringify(ids)} of ${page.total}, expected ${JSON.stringify(want)} of ${expected.length}`,
            );
          }
        }
        return wrong;
      }

      it('pages deep into a list exactly as skipping would: every filter the day rows place, each offset, ranges cut on and next to day edges, past the end', async () => {
        const live = await givenEdgeFiles();
        // Three files uploaded at the same millisecond on a day's last one (ties ordered by id).
        live.push(...(await insertAll([0, 1, 2].map((i) => ({ createdAt: new Date(DAY0 + DAY - 1), isPublic: i !== 1, contentType: TYPES[0] })))));
        const filters: FileFilter[] = [{}, { isPublic: true }, { isPublic: false }, { type: 'image/gif' }];
        for (const type of TYPES) filters.push({ type }, { type, isPublic: true }, { type, isPublic: false });
        for (const [from, to] of [
          [DAY0, undefined],
          [undefined, DAY0 + DAY - 1],
          [undefined, DAY0 + DAY],
          [DAY0 - 1, DAY0 + DAY],
          [DAY0 + 1, DAY0 + 2 * DAY + HOUR],
          [DAY0 + HOUR, DAY0 + 40 * DAY + 3],
          [DAY0 - DAY, DAY0 - 1],
          [DAY0 + 1, DAY0 + 5 * HOUR + 7],
          [DAY0 + DAY - 1, DAY0 + DAY - 1],
          [DAY0 + 41 * DAY, undefined],
        ] as const) {
          filters.push(timeFilter(from, to), { ...timeFilter(from, to), isPublic: false }, { ...timeFilter(from, to), type: TYPES[0], isPublic: true });
        }
        // Filters the day rows cannot place page by skipping, with the same answers.
        filters.push({ sizeMin: 64 }, { sizeMax: 4096, createdAfter: new Date(DAY0) });
        const wrong: string[] = [];
        for (const filter of filters) {
          const count = inListOrder(live, filter).length;
          const offsets = Array.from({ length: count + 3 }, (_, i) => i);
          wrong.push(
            ...(await pagesAndBruteForce(live, filter, offsets, 2)),
            ...(await pagesAndBruteForce(
              live,
              filter,
              [1, count - 1, count, count + 100].filter((o) => o >= 0),
              30,
            )),
          );
        }
        expect(wrong, 'pages that differ from the brute-force list').to.deep.equal([]);
        // The other account's pages are its own: the same as its first page of 100 (not sought) cut into windows.
        const theirs = (await files.list({ userId: otherUserId, filter: {}, window: { offset: 0, limit: 100 } })).items.map((file) => file.fileId);
        expect(theirs).to.have.length(TIMES.length);
        for (const offset of [1, 5, TIMES.length - 1]) {
          const page = await files.list({ userId: otherUserId, filter: {}, window: { offset, limit: 3 } });
          expect(page.items.map((file) => file.fileId)).to.deep.equal(theirs.slice(offset, offset + 3));
        }
      });

      it('keeps range totals exact through single deletes and bulk deletes', async () => {
        let live = await givenEdgeFiles();
        for (const victim of [live[0], live[TIMES.length + 1], live[live.length - 1]]) {
          expect(await files.deleteMany({ userId, fileIds: [victim.fileId] })).to.have.length(1);
          live = live.filter((file) => file !== victim);
        }
        await expectExactRangeTotals(live);
        // A bulk delete of every other file, with an unknown id and one named twice.
        const doomed = live.filter((_, i) => i % 2 === 1);
        const ids = doomed.map((file) => file.fileId);
        expect(await files.deleteMany({ userId, fileIds: [...ids, ids[0], aFileId()] })).to.have.length(doomed.length);
        live = live.filter((file) => !doomed.includes(file));
        await expectExactRangeTotals(live);
        // Emptied, then filled again: the rows left at 0 count nothing.
        await files.deleteMany({ userId, fileIds: live.map((file) => file.fileId) });
        await expectExactRangeTotals([]);
        const again = await insertAll([{ createdAt: new Date(DAY0), size: 64 }]);
        expect(await totalAndBruteForce(again, { createdAfter: new Date(DAY0 - DAY), sizeMin: undefined })).to.deep.equal([1, 1]);
        expect(await totalAndBruteForce(again, { sizeMin: 0 })).to.deep.equal([1, 1]);
      });

      it('forgets the range totals of a deleted account: the same id created again starts from nothing', async () => {
        await givenEdgeFiles();
        expect(await users.delete(userId)).to.equal(true);
        expect((await files.list({ userId, filter: { sizeMin: 0 }, window: { offset: 0, limit: 1 } })).total).to.equal(0);
        expect((await files.list({ userId, filter: { createdBefore: new Date(DAY0 + 100 * DAY) }, window: { offset: 0, limit: 1 } })).total).to.equal(0);
        await givenUser(users, { id: userId });
        const live = await insertAll([{ createdAt: new Date(DAY0 + HOUR), size: 4096 }]);
        await expectExactRangeTotals(live);
        // The other account kept its own.
        expect((await files.list({ userId: otherUserId, filter: { sizeMin: 0 }, window: { offset: 0, limit: 1 } })).total).to.equal(TIMES.length);
      });

      it('totals and pages random ranges over random files exactly, before and after a random bulk delete (property)', async function () {
        this.timeout(120_000);
        const edgeSize = fc.constantFrom(...SIZES, 31, 32, 95, 96, 2 ** 32 - 1, 2 ** 32, 2 ** 32 + 1);
        const size = fc.oneof(edgeSize, fc.integer({ min: 0, max: 2 ** 40 }), fc.integer({ min: 4000, max: 4300 }));
        const offset = fc.oneof(fc.constantFrom(-1, 0, 1, HOUR - 1, HOUR, DAY - 1, DAY), fc.integer({ min: -3 * DAY, max: 3 * DAY }));
        const aFileSpec = fc.record({ offset, size, isPublic: fc.boolean(), contentType: fc.constantFrom(...TYPES) });
        const type = fc.option(fc.constantFrom(...TYPES), { nil: undefined });
        const bound = fc.option(fc.oneof(offset, fc.integer({ min: -5 * DAY, max: 5 * DAY })), { nil: undefined });
        const sizeBound = fc.option(fc.oneof(size, fc.integer({ min: 0, max: 2 ** 41 })), { nil: undefined });
        const aRange = fc.oneof(
          fc.record({ from: bound, to: bound, isPublic: fc.option(fc.boolean(), { nil: undefined }), type }).map((r) => ({
            ...timeFilter(r.from === undefined ? undefined : DAY0 + r.from, r.to === undefined ? undefined : DAY0 + r.to),
            isPublic: r.isPublic,
            type: r.type,
          })),
          fc
            .record({ from: sizeBound, to: sizeBound, isPublic: fc.option(fc.boolean(), { nil: undefined }), type })
            .map((r) => ({ ...sizeFilter(r.from, r.to), isPublic: r.isPublic, type: r.type })),
          fc.record({ isPublic: fc.option(fc.boolean(), { nil: undefined }), type }).map((r) => ({ isPublic: r.isPublic, type: r.type })),
        );
        await fc.assert(
          fc.asyncProperty(
            fc.array(aFileSpec, { minLength: 1, maxLength: 25 }),
            fc.array(fc.boolean(), { minLength: 25, maxLength: 25 }),
            fc.array(aRange, { minLength: 8, maxLength: 8 }),
            fc.array(fc.nat(26), { minLength: 8, maxLength: 8 }),
            async (specs, doomed, ranges, offsets) => {
              const owner = (await givenUser(users)).id;
              let live = await insertAll(
                specs.map((spec) => ({ createdAt: new Date(DAY0 + spec.offset), size: spec.size, isPublic: spec.isPublic, contentType: spec.contentType })),
                owner,
              );
              const before = await mapConcurrently(
                ranges,
                LISTING_CONCURRENCY,
                async (filter, i) => [await totalAndBruteForce(live, filter, owner), await pagesAndBruteForce(live, filter, [offsets[i]], 3, owner)] as const,
              );
              for (const [i, filter] of ranges.entries()) {
                const [[total, expected], wrongPages] = before[i];
                expect(total, JSON.stringify(filter)).to.equal(expected);
                expect(wrongPages).to.deep.equal([]);
              }
              const deleted = live.filter((_, i) => doomed[i]);
              await files.deleteMany({ userId: owner, fileIds: deleted.map((file) => file.fileId) });
              live = live.filter((file) => !deleted.includes(file));
              const after = await mapConcurrently(
                ranges,
                LISTING_CONCURRENCY,
                async (filter, i) => [await totalAndBruteForce(live, filter, owner), await pagesAndBruteForce(live, filter, [offsets[i]], 3, owner)] as const,
              );
              for (const [i, filter] of ranges.entries()) {
                const [[total, expected], wrongPages] = after[i];
                expect(total, `after deleting ${deleted.length}: ${JSON.stringify(filter)}`).to.equal(expected);
                expect(wrongPages, `after deleting ${deleted.length}`).to.deep.equal([]);
              }
            },
          ),
          { numRuns: 25 },
        );
      });
    });

    it('filters by creation time with inclusive bounds', async () => {
      const [t1, t2, t3] = await givenFiles(userId, [{ createdAt: at(1000) }, { createdAt: at(2000) }, { createdAt: at(3000) }]);
      expect(await found({ createdAfter: at(2000) })).to.deep.equal([t3.fileId, t2.fileId]);
      expect(await found({ createdBefore: at(2000) })).to.deep.equal([t2.fileId, t1.fileId]);
      expect(await found({ createdAfter: at(2000), createdBefore: at(2000) })).to.deep.equal([t2.fileId]);
      expect(await found({ createdAfter: at(2001), createdBefore: at(2999) })).to.deep.equal([]);
    });

    it('combines every filter with AND', async () => {
      const [match] = await givenFiles(userId, [
        { name: 'Invoice-1.pdf', contentType: 'application/pdf', size: 100, isPublic: false, createdAt: at(2000) },
        { name: 'Invoice-2.pdf', contentType: 'application/pdf', size: 100, isPublic: true, createdAt: at(2000) },
        { name: 'Invoice-3.png', contentType: 'image/png', size: 100, isPublic: false, createdAt: at(2000) },
        { name: 'Invoice-4.pdf', contentType: 'application/pdf', size: 1000, isPublic: false, createdAt: at(2000) },
        { name: 'Invoice-5.pdf', contentType: 'application/pdf', size: 100, isPublic: false, createdAt: at(9000) },
        { name: 'Receipt-6.pdf', contentType: 'application/pdf', size: 100, isPublic: false, createdAt: at(2000) },
      ]);
      const filter: FileFilter = {
        q: 'invoice',
        type: 'application/pdf',
        sizeMin: 50,
        sizeMax: 500,
        isPublic: false,
        createdAfter: at(1000),
        createdBefore: at(5000),
      };
      const page = await files.list({ userId, filter, window: { offset: 0, limit: 10 } });
      expect(page).to.deep.equal({ items: [match], total: 1 });
    });

    it('deletes the listed records in one call and returns them', async () => {
      const [a, b, kept] = await givenFiles(userId, [{ createdAt: at(1) }, { createdAt: at(2) }, { createdAt: at(3) }]);
      const deleted = await files.deleteMany({ userId, fileIds: [a.fileId, b.fileId] });
      expect(sortById(deleted)).to.deep.equal(sortById([a, b]));
      expect(await files.findByFileId(a.fileId)).to.equal(undefined);
      expect(await files.findByFileId(b.fileId)).to.equal(undefined);
      expect(await found({})).to.deep.equal([kept.fileId]);
    });

    it("skips other users' and unknown ids when deleting, and counts a repeated id once", async () => {
      const [mine] = await givenFiles(userId, [{}]);
      const [theirs] = await givenFiles(otherUserId, [{}]);
      const deleted = await files.deleteMany({ userId, fileIds: [mine.fileId, theirs.fileId, aFileId(), mine.fileId] });
      expect(deleted).to.deep.equal([mine]);
      expect(await files.findByFileId(theirs.fileId)).to.deep.equal(theirs);
    });

    it('deletes nothing for an empty list of ids', async () => {
      const [file] = await givenFiles(userId, [{}]);
      expect(await files.deleteMany({ userId, fileIds: [] })).to.deep.equal([]);
      expect(await files.findByFileId(file.fileId)).to.deep.equal(file);
    });

    describe('totals and quotas', () => {
      /** Inserts a file of `size` bytes for `owner` under `limits`; the outcome and the record. */
      async function tryInsert(limits: QuotaLimits, size: number, owner = userId): Promise<{ result: string; file: StoredFile }> {
        const file = aFile(owner, { size });
        return { result: await files.insert(file, limits), file };
      }

      it('reports zero totals for an account without files, and for an unknown account', async () => {
        expect(await files.totals(userId)).to.deep.equal({ storageBytes: 0, filesCount: 0 });
        expect(await files.totals('00000000-0000-4000-8000-000000000000')).to.deep.equal({ storageBytes: 0, filesCount: 0 });
      });

      it('keeps exact totals per account through inserts and deletes, beyond 4 GiB too', async () => {
        const [a, b, c] = await givenFiles(userId, [{ size: 5 * GiB }, { size: 123 }, { size: 0 }]);
        await givenFiles(otherUserId, [{ size: 999 }]);
        expect(await files.totals(userId)).to.deep.equal({ storageBytes: 5 * GiB + 123, filesCount: 3 });
        await files.deleteMany({ userId, fileIds: [a.fileId, c.fileId] });
        expect(await files.totals(userId)).to.deep.equal({ storageBytes: 123, filesCount: 1 });
        await files.deleteMany({ userId, fileIds: [b.fileId] });
        expect(await files.totals(userId)).to.deep.equal({ storageBytes: 0, filesCount: 0 });
        expect(await files.totals(otherUserId)).to.deep.equal({ storageBytes: 999, filesCount: 1 });
      });

      it('subtracts only the files it deleted: unknown, foreign and repeated ids change nothing', async () => {
        const [mine] = await givenFiles(userId, [{ size: 10 }, { size: 20 }]);
        const [theirs] = await givenFiles(otherUserId, [{ size: 40 }]);
        await files.deleteMany({ userId, fileIds: [mine.fileId, mine.fileId, theirs.fileId, aFileId()] });
        expect(await files.totals(userId)).to.deep.equal({ storageBytes: 20, filesCount: 1 });
        expect(await files.totals(otherUserId)).to.deep.equal({ storageBytes: 40, filesCount: 1 });
        await files.deleteMany({ userId, fileIds: [mine.fileId] });
        expect(await files.totals(userId)).to.deep.equal({ storageBytes: 20, filesCount: 1 });
      });

      it('accepts the 3rd file when the plan allows 3, refuses the 4th and stores nothing of it', async () => {
        const limits = { storageLimitBytes: GiB, fileCountLimit: 3 };
        for (let i = 0; i < 3; i++) expect((await tryInsert(limits, 10)).result).to.equal('inserted');
        const refused = await tryInsert(limits, 10);
        expect(refused.result).to.equal('file_count_limit_reached');
        expect(await files.findByFileId(refused.file.fileId)).to.equal(undefined);
        expect((await files.list({ userId, filter: {}, window: { offset: 0, limit: 10 } })).total).to.equal(3);
        expect(await files.totals(userId)).to.deep.equal({ storageBytes: 30, filesCount: 3 });
      });

      it('accepts a file that fills the storage exactly, refuses one byte more and stores nothing of it', async () => {
        const limits = { storageLimitBytes: 1000, fileCountLimit: 100 };
        expect((await tryInsert(limits, 600)).result).to.equal('inserted');
        expect((await tryInsert(limits, 401)).result).to.equal('storage_limit_reached');
        expect((await tryInsert(limits, 400)).result).to.equal('inserted');
        const refused = await tryInsert(limits, 1);
        expect(refused.result).to.equal('storage_limit_reached');
        expect(await files.findByFileId(refused.file.fileId)).to.equal(undefined);
        expect((await tryInsert(limits, 0)).result).to.equal('inserted');
        expect(await files.totals(userId)).to.deep.equal({ storageBytes: 1000, filesCount: 3 });
      });

      it('refuses a single file larger than the whole storage limit of an empty account', async () => {
        expect((await tryInsert({ storageLimitBytes: 5 * GiB, fileCountLimit: 10 }, 5 * GiB + 1)).result).to.equal('storage_limit_reached');
        expect(await files.totals(userId)).to.deep.equal({ storageBytes: 0, filesCount: 0 });
      });

      it('reports the file-count limit first when both limits refuse the file', async () => {
        const limits = { storageLimitBytes: 100, fileCountLimit: 1 };
        expect((await tryInsert(limits, 100)).result).to.equal('inserted');
        expect((await tryInsert(limits, 1)).result).to.equal('file_count_limit_reached');
      });

      it("counts each account against its own limits: another account's files take no room", async () => {
        const limits = { storageLimitBytes: 100, fileCountLimit: 1 };
        expect((await tryInsert(limits, 100, otherUserId)).result).to.equal('inserted');
        expect((await tryInsert(limits, 100)).result).to.equal('inserted');
      });

      it('applies the limits given now, even when the account already holds more (a smaller plan)', async () => {
        await givenFiles(userId, [{ size: 50 }, { size: 50 }, { size: 50 }]);
        expect((await tryInsert({ storageLimitBytes: GiB, fileCountLimit: 2 }, 1)).result).to.equal('file_count_limit_reached');
        expect((await tryInsert({ storageLimitBytes: 100, fileCountLimit: 10 }, 0)).result).to.equal('storage_limit_reached');
        expect(await files.totals(userId)).to.deep.equal({ storageBytes: 150, filesCount: 3 });
      });

      it('makes room again once files are deleted', async () => {
        const limits = { storageLimitBytes: 100, fileCountLimit: 2 };
        const first = await tryInsert(limits, 60);
        await tryInsert(limits, 40);
        expect((await tryInsert(limits, 1)).result).to.equal('file_count_limit_reached');
        await files.deleteMany({ userId, fileIds: [first.file.fileId] });
        expect((await tryInsert(limits, 61)).result).to.equal('storage_limit_reached');
        expect((await tryInsert(limits, 60)).result).to.equal('inserted');
        expect(await files.totals(userId)).to.deep.equal({ storageBytes: 100, filesCount: 2 });
      });

      it('lets exactly 10 of 20 simultaneous inserts through when the plan allows 10 files', async () => {
        const limits = { storageLimitBytes: GiB, fileCountLimit: 10 };
        const results = await Promise.all(Array.from({ length: 20 }, () => tryInsert(limits, 7)));
        expect(results.filter((r) => r.result === 'inserted')).to.have.length(10);
        expect(results.filter((r) => r.result === 'file_count_limit_reached')).to.have.length(10);
        expect(await files.totals(userId)).to.deep.equal({ storageBytes: 70, filesCount: 10 });
        expect((await files.list({ userId, filter: {}, window: { offset: 0, limit: 100 } })).total).to.equal(10);
      });

      it('lets exactly 10 of 20 simultaneous 100-byte inserts through when the plan allows 1000 bytes', async () => {
        const limits = { storageLimitBytes: 1000, fileCountLimit: 1000 };
        const results = await Promise.all(Array.from({ length: 20 }, () => tryInsert(limits, 100)));
        expect(results.filter((r) => r.result === 'inserted')).to.have.length(10);
        expect(results.filter((r) => r.result === 'storage_limit_reached')).to.have.length(10);
        expect(await files.totals(userId)).to.deep.equal({ storageBytes: 1000, filesCount: 10 });
        expect((await files.list({ userId, filter: {}, window: { offset: 0, limit: 100 } })).total).to.equal(10);
      });

      it('answers simultaneous inserts of two accounts each under its own limits: 5 of 20 for one, all 20 for the other', async () => {
        const tight = { storageLimitBytes: GiB, fileCountLimit: 5 };
        const results = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? tryInsert(tight, 3) : tryInsert(ROOMY, 4, otherUserId))));
        const mine = results.filter((_, i) => i % 2 === 0);
        const theirs = results.filter((_, i) => i % 2 === 1);
        expect(mine.filter((r) => r.result === 'inserted')).to.have.length(5);
        expect(mine.filter((r) => r.result === 'file_count_limit_reached')).to.have.length(15);
        expect(theirs.every((r) => r.result === 'inserted')).to.equal(true);
        for (const { result, file } of results) expect(await files.findByFileId(file.fileId), result).to.deep.equal(result === 'inserted' ? file : undefined);
        expect(await files.totals(userId)).to.deep.equal({ storageBytes: 15, filesCount: 5 });
        expect(await files.totals(otherUserId)).to.deep.equal({ storageBytes: 80, filesCount: 20 });
        expect((await files.list({ userId: otherUserId, filter: { type: 'application/pdf', sizeMin: 4 }, window: { offset: 0, limit: 1 } })).total).to.equal(
          20,
        );
      });

      it('refuses only the one of simultaneous inserts whose file id is taken, and stores the others', async () => {
        const [existing] = await givenFiles(userId, [{ size: 1 }]);
        const batch = Array.from({ length: 9 }, (_, i) => aFile(userId, { size: 10, name: `file ${i}.pdf` }));
        const clash = aFile(userId, { fileId: existing.fileId, size: 1000 });
        const settled = await Promise.allSettled([...batch.slice(0, 4), clash, ...batch.slice(4)].map((file) => files.insert(file, ROOMY)));
        expect(settled.map((s) => s.status)).to.deep.equal([...Array(4).fill('fulfilled'), 'rejected', ...Array(5).fill('fulfilled')]);
        for (const file of batch) expect(await files.findByFileId(file.fileId)).to.deep.equal(file);
        expect(await files.findByFileId(existing.fileId)).to.deep.equal(existing);
        expect(await files.totals(userId)).to.deep.equal({ storageBytes: 91, filesCount: 10 });
      });

      it('stores every field of simultaneous inserts as given, and counts them in every filtered total', async () => {
        const names = [
          'plain.png',
          'quote " and \\ backslash.png',
          "it's {a},b.jpg",
          'NULL',
          'ünïcødé 日本 🎉.gif',
          ' spaced  .txt',
          '{"json":[1,2]}.json',
          'tab\there.png',
        ];
        const types = ['image/png', 'image/jpeg', 'text/plain'];
        const created = names.flatMap((name, i) =>
          [0, 1].map((j) =>
            aFile(userId, {
              name,
              contentType: types[(i + j) % types.length],
              size: 100 * i + j,
              isPublic: j === 0,
              createdAt: at((i * 7 + j * 3) * 5 * HOUR),
              expiresAt: j === 1 ? at(1_000_000 + i) : null,
            }),
          ),
        );
        const results = await Promise.all(created.map((file) => files.insert(file, ROOMY)));
        expect(results.every((result) => result === 'inserted')).to.equal(true);
        for (const file of created) expect(await files.findByFileId(file.fileId)).to.deep.equal(file);
        const filters: FileFilter[] = [
          {},
          { isPublic: true },
          { isPublic: false, type: 'image/png' },
          { type: 'text/plain', sizeMin: 200, sizeMax: 600 },
          { createdAfter: at(40 * HOUR), createdBefore: at(200 * HOUR), isPublic: false },
        ];
        for (const filter of filters) {
          const page = await files.list({ userId, filter, window: { offset: 0, limit: 100 } });
          expect(page.total, JSON.stringify(filter)).to.equal(created.filter((file) => matchesRangeFilter(file, userId, filter)).length);
        }
        expect(await files.totals(userId)).to.deep.equal({ storageBytes: created.reduce((sum, file) => sum + file.size, 0), filesCount: created.length });
      });

      it('subtracts a file once when simultaneous deletes name it', async () => {
        const created = await givenFiles(userId, [{ size: 10 }, { size: 20 }, { size: 30 }]);
        const ids = created.map((file) => file.fileId);
        const results = await Promise.all([ids, ids, [ids[0]], [ids[2], ids[1]]].map((fileIds) => files.deleteMany({ userId, fileIds })));
        expect(results.flat()).to.have.length(3);
        expect(await files.totals(userId)).to.deep.equal({ storageBytes: 0, filesCount: 0 });
      });
    });

    it('scans every record of every account in ascending id order, page by page, with nothing repeated or missed', async () => {
      const created = [
        ...(await givenFiles(
          userId,
          Array.from({ length: 7 }, () => ({})),
        )),
        ...(await givenFiles(
          otherUserId,
          Array.from({ length: 4 }, () => ({})),
        )),
      ];
      const seen: StoredFile[] = [];
      let afterId: string | undefined;
      for (;;) {
        const page = await files.scan({ afterId, limit: 3 });
        expect(page.length).to.be.at.most(3);
        if (page.length === 0) break;
        seen.push(...page);
        afterId = page[page.length - 1].id;
      }
      expect(seen).to.deep.equal(sortById(created));
      expect(await files.scan({ afterId: seen[seen.length - 1].id, limit: 10 })).to.deep.equal([]);
    });

    describe('update (rename, visibility, expiry)', () => {
      it('changes only the members given and returns the record as it is now; the next lookup, here or through another process, sees it', async () => {
        const [file] = await givenFiles(userId, [{ name: 'old.png', isPublic: true }]);
        const reader = other ?? files;
        expect((await reader.findByFileId(file.fileId))!.isPublic).to.equal(true);
        const expiresAt = at(86_400_000);
        const updated = await files.update({ userId, fileId: file.fileId, changes: { isPublic: false, expiresAt } });
        expect(updated).to.deep.equal({ ...file, isPublic: false, expiresAt });
        expect(await reader.findByFileId(file.fileId)).to.deep.equal(updated);
        const renamed = await files.update({ userId, fileId: file.fileId, changes: { name: null, expiresAt: null } });
        expect(renamed).to.deep.equal({ ...file, isPublic: false, name: null, expiresAt: null });
        expect(await files.findByFileId(file.fileId)).to.deep.equal(renamed);
      });

      it('answers undefined and changes nothing for another account’s file or an unknown id', async () => {
        const [theirs] = await givenFiles(otherUserId, [{ isPublic: true }]);
        expect(await files.update({ userId, fileId: theirs.fileId, changes: { isPublic: false } })).to.equal(undefined);
        expect(await files.update({ userId, fileId: aFileId(), changes: { isPublic: false } })).to.equal(undefined);
        expect(await files.findByFileId(theirs.fileId)).to.deep.equal(theirs);
      });

      it('finds a renamed file by its new name only', async () => {
        const [file] = await givenFiles(userId, [{ name: 'holiday.png' }]);
        expect(await found({ q: 'holiday' })).to.deep.equal([file.fileId]);
        await files.update({ userId, fileId: file.fileId, changes: { name: 'work.png' } });
        expect(await found({ q: 'holiday' })).to.deep.equal([]);
        expect(await found({ q: 'work' })).to.deep.equal([file.fileId]);
      });

      it('keeps every total by visibility exact (alone, with a content type, a time or a size range) and the account totals unchanged', async () => {
        const created = await givenFiles(userId, [
          { isPublic: true, contentType: 'image/png', size: 10, createdAt: at(0) },
          { isPublic: true, contentType: 'image/png', size: 2000, createdAt: at(3_600_000) },
          { isPublic: false, contentType: 'application/pdf', size: 30, createdAt: at(86_400_000) },
        ]);
        const filters: FileFilter[] = [
          { isPublic: true },
          { isPublic: false },
          { isPublic: true, type: 'image/png' },
          { isPublic: false, type: 'image/png' },
          { isPublic: false, createdAfter: T0 },
          { isPublic: true, createdAfter: T0, createdBefore: at(7_200_000) },
          { isPublic: false, sizeMin: 5, sizeMax: 5000 },
          { isPublic: true, sizeMin: 1000 },
          { isPublic: false, q: 'report' },
        ];
        const check = async (current: StoredFile[]) => {
          for (const filter of filters) {
            const expected = current.filter((file) => file.isPublic === filter.isPublic && matchesRangeFilter(file, userId, filter)).length;
            const page = await files.list({ userId, filter, window: { offset: 0, limit: 100 } });
            expect(page.total, JSON.stringify(filter)).to.equal(expected);
            expect(page.items, JSON.stringify(filter)).to.have.length(expected);
          }
        };
        await check(created);
        // Twice, so that totals kept from the first answer must be counted again.
        const current = created.map((file) => ({ ...file }));
        for (const [index, isPublic] of [
          [0, false],
          [2, true],
          [1, false],
          [1, false],
        ] as const) {
          await files.update({ userId, fileId: current[index].fileId, changes: { isPublic } });
          current[index].isPublic = isPublic;
          await check(current);
        }
        expect(await files.totals(userId)).to.deep.equal({ storageBytes: 2040, filesCount: 3 });
        // Deleting after a change subtracts from the right visibility.
        await files.deleteMany({ userId, fileIds: [current[1].fileId] });
        await check([current[0], current[2]]);
      });
    });

    it('finds the files whose expiry has come, of every account, soonest first, at most `limit`', async () => {
      const t = (hours: number) => at(hours * 3_600_000);
      const [soon, later, , notYet] = await givenFiles(userId, [{ expiresAt: t(1) }, { expiresAt: t(2) }, { expiresAt: null }, { expiresAt: t(5) }]);
      const [theirs] = await givenFiles(otherUserId, [{ expiresAt: t(1.5) }]);
      expect((await files.findExpired({ now: t(0.5), limit: 10 })).map((f) => f.fileId)).to.deep.equal([]);
      expect((await files.findExpired({ now: t(2), limit: 10 })).map((f) => f.fileId)).to.deep.equal([soon.fileId, theirs.fileId, later.fileId]);
      expect((await files.findExpired({ now: t(2), limit: 2 })).map((f) => f.fileId)).to.deep.equal([soon.fileId, theirs.fileId]);
      expect(await files.findExpired({ now: t(9), limit: 10 })).to.deep.include(notYet);
      await files.update({ userId, fileId: notYet.fileId, changes: { expiresAt: null } });
      expect((await files.findExpired({ now: t(9), limit: 10 })).map((f) => f.fileId)).to.not.include(notYet.fileId);
    });

    it('adds read counts to the files named, skips unknown ids, and keeps them through other changes', async () => {
      const [a, b] = await givenFiles(userId, [{}, {}]);
      await files.addReadCounts([
        { fileId: a.fileId, views: 3, downloads: 1 },
        { fileId: aFileId(), views: 5, downloads: 5 },
        { fileId: b.fileId, views: 0, downloads: 2 },
      ]);
      await files.addReadCounts([{ fileId: a.fileId, views: 1, downloads: 0 }]);
      expect(await (other ?? files).findByFileId(a.fileId)).to.include({ viewCount: 4, downloadCount: 1 });
      expect(await files.findByFileId(b.fileId)).to.include({ viewCount: 0, downloadCount: 2 });
      expect((await files.update({ userId, fileId: a.fileId, changes: { name: 'x' } }))!).to.include({ viewCount: 4, downloadCount: 1 });
      expect((await files.list({ userId, filter: {}, window: { offset: 0, limit: 10 } })).items.map((f) => f.viewCount).sort()).to.deep.equal([0, 4]);
      await files.addReadCounts([]);
    });

    it('finds a file with its owner’s signing key in one lookup: null before the first, the new one after a replace', async () => {
      const [file] = await givenFiles(userId, [{}]);
      expect(await files.findWithSigningKey(file.fileId)).to.deep.equal({ file, signingKey: null });
      expect(await signingKeys.ensure({ userId, candidate: 'first-key' })).to.equal('first-key');
      expect(await signingKeys.ensure({ userId, candidate: 'second-key' })).to.equal('first-key');
      expect(await (other ?? files).findWithSigningKey(file.fileId)).to.deep.equal({ file, signingKey: 'first-key' });
      expect(await signingKeys.replace({ userId, key: 'rotated' })).to.equal(true);
      expect(await (other ?? files).findWithSigningKey(file.fileId)).to.deep.equal({ file, signingKey: 'rotated' });
      expect(await files.findWithSigningKey(aFileId())).to.equal(undefined);
      expect(await signingKeys.ensure({ userId: '00000000-0000-4000-8000-000000000000', candidate: 'x' })).to.equal(undefined);
      expect(await signingKeys.replace({ userId: '00000000-0000-4000-8000-000000000000', key: 'x' })).to.equal(false);
    });

    it('hands out copies: changing a stored, listed or returned record changes nothing stored', async () => {
      const file = aFile(userId, { name: 'original.txt' });
      const original = structuredClone(file);
      await files.insert(file, ROOMY);
      file.name = 'changed.txt';
      file.createdAt.setTime(0);
      const byId = await files.findByFileId(original.fileId);
      expect(byId).to.deep.equal(original);
      byId!.isPublic = !byId!.isPublic;
      const listed = await files.list({ userId, filter: {}, window: { offset: 0, limit: 10 } });
      listed.items[0].createdAt.setTime(0);
      listed.items[0].size = 1;
      expect(await files.findByFileId(original.fileId)).to.deep.equal(original);
      expect(await found({ q: 'changed' })).to.deep.equal([]);
    });
  });
}

function sortById(records: StoredFile[]): StoredFile[] {
  return [...records].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
