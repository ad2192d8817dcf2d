import { expect } from 'chai';
import { MemoryPartialBlobStore } from '../../adapters/blobs/memory-partial-blob-store.js';
import { createMemoryHangar, expectDomainError } from '../support/memory-hangar.js';

async function* bodyOf(...parts: (string | Uint8Array)[]): AsyncGenerator<Uint8Array> {
  for (const part of parts) yield typeof part === 'string' ? new TextEncoder().encode(part) : part;
}

/** A world whose partial blobs can be counted. */
function aWorld() {
  let partials: MemoryPartialBlobStore | undefined;
  const world = createMemoryHangar({ resumableUploadExpiryHours: 1 }, (defaults) => ({
    partialBlobs: (partials = new MemoryPartialBlobStore(defaults.blobs)),
  }));
  return { ...world, partials: partials! };
}

describe('resumable uploads (core, in-memory adapters)', () => {
  it('completes an upload sent in three requests into a File with the bytes, and releases the reservation', async () => {
    const world = aWorld();
    const { userId } = await world.registerConfirmed('tus@example.com');
    const upload = await world.hangar.createResumableUpload.execute({ userId, length: 12, contentType: 'text/plain', fileName: 'notes.txt' });
    expect(await world.repos.files.totals(userId)).to.deep.equal({ storageBytes: 0, filesCount: 0, reservedBytes: 12, reservedFiles: 1 });
    await world.hangar.appendToResumableUpload.execute({ userId, uploadId: upload.id, offset: 0, body: bodyOf('hello ') });
    await expectDomainError(
      world.hangar.appendToResumableUpload.execute({ userId, uploadId: upload.id, offset: 0, body: bodyOf('x') }),
      'UPLOAD_OFFSET_MISMATCH',
    );
    const middle = await world.hangar.appendToResumableUpload.execute({ userId, uploadId: upload.id, offset: 6, body: bodyOf('wor') });
    expect(middle.file).to.equal(undefined);
    expect((await world.hangar.listFiles.execute({ userId, page: 1, limit: 10, filter: {} })).items).to.deep.equal([]);
    const last = await world.hangar.appendToResumableUpload.execute({ userId, uploadId: upload.id, offset: 9, body: bodyOf('ld!') });
    expect(last.file?.file).to.include({ fileId: upload.fileId, size: 12, name: 'notes.txt', contentType: 'text/plain' });
    expect(await world.repos.files.totals(userId)).to.deep.equal({ storageBytes: 12, filesCount: 1 });
    expect((await world.hangar.getResumableUpload.execute({ userId, uploadId: upload.id })).file?.file.fileId).to.equal(upload.fileId);
    expect(world.partials.count).to.equal(0);
  });

  it('refuses a completed upload whose bytes are not of its declared type: no File, no blob, no reservation left', async () => {
    const world = aWorld();
    const { userId } = await world.registerConfirmed('tus@example.com');
    const upload = await world.hangar.createResumableUpload.execute({ userId, length: 64, contentType: 'image/png', fileName: 'not.png' });
    await expectDomainError(
      world.hangar.appendToResumableUpload.execute({ userId, uploadId: upload.id, offset: 0, body: bodyOf('x'.repeat(64)) }),
      'CONTENT_TYPE_MISMATCH',
    );
    expect(await world.repos.files.totals(userId)).to.deep.equal({ storageBytes: 0, filesCount: 0 });
    expect(await world.blobs.liveKeys()).to.deep.equal([]);
    expect(world.partials.count).to.equal(0);
    await expectDomainError(world.hangar.getResumableUpload.execute({ userId, uploadId: upload.id }), 'UPLOAD_NOT_FOUND');
  });

  it('sweeps an unfinished upload once its expiry has come: bytes and reservation go, a PATCH before the sweep answers UPLOAD_EXPIRED', async () => {
    const world = aWorld();
    const { userId } = await world.registerConfirmed('tus@example.com');
    const upload = await world.hangar.createResumableUpload.execute({ userId, length: 100, contentType: 'text/plain', fileName: undefined });
    await world.hangar.appendToResumableUpload.execute({ userId, uploadId: upload.id, offset: 0, body: bodyOf('x'.repeat(40)) });
    world.clock.advance(3_600_000 - 1);
    expect(await world.hangar.expireResumableUploads.execute()).to.equal(0);
    world.clock.advance(1);
    await expectDomainError(world.hangar.appendToResumableUpload.execute({ userId, uploadId: upload.id, offset: 40, body: bodyOf('y') }), 'UPLOAD_EXPIRED');
    expect(await world.hangar.expireResumableUploads.execute()).to.equal(1);
    expect(world.partials.count).to.equal(0);
    expect(await world.repos.files.totals(userId)).to.deep.equal({ storageBytes: 0, filesCount: 0 });
    await expectDomainError(world.hangar.getResumableUpload.execute({ userId, uploadId: upload.id }), 'UPLOAD_NOT_FOUND');
  });

  it('refuses one account’s PATCH to another’s upload as not found', async () => {
    const world = aWorld();
    const alice = await world.registerConfirmed('alice@example.com');
    const bob = await world.registerConfirmed('bob@example.com');
    const upload = await world.hangar.createResumableUpload.execute({ userId: alice.userId, length: 10, contentType: 'text/plain', fileName: undefined });
    await expectDomainError(
      world.hangar.appendToResumableUpload.execute({ userId: bob.userId, uploadId: upload.id, offset: 0, body: bodyOf('0123456789') }),
      'UPLOAD_NOT_FOUND',
    );
    await expectDomainError(world.hangar.terminateResumableUpload.execute({ userId: bob.userId, uploadId: upload.id }), 'UPLOAD_NOT_FOUND');
  });

  it('deleting the account removes its unfinished uploads’ partial bytes, and leaves another account’s alone', async () => {
    const world = aWorld();
    const { userId, email } = await world.registerConfirmed('leaving@example.com');
    const other = await world.registerConfirmed('staying@example.com');
    for (const owner of [userId, userId, other.userId]) {
      const upload = await world.hangar.createResumableUpload.execute({ userId: owner, length: 12, contentType: 'text/plain', fileName: 'notes.txt' });
      await world.hangar.appendToResumableUpload.execute({ userId: owner, uploadId: upload.id, offset: 0, body: bodyOf('hello ') });
    }
    expect(world.partials.count).to.equal(3);
    await world.hangar.deleteAccount.execute({ email });
    expect(world.partials.count, 'only the other account’s partial is left').to.equal(1);
    expect(await world.repos.files.totals(other.userId)).to.deep.equal({ storageBytes: 0, filesCount: 0, reservedBytes: 12, reservedFiles: 1 });
  });
});
