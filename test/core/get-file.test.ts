import { expect } from 'chai';
import { createMemoryHangar, expectDomainError } from '../support/memory-hangar.js';

async function withFiles() {
  const world = createMemoryHangar();
  const alice = await world.registerConfirmed('alice@example.com');
  const bob = await world.registerConfirmed('bob@example.com');
  const alicesFile = (await world.upload(alice.userId, { fileName: 'a.txt', size: 12 })).file;
  const bobsFile = (await world.upload(bob.userId, { fileName: 'b.txt', size: 34 })).file;
  return { ...world, alice, bob, alicesFile, bobsFile };
}

describe('GetFile', () => {
  it('returns the user’s file with its addresses', async () => {
    const { hangar, alice, alicesFile } = await withFiles();
    const view = await hangar.getFile.execute({ userId: alice.userId, fileId: alicesFile.fileId });
    expect(view.file).to.deep.equal(alicesFile);
    expect(view.urls.publicUrl).to.equal(`http://cdn.test/m/${alicesFile.fileId}`);
  });

  it('returns a private file to its owner, with null addresses', async () => {
    const { hangar, alice, upload } = await withFiles();
    const { file } = await upload(alice.userId, { isPublic: false });
    const view = await hangar.getFile.execute({ userId: alice.userId, fileId: file.fileId });
    expect(view.file.isPublic).to.equal(false);
    expect(view.urls.publicUrl).to.equal(null);
  });

  it('answers another account’s file with FILE_NOT_FOUND, like a missing one', async () => {
    const { hangar, alice, bobsFile } = await withFiles();
    const foreign = await expectDomainError(hangar.getFile.execute({ userId: alice.userId, fileId: bobsFile.fileId }), 'FILE_NOT_FOUND');
    const missing = await expectDomainError(hangar.getFile.execute({ userId: alice.userId, fileId: 'AAAAAAAAAA' }), 'FILE_NOT_FOUND');
    expect(foreign.message).to.equal(missing.message);
  });

  it('answers an id of the wrong shape with FILE_NOT_FOUND', async () => {
    const { hangar, alice } = await withFiles();
    await expectDomainError(hangar.getFile.execute({ userId: alice.userId, fileId: '../etc/passwd' }), 'FILE_NOT_FOUND');
    await expectDomainError(hangar.getFile.execute({ userId: alice.userId, fileId: '' }), 'FILE_NOT_FOUND');
  });
});
