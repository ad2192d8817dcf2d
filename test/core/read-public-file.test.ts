import { expect } from 'chai';
import { collect, createMemoryHangar, expectDomainError, signedPattern } from '../support/memory-hangar.js';

async function withFile() {
  const world = createMemoryHangar();
  const alice = await world.registerConfirmed('alice@example.com');
  const { file } = await world.upload(alice.userId, { size: 500, contentType: 'image/png', fileName: 'pic.png' });
  return { ...world, alice, file };
}

describe('ReadPublicFile', () => {
  it('finds a public file by file id, with its record, and opens its bytes whole', async () => {
    const { hangar, file } = await withFile();
    const found = await hangar.readPublicFile.execute({ fileId: file.fileId });
    expect(found.file).to.deep.equal(file);
    expect(await collect(await found.open())).to.deep.equal(Buffer.from(signedPattern('image/png', 500)));
  });

  it('opens an inclusive byte range', async () => {
    const { hangar, file } = await withFile();
    const found = await hangar.readPublicFile.execute({ fileId: file.fileId });
    const whole = Buffer.from(signedPattern('image/png', 500));
    expect(await collect(await found.open({ start: 100, end: 199 }))).to.deep.equal(whole.subarray(100, 200));
    expect(await collect(await found.open({ start: 0, end: 0 }))).to.deep.equal(whole.subarray(0, 1));
    expect(await collect(await found.open({ start: 499, end: 499 }))).to.deep.equal(whole.subarray(499, 500));
    expect(await collect(await found.open({ start: 0, end: 499 }))).to.deep.equal(whole);
  });

  it('opens the same file more than once', async () => {
    const { hangar, file } = await withFile();
    const found = await hangar.readPublicFile.execute({ fileId: file.fileId });
    expect((await collect(await found.open())).length).to.equal(500);
    expect((await collect(await found.open())).length).to.equal(500);
  });

  it('answers a private file with FILE_NOT_FOUND, exactly like a missing one', async () => {
    const { hangar, alice, upload } = await withFile();
    const { file } = await upload(alice.userId, { isPublic: false });
    const hidden = await expectDomainError(hangar.readPublicFile.execute({ fileId: file.fileId }), 'FILE_NOT_FOUND');
    const missing = await expectDomainError(hangar.readPublicFile.execute({ fileId: 'AAAAAAAAAA' }), 'FILE_NOT_FOUND');
    expect(hidden.message).to.equal(missing.message);
  });

  it('answers ids of the wrong shape with FILE_NOT_FOUND', async () => {
    const { hangar, file } = await withFile();
    for (const fileId of ['', 'short', `${file.fileId}x`, '../../etc/pw', `${file.fileId.slice(0, 9)}-`]) {
      await expectDomainError(hangar.readPublicFile.execute({ fileId }), 'FILE_NOT_FOUND');
    }
  });

  it('answers FILE_NOT_FOUND on open when the blob has vanished', async () => {
    const { hangar, blobs, file } = await withFile();
    const found = await hangar.readPublicFile.execute({ fileId: file.fileId });
    await blobs.delete(file.blobKey);
    await expectDomainError(found.open(), 'FILE_NOT_FOUND');
  });
});
