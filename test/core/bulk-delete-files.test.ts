import { expect } from 'chai';
import { createMemoryHangar, expectDomainError } from '../support/memory-hangar.js';

async function withFiles() {
  const world = createMemoryHangar();
  const alice = await world.registerConfirmed('alice@example.com');
  const bob = await world.registerConfirmed('bob@example.com');
  const alicesFiles = [];
  for (let i = 0; i < 3; i++) alicesFiles.push((await world.upload(alice.userId, { size: 10 + i })).file);
  const bobsFile = (await world.upload(bob.userId, { size: 99 })).file;
  return { ...world, alice, bob, alicesFiles, bobsFile };
}

describe('BulkDeleteFiles', () => {
  it('deletes the listed files, records and blobs, and counts them', async () => {
    const { hangar, repos, blobs, alice, alicesFiles } = await withFiles();
    const [a, b, c] = alicesFiles;
    const result = await hangar.bulkDeleteFiles.execute({ userId: alice.userId, ids: [a.fileId, b.fileId] });
    expect(result).to.deep.equal({ deleted: 2, errors: [] });
    for (const file of [a, b]) {
      expect(await repos.files.findByFileId(file.fileId)).to.equal(undefined);
      expect(await blobs.get(file.blobKey)).to.equal(undefined);
    }
    expect(await repos.files.findByFileId(c.fileId)).to.deep.equal(c);
    expect(await blobs.get(c.blobKey)).to.not.equal(undefined);
  });

  it('reports unknown and foreign ids as "File not found", in request order, and leaves the foreign file untouched', async () => {
    const { hangar, repos, blobs, alice, alicesFiles, bobsFile } = await withFiles();
    const result = await hangar.bulkDeleteFiles.execute({ userId: alice.userId, ids: ['AAAAAAAAAA', alicesFiles[0].fileId, bobsFile.fileId] });
    expect(result).to.deep.equal({
      deleted: 1,
      errors: [
        { id: 'AAAAAAAAAA', error: 'File not found' },
        { id: bobsFile.fileId, error: 'File not found' },
      ],
    });
    expect(await repos.files.findByFileId(bobsFile.fileId)).to.deep.equal(bobsFile);
    expect(await blobs.get(bobsFile.blobKey)).to.not.equal(undefined);
  });

  it('counts a repeated id once, with no error for the repeat', async () => {
    const { hangar, alice, alicesFiles } = await withFiles();
    const id = alicesFiles[0].fileId;
    expect(await hangar.bulkDeleteFiles.execute({ userId: alice.userId, ids: [id, id, id] })).to.deep.equal({ deleted: 1, errors: [] });
  });

  it('reports a repeated unknown id once', async () => {
    const { hangar, alice } = await withFiles();
    expect(await hangar.bulkDeleteFiles.execute({ userId: alice.userId, ids: ['AAAAAAAAAA', 'AAAAAAAAAA'] })).to.deep.equal({
      deleted: 0,
      errors: [{ id: 'AAAAAAAAAA', error: 'File not found' }],
    });
  });

  it('reports already-deleted files as not found on a second run', async () => {
    const { hangar, alice, alicesFiles } = await withFiles();
    const ids = alicesFiles.map((f) => f.fileId);
    expect((await hangar.bulkDeleteFiles.execute({ userId: alice.userId, ids })).deleted).to.equal(3);
    const again = await hangar.bulkDeleteFiles.execute({ userId: alice.userId, ids });
    expect(again.deleted).to.equal(0);
    expect(again.errors.map((e) => e.id)).to.deep.equal(ids);
    expect((await hangar.listFiles.execute({ userId: alice.userId, filter: {}, page: 1, limit: 30 })).total).to.equal(0);
  });

  it('refuses an empty list and more than 100 ids with VALIDATION_FAILED, deleting nothing', async () => {
    const { hangar, repos, alice, alicesFiles } = await withFiles();
    await expectDomainError(hangar.bulkDeleteFiles.execute({ userId: alice.userId, ids: [] }), 'VALIDATION_FAILED');
    const tooMany = [...alicesFiles.map((f) => f.fileId), ...Array.from({ length: 98 }, (_, i) => `AAAAAAAA${String(i).padStart(2, '0')}`)];
    expect(tooMany).to.have.length(101);
    const error = await expectDomainError(hangar.bulkDeleteFiles.execute({ userId: alice.userId, ids: tooMany }), 'VALIDATION_FAILED');
    expect(error.message).to.contain('100');
    for (const file of alicesFiles) expect(await repos.files.findByFileId(file.fileId)).to.deep.equal(file);
  });

  it('accepts exactly 100 ids', async () => {
    const { hangar, alice, alicesFiles } = await withFiles();
    const ids = [...alicesFiles.map((f) => f.fileId), ...Array.from({ length: 97 }, (_, i) => `AAAAAAAA${String(i).padStart(2, '0')}`)];
    expect((await hangar.bulkDeleteFiles.execute({ userId: alice.userId, ids })).deleted).to.equal(3);
  });
});
