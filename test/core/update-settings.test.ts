import { expect } from 'chai';
import { createMemoryHangar, expectDomainError } from '../support/memory-hangar.js';

const MIB = 1024 * 1024;

async function withAlice() {
  const world = createMemoryHangar();
  const alice = await world.registerConfirmed('alice@example.com');
  return { ...world, alice };
}

describe('UpdateSettings', () => {
  it('sets the account’s upload size and returns the new settings', async () => {
    const { hangar, repos, alice } = await withAlice();
    const settings = await hangar.updateSettings.execute({ userId: alice.userId, maxUploadSizeBytes: 2048 });
    expect(settings).to.deep.equal({ publicUrlBase: 'http://cdn.test', customDomain: null, maxUploadSizeBytes: 2048 });
    expect((await hangar.getSettings.execute({ userId: alice.userId })).maxUploadSizeBytes).to.equal(2048);
    expect((await repos.users.findById(alice.userId))?.maxUploadSizeBytes).to.equal(2048);
  });

  it('goes back to the service default with null', async () => {
    const { hangar, repos, alice } = await withAlice();
    await hangar.updateSettings.execute({ userId: alice.userId, maxUploadSizeBytes: 2048 });
    const settings = await hangar.updateSettings.execute({ userId: alice.userId, maxUploadSizeBytes: null });
    expect(settings.maxUploadSizeBytes).to.equal(1024);
    expect((await repos.users.findById(alice.userId))?.maxUploadSizeBytes).to.equal(null);
  });

  it('leaves the size unchanged when the field is absent', async () => {
    const { hangar, alice } = await withAlice();
    await hangar.updateSettings.execute({ userId: alice.userId, maxUploadSizeBytes: 2048 });
    expect((await hangar.updateSettings.execute({ userId: alice.userId })).maxUploadSizeBytes).to.equal(2048);
  });

  it('accepts 1 byte and exactly the ceiling (1 MiB)', async () => {
    const { hangar, alice } = await withAlice();
    expect((await hangar.updateSettings.execute({ userId: alice.userId, maxUploadSizeBytes: 1 })).maxUploadSizeBytes).to.equal(1);
    expect((await hangar.updateSettings.execute({ userId: alice.userId, maxUploadSizeBytes: MIB })).maxUploadSizeBytes).to.equal(MIB);
  });

  for (const value of [0, -1, 1.5, MIB + 1, Number.NaN, Number.POSITIVE_INFINITY, Number.MAX_SAFE_INTEGER + 2]) {
    it(`refuses max_upload_size_bytes ${value} with INVALID_SETTINGS and keeps the old value`, async () => {
      const { hangar, alice } = await withAlice();
      await hangar.updateSettings.execute({ userId: alice.userId, maxUploadSizeBytes: 2048 });
      const error = await expectDomainError(hangar.updateSettings.execute({ userId: alice.userId, maxUploadSizeBytes: value }), 'INVALID_SETTINGS');
      expect(error.details).to.deep.equal({ max: MIB });
      expect((await hangar.getSettings.execute({ userId: alice.userId })).maxUploadSizeBytes).to.equal(2048);
    });
  }

  it('changes what upload accepts: a 10-byte limit takes 10 bytes and refuses 11', async () => {
    const { hangar, alice, upload } = await withAlice();
    await hangar.updateSettings.execute({ userId: alice.userId, maxUploadSizeBytes: 10 });
    expect((await upload(alice.userId, { size: 10 })).file.size).to.equal(10);
    const error = await expectDomainError(upload(alice.userId, { size: 11 }), 'FILE_TOO_LARGE');
    expect(error.details).to.deep.equal({ max_upload_size_bytes: 10 });
  });

  it('raises what upload accepts above the service default', async () => {
    const { hangar, alice, upload } = await withAlice();
    await expectDomainError(upload(alice.userId, { size: 5000 }), 'FILE_TOO_LARGE');
    await hangar.updateSettings.execute({ userId: alice.userId, maxUploadSizeBytes: 5000 });
    expect((await upload(alice.userId, { size: 5000 })).file.size).to.equal(5000);
    await hangar.updateSettings.execute({ userId: alice.userId, maxUploadSizeBytes: null });
    await expectDomainError(upload(alice.userId, { size: 5000 }), 'FILE_TOO_LARGE');
  });

  it('changes only the caller’s account', async () => {
    const world = await withAlice();
    const bob = await world.registerConfirmed('bob@example.com');
    await world.hangar.updateSettings.execute({ userId: world.alice.userId, maxUploadSizeBytes: 10 });
    expect((await world.hangar.getSettings.execute({ userId: bob.userId })).maxUploadSizeBytes).to.equal(1024);
  });
});
