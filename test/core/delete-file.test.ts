import { expect } from 'chai';
import { collect, createMemoryHangar, expectDomainError, pattern } from '../support/memory-hangar.js';

async function withFiles() {
  const world = createMemoryHangar();
  const alice = await world.registerConfirmed('alice@example.com');
  const bob = await world.registerConfirmed('bob@example.com');
  const alicesFile = (await world.upload(alice.userId, { size: 12 })).file;
  const bobsFile = (await world.upload(bob.userId, { size: 34 })).file;
  return { ...world, alice, bob, alicesFile, bobsFile };
}

describe('DeleteFile', () => {
  it('removes the record and the blob: the file is gone everywhere', async () => {
    const { hangar, repos, blobs, alice, alicesFile } = await withFiles();
    await hangar.deleteFile.execute({ userId: alice.userId, fileId: alicesFile.fileId });
    expect(await repos.files.findByFileId(alicesFile.fileId)).to.equal(undefined);
    expect(await blobs.get(alicesFile.blobKey)).to.equal(undefined);
    await expectDomainError(hangar.getFile.execute({ userId: alice.userId, fileId: alicesFile.fileId }), 'FILE_NOT_FOUND');
    await expectDomainError(hangar.readPublicFile.execute({ fileId: alicesFile.fileId }), 'FILE_NOT_FOUND');
    expect((await hangar.listFiles.execute({ userId: alice.userId, filter: {}, page: 1, limit: 30 })).total).to.equal(0);
  });

  it('refuses another account’s file with FILE_NOT_FOUND and leaves it untouched', async () => {
    const { hangar, repos, alice, bobsFile } = await withFiles();
    await expectDomainError(hangar.deleteFile.execute({ userId: alice.userId, fileId: bobsFile.fileId }), 'FILE_NOT_FOUND');
    expect(await repos.files.findByFileId(bobsFile.fileId)).to.deep.equal(bobsFile);
    const publicFile = await hangar.readPublicFile.execute({ fileId: bobsFile.fileId });
    expect(await collect(await publicFile.open())).to.deep.equal(Buffer.from(pattern(34)));
  });

  it('refuses an unknown file id with FILE_NOT_FOUND', async () => {
    const { hangar, alice } = await withFiles();
    await expectDomainError(hangar.deleteFile.execute({ userId: alice.userId, fileId: 'AAAAAAAAAA' }), 'FILE_NOT_FOUND');
  });

  it('refuses a second delete of the same file with FILE_NOT_FOUND', async () => {
    const { hangar, alice, alicesFile } = await withFiles();
    await hangar.deleteFile.execute({ userId: alice.userId, fileId: alicesFile.fileId });
    await expectDomainError(hangar.deleteFile.execute({ userId: alice.userId, fileId: alicesFile.fileId }), 'FILE_NOT_FOUND');
  });

  it('leaves the user’s other files in place', async () => {
    const { hangar, alice, alicesFile, upload } = await withFiles();
    const other = (await upload(alice.userId, { size: 5 })).file;
    await hangar.deleteFile.execute({ userId: alice.userId, fileId: alicesFile.fileId });
    expect((await hangar.getFile.execute({ userId: alice.userId, fileId: other.fileId })).file.size).to.equal(5);
  });
});
