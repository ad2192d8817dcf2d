import { expect } from 'chai';
import type { UserRepository } from '../../core/accounts/user-repository.js';
import type { FileRepository } from '../../core/files/file-repository.js';
import type { StoredFile } from '../../core/files/stored-file.js';
import type { MediaFacts, MediaFactsRepository } from '../../core/media/media-facts.js';
import { aFile, at, givenUser } from './persistence-fixtures.js';

/** What a {@link describeMediaFactsRepositoryContract} factory returns: repositories over one empty store. */
export interface MediaFactsRepositorySubject {
  subject: MediaFactsRepository;
  users: UserRepository;
  files: FileRepository;
  close?: () => Promise<void>;
}

const ROOMY = { storageLimitBytes: 1024 ** 4, fileCountLimit: 1_000_000 };
const PHOTO: MediaFacts = { width: 3024, height: 4032, durationSeconds: null, thumbhash: '1QcSHQRnh493V4dIh4eXh1h4kJUI' };
const SONG: MediaFacts = { width: null, height: null, durationSeconds: 187.426, thumbhash: null };
const NOTHING: MediaFacts = { width: null, height: null, durationSeconds: null, thumbhash: null };

/** The behaviour every {@link MediaFactsRepository} adapter must have; `makeSubject` is called once per test. */
export function describeMediaFactsRepositoryContract(name: string, makeSubject: () => Promise<MediaFactsRepositorySubject>): void {
  describe(`MediaFactsRepository contract: ${name}`, () => {
    let media: MediaFactsRepository;
    let files: FileRepository;
    let users: UserRepository;
    let close: (() => Promise<void>) | undefined;
    let userId: string;

    beforeEach(async () => {
      ({ subject: media, files, users, close } = await makeSubject());
      userId = (await givenUser(users)).id;
    });
    afterEach(async () => {
      await close?.();
    });

    const stored = async (overrides: Partial<StoredFile> = {}) => {
      const file = aFile(userId, overrides);
      expect(await files.insert(file, ROOMY)).to.equal('inserted');
      return file;
    };

    it('keeps each file’s facts, nulls included, and reads many in one call; files without facts are absent', async () => {
      const photo = await stored({ contentType: 'image/jpeg' });
      const song = await stored({ contentType: 'audio/mpeg' });
      const pdf = await stored();
      const bare = await stored();
      expect(await media.save({ fileRecordId: photo.id, facts: PHOTO, state: 'probed', computedAt: at(1) })).to.equal(true);
      expect(await media.save({ fileRecordId: song.id, facts: SONG, state: 'probed', computedAt: at(2) })).to.equal(true);
      expect(await media.save({ fileRecordId: pdf.id, facts: NOTHING, state: 'failed', computedAt: at(3) })).to.equal(true);
      const found = await media.findMany([photo.id, song.id, pdf.id, bare.id, '00000000-0000-7000-8000-000000000000']);
      expect([...found.keys()].sort()).to.deep.equal([photo.id, song.id, pdf.id].sort());
      expect(found.get(photo.id)).to.deep.equal(PHOTO);
      expect(found.get(song.id)).to.deep.equal(SONG);
      expect(found.get(pdf.id)).to.deep.equal(NOTHING);
      expect(await media.findMany([])).to.deep.equal(new Map());
    });

    it('replaces a file’s facts when they are saved again', async () => {
      const photo = await stored({ contentType: 'image/png' });
      await media.save({ fileRecordId: photo.id, facts: NOTHING, state: 'failed', computedAt: at(1) });
      await media.save({ fileRecordId: photo.id, facts: PHOTO, state: 'probed', computedAt: at(2) });
      expect((await media.findMany([photo.id])).get(photo.id)).to.deep.equal(PHOTO);
    });

    it('stores nothing for a file that does not exist, and forgets the facts of a deleted file', async () => {
      expect(await media.save({ fileRecordId: '00000000-0000-7000-8000-000000000000', facts: PHOTO, state: 'probed', computedAt: at(1) })).to.equal(false);
      const photo = await stored({ contentType: 'image/png' });
      await media.save({ fileRecordId: photo.id, facts: PHOTO, state: 'probed', computedAt: at(1) });
      await files.deleteMany({ userId, fileIds: [photo.fileId] });
      expect(await media.findMany([photo.id])).to.deep.equal(new Map());
      expect(await media.save({ fileRecordId: photo.id, facts: PHOTO, state: 'probed', computedAt: at(2) })).to.equal(false);
      expect(await media.countWithout()).to.equal(0);
    });

    it('walks the files without facts in ascending record id, a batch at a time, and counts them', async () => {
      const all: StoredFile[] = [];
      for (let i = 0; i < 7; i++) all.push(await stored({ contentType: i % 2 ? 'image/png' : 'audio/wav', size: 100 + i }));
      const ids = all.map((file) => file.id).sort();
      await media.save({ fileRecordId: ids[1], facts: PHOTO, state: 'probed', computedAt: at(1) });
      await media.save({ fileRecordId: ids[4], facts: NOTHING, state: 'failed', computedAt: at(1) });
      expect(await media.countWithout()).to.equal(5);
      const first = await media.filesWithout({ limit: 3 });
      expect(first.map((file) => file.id)).to.deep.equal([ids[0], ids[2], ids[3]]);
      const byId = new Map(all.map((file) => [file.id, file]));
      expect(first[0]).to.deep.equal({
        id: ids[0],
        blobKey: byId.get(ids[0])!.blobKey,
        contentType: byId.get(ids[0])!.contentType,
        size: byId.get(ids[0])!.size,
      });
      const rest = await media.filesWithout({ afterId: first[2].id, limit: 3 });
      expect(rest.map((file) => file.id)).to.deep.equal([ids[5], ids[6]]);
      expect(await media.filesWithout({ afterId: ids[6], limit: 3 })).to.deep.equal([]);
    });

    it('walks only the files created before a moment when asked (the runtime’s catch-up skips fresh uploads)', async () => {
      const old = await stored({ contentType: 'image/png', createdAt: at(10) });
      const fresh = await stored({ contentType: 'image/png', createdAt: at(20) });
      const done = await stored({ contentType: 'image/png', createdAt: at(5) });
      await media.save({ fileRecordId: done.id, facts: PHOTO, state: 'probed', computedAt: at(6) });
      expect((await media.filesWithout({ limit: 10, createdBefore: at(20) })).map((file) => file.id)).to.deep.equal([old.id]);
      expect((await media.filesWithout({ limit: 10, createdBefore: at(10) })).map((file) => file.id)).to.deep.equal([]);
      expect((await media.filesWithout({ limit: 10, createdBefore: at(21) })).map((file) => file.id).sort()).to.deep.equal([old.id, fresh.id].sort());
    });
  });
}
