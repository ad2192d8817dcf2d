import { expect } from 'chai';
import { createMemoryHangar, expectDomainError } from '../support/memory-hangar.js';

describe('GetSettings', () => {
  it('gives the service default upload size, {cdn_url} as public base and no custom domain for a new account', async () => {
    const world = createMemoryHangar();
    const alice = await world.registerConfirmed('alice@example.com');
    expect(await world.hangar.getSettings.execute({ userId: alice.userId })).to.deep.equal({
      publicUrlBase: 'http://cdn.test',
      customDomain: null,
      maxUploadSizeBytes: 1024,
      imageMetadata: 'strip_location',
    });
  });

  it('takes the default from the options', async () => {
    const world = createMemoryHangar({ defaultMaxUploadSizeBytes: 5000, publicContentUrl: 'https://files.example.org' });
    const alice = await world.registerConfirmed('alice@example.com');
    const settings = await world.hangar.getSettings.execute({ userId: alice.userId });
    expect(settings.maxUploadSizeBytes).to.equal(5000);
    expect(settings.publicUrlBase).to.equal('https://files.example.org');
  });

  it('refuses an account that no longer exists with UNAUTHORIZED', async () => {
    const { hangar } = createMemoryHangar();
    await expectDomainError(hangar.getSettings.execute({ userId: '00000000-0000-4000-8000-000000000000' }), 'UNAUTHORIZED');
  });
});
