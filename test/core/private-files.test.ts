import { expect } from 'chai';
import { collect, createMemoryHangar, expectDomainError, pattern, signedBytes } from '../support/memory-hangar.js';

const HOUR = 3_600_000;

async function world() {
  const w = createMemoryHangar();
  const alice = await w.registerConfirmed('alice@example.com');
  const bob = await w.registerConfirmed('bob@example.com');
  const hidden = (await w.upload(alice.userId, { size: 40, isPublic: false, fileName: 'hidden.txt' })).file;
  const shown = (await w.upload(alice.userId, { size: 30, fileName: 'shown.txt' })).file;
  const bobs = (await w.upload(bob.userId, { size: 20 })).file;
  return { ...w, alice, bob, hidden, shown, bobs };
}

describe('ReadOwnFile', () => {
  it('opens the owner’s private and public files, whole or a range; not another account’s, an unknown or an expired one', async () => {
    const { hangar, clock, alice, bob, hidden, shown, bobs } = await world();
    const own = await hangar.readOwnFile.execute({ userId: alice.userId, fileId: hidden.fileId });
    expect(own.file.fileId).to.equal(hidden.fileId);
    expect(await collect(await own.open({ start: 0, end: 9 }))).to.have.length(10);
    expect((await hangar.readOwnFile.execute({ userId: alice.userId, fileId: shown.fileId })).file.size).to.equal(30);
    await expectDomainError(hangar.readOwnFile.execute({ userId: bob.userId, fileId: hidden.fileId }), 'FILE_NOT_FOUND');
    await expectDomainError(hangar.readOwnFile.execute({ userId: alice.userId, fileId: bobs.fileId }), 'FILE_NOT_FOUND');
    await expectDomainError(hangar.readOwnFile.execute({ userId: alice.userId, fileId: 'AAAAAAAAAA' }), 'FILE_NOT_FOUND');
    const brief = await hangar.uploadFile.execute({
      userId: alice.userId,
      contentType: 'text/plain',
      fileName: undefined,
      body: signedBytes('text/plain', 5),
      expiresInSeconds: 60,
    });
    clock.advance(60_000);
    await expectDomainError(hangar.readOwnFile.execute({ userId: alice.userId, fileId: brief.file.fileId }), 'FILE_NOT_FOUND');
  });
});

describe('Expired files before the sweep', () => {
  it('are no longer served at the public addresses, nor through signed URLs, from their expiry on', async () => {
    const { hangar, clock, alice } = await world();
    const brief = await hangar.uploadFile.execute({
      userId: alice.userId,
      contentType: 'text/plain',
      fileName: undefined,
      body: signedBytes('text/plain', 5),
      expiresInSeconds: 60,
    });
    const signed = await hangar.createSignedUrl.execute({ userId: alice.userId, fileId: brief.file.fileId, expiresInSeconds: 3600 });
    await hangar.readPublicFile.execute({ fileId: brief.file.fileId });
    clock.advance(60_000);
    await expectDomainError(hangar.readPublicFile.execute({ fileId: brief.file.fileId }), 'FILE_NOT_FOUND');
    const query = Object.fromEntries(new URL(signed.url).searchParams);
    await expectDomainError(hangar.readSignedFile.execute({ fileId: brief.file.fileId, query }), 'FILE_NOT_FOUND');
  });
});

describe('UpdateFile', () => {
  it('makes a file private (the public read refuses it) and public again, and renames it', async () => {
    const { hangar, alice, shown } = await world();
    const hidden = await hangar.updateFile.execute({ userId: alice.userId, fileId: shown.fileId, isPublic: false });
    expect(hidden.file.isPublic).to.equal(false);
    expect(hidden.urls.publicUrl).to.equal(null);
    await expectDomainError(hangar.readPublicFile.execute({ fileId: shown.fileId }), 'FILE_NOT_FOUND');
    const back = await hangar.updateFile.execute({ userId: alice.userId, fileId: shown.fileId, isPublic: true, name: '  new\u0000name.txt ' });
    expect(back.file).to.include({ isPublic: true, name: 'newname.txt' });
    expect((await hangar.readPublicFile.execute({ fileId: shown.fileId })).file.name).to.equal('newname.txt');
  });

  it('refuses nothing to change, a long name, a past or a too distant expiry, and another account’s file, changing nothing', async () => {
    const { hangar, repos, clock, alice, bob, shown } = await world();
    await expectDomainError(hangar.updateFile.execute({ userId: alice.userId, fileId: shown.fileId }), 'VALIDATION_FAILED');
    await expectDomainError(
      hangar.updateFile.execute({ userId: alice.userId, fileId: shown.fileId, isPublic: false, name: 'x'.repeat(256) }),
      'INVALID_FILE_NAME',
    );
    await expectDomainError(
      hangar.updateFile.execute({ userId: alice.userId, fileId: shown.fileId, isPublic: false, expiresAt: clock.now() }),
      'INVALID_EXPIRY',
    );
    await expectDomainError(
      hangar.updateFile.execute({ userId: alice.userId, fileId: shown.fileId, expiresAt: new Date(clock.now().getTime() + 101 * 365 * 24 * HOUR) }),
      'INVALID_EXPIRY',
    );
    await expectDomainError(hangar.updateFile.execute({ userId: bob.userId, fileId: shown.fileId, isPublic: false }), 'FILE_NOT_FOUND');
    expect(await repos.files.findByFileId(shown.fileId)).to.deep.equal(shown);
  });
});

