import { expect } from 'chai';
import type { FileRepository } from '../../core/index.js';
import { createMemoryHangar, expectDomainError, gate } from '../support/memory-hangar.js';

type MemoryWorld = ReturnType<typeof createMemoryHangar>;

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

describe('read counts (view_count) while a write of them is under way', () => {
  /** The files repository with `addReadCounts` writing at once but returning only once `acknowledged` opens. */
  function withHeldCountWrites() {
    const held = { acknowledged: undefined as Promise<void> | undefined };
    const world = createMemoryHangar({}, (ports) => ({
      files: new Proxy(ports.files, {
        get(target, property, receiver) {
          if (property !== 'addReadCounts') return Reflect.get(target, property, receiver);
          return async (entries: Parameters<FileRepository['addReadCounts']>[0]) => {
            await target.addReadCounts(entries);
            if (held.acknowledged) await held.acknowledged;
          };
        },
      }),
    }));
    return { ...world, held };
  }

  const shows = {
    GetFile: async (hangar: MemoryWorld['hangar'], userId: string, fileId: string) => (await hangar.getFile.execute({ userId, fileId })).file.viewCount,
    ListFiles: async (hangar: MemoryWorld['hangar'], userId: string) =>
      (await hangar.listFiles.execute({ userId, filter: {}, page: 1, limit: 10 })).items[0].file.viewCount,
    UpdateFile: async (hangar: MemoryWorld['hangar'], userId: string, fileId: string) =>
      (await hangar.updateFile.execute({ userId, fileId, name: 'renamed.txt' })).file.viewCount,
  };
  for (const [name, shown] of Object.entries(shows)) {
    it(`${name} counts a batch once when it reads after the batch's write committed, before the write has returned`, async () => {
      const { hangar, held, registerConfirmed, upload, repos } = withHeldCountWrites();
      const alice = await registerConfirmed('alice@example.com');
      const { file } = await upload(alice.userId, { fileName: 'a.txt', size: 12 });
      await hangar.readPublicFile.execute({ fileId: file.fileId });
      await hangar.readPublicFile.execute({ fileId: file.fileId });
      const acknowledged = gate();
      held.acknowledged = acknowledged.promise;
      const flushing = hangar.fileReadCounts.flush();
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect((await repos.files.findByFileId(file.fileId))?.viewCount, 'the batch is in the database').to.equal(2);
      const answer = shown(hangar, alice.userId, file.fileId);
      await new Promise((resolve) => setTimeout(resolve, 10));
      acknowledged.open();
      await flushing;
      expect(await answer).to.equal(2);
      expect(await shown(hangar, alice.userId, file.fileId)).to.equal(2);
    });
  }
});
