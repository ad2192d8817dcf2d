import { expect } from 'chai';
import type { UserRepository } from '../../core/accounts/user-repository.js';
import type { FileRepository } from '../../core/files/file-repository.js';
import type { ImageVariantRepository, VariantKey } from '../../core/images/image-variant-repository.js';
import { aFile, at, givenUser, T0 } from './persistence-fixtures.js';

/** What a {@link describeImageVariantRepositoryContract} factory returns: repositories over one empty store. */
export interface ImageVariantRepositorySubject {
  subject: ImageVariantRepository;
  /** A second repository over the same store, as another process would hold (defaults to `subject`). */
  other?: ImageVariantRepository;
  users: UserRepository;
  files: FileRepository;
  close?: () => Promise<void>;
}

const ROOMY = { storageLimitBytes: 1024 ** 4, fileCountLimit: 1_000_000 };
const LEASE_MS = 60_000;

/** The behaviour every {@link ImageVariantRepository} adapter must have; `makeSubject` is called once per test. */
export function describeImageVariantRepositoryContract(name: string, makeSubject: () => Promise<ImageVariantRepositorySubject>): void {
  describe(`ImageVariantRepository contract: ${name}`, () => {
    let variants: ImageVariantRepository;
    let other: ImageVariantRepository;
    let files: FileRepository;
    let users: UserRepository;
    let close: (() => Promise<void>) | undefined;
    let userId: string;
    let fileId: string;
    let key: (variant: string) => VariantKey;

    beforeEach(async () => {
      const made = await makeSubject();
      ({ subject: variants, files, users, close } = made);
      other = made.other ?? variants;
      userId = (await givenUser(users)).id;
      const file = aFile(userId, { size: 1000, contentType: 'image/png' });
      expect(await files.insert(file, ROOMY)).to.equal('inserted');
      fileId = file.fileId;
      key = (variant) => ({ fileRecordId: file.id, userId, variant });
    });
    afterEach(async () => {
      await close?.();
    });

    const claim = (repository: ImageVariantRepository, variant: string, token: string, options: { now?: Date; maxPerFile?: number } = {}) =>
      repository.claim({ ...key(variant), token, now: options.now ?? T0, leaseMs: LEASE_MS, maxPerFile: options.maxPerFile ?? 20 });

    it('gives a new variant to exactly one of many simultaneous claims, from two repositories', async () => {
      const outcomes = await Promise.all(Array.from({ length: 10 }, (_, i) => claim(i % 2 ? other : variants, 'w128', `token-${i}`)));
      expect(outcomes.filter((o) => o === 'claimed')).to.have.length(1);
      expect(outcomes.filter((o) => o === 'busy')).to.have.length(9);
      expect(await variants.list({ fileRecordId: key('w128').fileRecordId })).to.deep.equal([{ variant: 'w128', state: 'computing', sizeBytes: 0 }]);
    });

    it('records a stored variant, adds its bytes to the owner’s storage, and answers stored to later claims', async () => {
      expect(await claim(variants, 'w128', 'a')).to.equal('claimed');
      expect(await variants.markStored({ ...key('w128'), token: 'a', sizeBytes: 300, storageLimitBytes: 10_000 })).to.equal('stored');
      expect(await files.totals(userId)).to.deep.equal({ storageBytes: 1300, filesCount: 1 });
      expect(await claim(other, 'w128', 'b')).to.equal('stored');
      expect(await variants.list({ fileRecordId: key('w128').fileRecordId })).to.deep.equal([{ variant: 'w128', state: 'stored', sizeBytes: 300 }]);
    });

    it('refuses to record a variant that would pass the storage limit, and drops its claim', async () => {
      expect(await claim(variants, 'w128', 'a')).to.equal('claimed');
      expect(await variants.markStored({ ...key('w128'), token: 'a', sizeBytes: 300, storageLimitBytes: 1200 })).to.equal('storage_limit_reached');
      expect(await files.totals(userId)).to.deep.equal({ storageBytes: 1000, filesCount: 1 });
      expect(await variants.list({ fileRecordId: key('w128').fileRecordId })).to.deep.equal([]);
      expect(await claim(variants, 'w128', 'b')).to.equal('claimed');
    });

    it('lets an expired claim be taken over, and the old holder then finds it lost', async () => {
      expect(await claim(variants, 'w128', 'dead')).to.equal('claimed');
      expect(await claim(other, 'w128', 'live', { now: at(LEASE_MS - 1) })).to.equal('busy');
      expect(await claim(other, 'w128', 'live', { now: at(LEASE_MS) })).to.equal('claimed');
      expect(await variants.markStored({ ...key('w128'), token: 'dead', sizeBytes: 300, storageLimitBytes: 10_000 })).to.equal('lost');
      expect(await other.markStored({ ...key('w128'), token: 'live', sizeBytes: 300, storageLimitBytes: 10_000 })).to.equal('stored');
      expect((await files.totals(userId)).storageBytes).to.equal(1300);
    });

    it('releases only the holder’s claim', async () => {
      expect(await claim(variants, 'w128', 'a')).to.equal('claimed');
      await variants.release({ ...key('w128'), token: 'someone else' });
      expect(await claim(other, 'w128', 'b')).to.equal('busy');
      await variants.release({ ...key('w128'), token: 'a' });
      expect(await claim(other, 'w128', 'b')).to.equal('claimed');
    });

    it('holds a file to maxPerFile variants stored or claimed; expired claims do not count', async () => {
      expect(await claim(variants, 'v1', 'a', { maxPerFile: 2 })).to.equal('claimed');
      expect(await variants.markStored({ ...key('v1'), token: 'a', sizeBytes: 10, storageLimitBytes: 10_000 })).to.equal('stored');
      expect(await claim(variants, 'v2', 'b', { maxPerFile: 2 })).to.equal('claimed');
      expect(await claim(variants, 'v3', 'c', { maxPerFile: 2 })).to.equal('full');
      expect(await claim(variants, 'v1', 'd', { maxPerFile: 2 }), 'a stored one is still served').to.equal('stored');
      expect(await claim(variants, 'v3', 'c', { maxPerFile: 2, now: at(LEASE_MS) }), 'v2’s claim expired').to.equal('claimed');
      expect(await claim(variants, 'v2', 'f', { maxPerFile: 2, now: at(LEASE_MS) }), 'an expired claim is taken over only within the cap').to.equal('full');
      expect((await variants.list({ fileRecordId: key('v1').fileRecordId })).map((v) => v.variant)).to.deep.equal(['v1', 'v3']);
      expect(await claim(variants, 'x', 'e', { maxPerFile: 0 })).to.equal('full');
    });

    it('gives exactly the room left to simultaneous claims of distinct variants', async () => {
      const outcomes = await Promise.all(Array.from({ length: 8 }, (_, i) => claim(i % 2 ? other : variants, `v${i}`, `t${i}`, { maxPerFile: 3 })));
      expect(outcomes.filter((o) => o === 'claimed')).to.have.length(3);
      expect(outcomes.filter((o) => o === 'full')).to.have.length(5);
    });

    it('answers gone for a file that does not exist', async () => {
      expect(
        await variants.claim({
          fileRecordId: '00000000-0000-4000-8000-000000000000',
          userId,
          variant: 'w128',
          token: 'a',
          now: T0,
          leaseMs: LEASE_MS,
          maxPerFile: 20,
        }),
      ).to.equal('gone');
    });

    it('forgets a stored variant and subtracts its bytes', async () => {
      await claim(variants, 'w128', 'a');
      await variants.markStored({ ...key('w128'), token: 'a', sizeBytes: 300, storageLimitBytes: 10_000 });
      await other.forget(key('w128'));
      expect((await files.totals(userId)).storageBytes).to.equal(1000);
      expect(await claim(variants, 'w128', 'b')).to.equal('claimed');
    });

    it('goes with its file: deleting the file removes the variants and releases their bytes', async () => {
      await claim(variants, 'v1', 'a');
      await variants.markStored({ ...key('v1'), token: 'a', sizeBytes: 300, storageLimitBytes: 10_000 });
      await claim(variants, 'v2', 'b');
      expect((await files.totals(userId)).storageBytes).to.equal(1300);
      expect(await files.deleteMany({ userId, fileIds: [fileId] })).to.have.length(1);
      expect(await files.totals(userId)).to.deep.equal({ storageBytes: 0, filesCount: 0 });
      expect(await variants.list({ fileRecordId: key('v1').fileRecordId })).to.deep.equal([]);
      expect(await variants.markStored({ ...key('v2'), token: 'b', sizeBytes: 300, storageLimitBytes: 10_000 }), 'a claim of a deleted file').to.equal('lost');
      expect(await files.totals(userId)).to.deep.equal({ storageBytes: 0, filesCount: 0 });
    });
  });
}