describe('Signed URLs (CreateSignedUrl, ReadSignedFile, RotateSigningKey)', () => {
  const queryOf = (url: string) => Object.fromEntries(new URL(url).searchParams);
  const fileIdOf = (url: string) => new URL(url).pathname.split('/')[2];

  it('serves a private file through its URL until it expires, and refuses it after, or once the key is rotated', async () => {
    const { hangar, clock, alice, hidden } = await world();
    const signed = await hangar.createSignedUrl.execute({ userId: alice.userId, fileId: hidden.fileId, expiresInSeconds: 30, download: true });
    expect(signed.url.startsWith(`http://cdn.test/s/${hidden.fileId}?`)).to.equal(true);
    const read = await hangar.readSignedFile.execute({ fileId: fileIdOf(signed.url), query: queryOf(signed.url) });
    expect(read).to.include({ kind: 'file', disposition: 'attachment' });
    if (read.kind === 'file') expect(await collect(await read.open())).to.deep.equal(Buffer.from(pattern(40)));
    clock.advance(31_000);
    await expectDomainError(hangar.readSignedFile.execute({ fileId: fileIdOf(signed.url), query: queryOf(signed.url) }), 'SIGNED_URL_EXPIRED');

    const fresh = await hangar.createSignedUrl.execute({ userId: alice.userId, fileId: hidden.fileId, expiresInSeconds: 30 });
    await hangar.readSignedFile.execute({ fileId: hidden.fileId, query: queryOf(fresh.url) });
    await hangar.rotateSigningKey.execute({ userId: alice.userId });
    await expectDomainError(hangar.readSignedFile.execute({ fileId: hidden.fileId, query: queryOf(fresh.url) }), 'SIGNED_URL_INVALID');
  });

  it('refuses an altered grant, another account’s key, and expires_in out of 1–604800', async () => {
    const { hangar, alice, bob, hidden, bobs } = await world();
    const signed = await hangar.createSignedUrl.execute({ userId: alice.userId, fileId: hidden.fileId, expiresInSeconds: 60 });
    const query = queryOf(signed.url);
    for (const altered of [
      { ...query, download: '1' },
      { ...query, expires: String(Number(query.expires) + 1) },
      { ...query, w: '5' },
      { ...query, signature: 'x' },
    ]) {
      await expectDomainError(hangar.readSignedFile.execute({ fileId: hidden.fileId, query: altered }), 'SIGNED_URL_INVALID');
    }
    // Bob's own key does not make Alice's signature valid for his file.
    await hangar.createSignedUrl.execute({ userId: bob.userId, fileId: bobs.fileId, expiresInSeconds: 60 });
    await expectDomainError(hangar.readSignedFile.execute({ fileId: bobs.fileId, query }), 'SIGNED_URL_INVALID');
    for (const seconds of [0, 604_801, 1.5]) {
      await expectDomainError(
        hangar.createSignedUrl.execute({ userId: alice.userId, fileId: hidden.fileId, expiresInSeconds: seconds }),
        'INVALID_SIGNED_URL_REQUEST',
      );
    }
    await expectDomainError(hangar.createSignedUrl.execute({ userId: bob.userId, fileId: hidden.fileId, expiresInSeconds: 60 }), 'FILE_NOT_FOUND');
    await expectDomainError(
      hangar.createSignedUrl.execute({ userId: alice.userId, fileId: hidden.fileId, expiresInSeconds: 60, transform: { width: 10 } }),
      'NOT_AN_IMAGE',
    );
  });
});

describe('ExpireFiles', () => {
  it('deletes due files of every account (record, blob, storage) and logs each; keeps the rest', async () => {
    const { hangar, repos, blobs, clock, alice, bob, shown, totals } = await world();
    const due = await hangar.uploadFile.execute({
      userId: alice.userId,
      contentType: 'text/plain',
      fileName: undefined,
      body: signedBytes('text/plain', 7),
      expiresInSeconds: 10,
    });
    const bobsDue = await hangar.uploadFile.execute({
      userId: bob.userId,
      contentType: 'text/plain',
      fileName: undefined,
      body: signedBytes('text/plain', 8),
      expiresAt: new Date(clock.now().getTime() + 5_000),
    });
    const later = await hangar.uploadFile.execute({
      userId: alice.userId,
      contentType: 'text/plain',
      fileName: undefined,
      body: signedBytes('text/plain', 9),
      expiresInSeconds: 3600,
    });
    expect(await hangar.expireFiles.execute()).to.equal(0);
    const before = await totals(alice.userId);
    clock.advance(10_000);
    expect(await hangar.expireFiles.execute()).to.equal(2);
    expect(await repos.files.findByFileId(due.file.fileId)).to.equal(undefined);
    expect(await repos.files.findByFileId(bobsDue.file.fileId)).to.equal(undefined);
    expect(await blobs.get(due.file.blobKey)).to.equal(undefined);
    expect(await repos.files.findByFileId(later.file.fileId)).to.not.equal(undefined);
    expect(await repos.files.findByFileId(shown.fileId)).to.not.equal(undefined);
    expect(await totals(alice.userId)).to.deep.equal({ storageBytes: before.storageBytes - 7, filesCount: before.filesCount - 1 });
    await hangar.activity.flush();
    const logs = await hangar.listLogs.execute({ userId: alice.userId, page: 1, limit: 10 });
    expect(logs.items.map((entry) => [entry.method, entry.path, entry.metadata.reason])).to.deep.include(['DELETE', `/files/${due.file.fileId}`, 'expired']);
  });
});
