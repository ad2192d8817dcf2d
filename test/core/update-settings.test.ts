import { expect } from 'chai';
import type { ImageMetadataMode } from '../../core/index.js';
import { createMemoryHangar, expectDomainError } from '../support/memory-hangar.js';
import { gpsPhoto, photoFacts } from '../support/photos.js';

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
    expect(settings).to.deep.equal({ publicUrlBase: 'http://cdn.test', customDomain: null, maxUploadSizeBytes: 2048, imageMetadata: 'strip_location' });
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

  it('sets image_metadata, and uploads of photos follow it: the file says what was removed', async () => {
    const { hangar, alice, upload } = await withAlice();
    await hangar.updateSettings.execute({ userId: alice.userId, maxUploadSizeBytes: MIB });
    const photo = await gpsPhoto('jpeg');
    const send = async () =>
      (
        await upload(alice.userId, {
          contentType: 'image/jpeg',
          body: (async function* () {
            yield photo;
          })(),
          contentLength: photo.length,
        })
      ).file;
    expect((await send()).metadataRemoved).to.deep.equal(['location']);
    expect((await hangar.updateSettings.execute({ userId: alice.userId, imageMetadata: 'strip_all' })).imageMetadata).to.equal('strip_all');
    const bare = await send();
    expect(bare.metadataRemoved).to.deep.equal(['location', 'exif', 'xmp']);
    expect(bare.size).to.be.lessThan(photo.length);
    await hangar.updateSettings.execute({ userId: alice.userId, imageMetadata: 'keep' });
    const kept = await send();
    expect(kept.metadataRemoved).to.equal(undefined);
    expect(kept.size).to.equal(photo.length);
    expect((await photoFacts(photo, 'jpeg')).hasLocation).to.equal(true);
  });

  it('refuses an image_metadata value it does not know with INVALID_SETTINGS (a host without the HTTP edge)', async () => {
    const { hangar, alice } = await withAlice();
    await expectDomainError(hangar.updateSettings.execute({ userId: alice.userId, imageMetadata: 'nothing' as ImageMetadataMode }), 'INVALID_SETTINGS');
    expect((await hangar.getSettings.execute({ userId: alice.userId })).imageMetadata).to.equal('strip_location');
  });
});
