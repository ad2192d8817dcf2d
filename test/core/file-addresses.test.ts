import { expect } from 'chai';
import { MemoryCustomDomainRepository } from '../../adapters/persistence/memory/memory-custom-domain-repository.js';
import type { CustomDomain } from '../../core/domains/custom-domain.js';
import { FileAddresses, KEPT_FILE_ADDRESSES } from '../../core/files/file-view.js';
import type { StoredFile } from '../../core/files/stored-file.js';

const CDN = 'http://cdn.test';

function storedFile(fileId: string, overrides: Partial<StoredFile> = {}): StoredFile {
  return {
    id: `id-${fileId}`,
    userId: 'alice',
    fileId,
    name: `${fileId}.png`,
    contentType: 'image/png',
    size: 10,
    sha256: 'a'.repeat(64),
    isPublic: true,
    createdAt: new Date('2026-01-01T00:00:00Z'),
    blobKey: `alice/${fileId}`,
    expiresAt: null,
    viewCount: 0,
    downloadCount: 0,
    ...overrides,
  };
}

function domain(verified: boolean): CustomDomain {
  const status = verified ? 'active' : 'pending';
  const at = new Date('2026-01-01T00:00:00Z');
  return {
    userId: 'alice',
    hostname: 'files.alice.example',
    providerId: 'p1',
    verificationStatus: status,
    sslStatus: status,
    dnsRecords: [],
    errors: [],
    createdAt: at,
    updatedAt: at,
  };
}

describe('FileAddresses', () => {
  it('gives a public file its five addresses on {cdn_url}, and a private one none', async () => {
    const addresses = new FileAddresses({ domains: new MemoryCustomDomainRepository(), options: { publicContentUrl: CDN } });
    const [open, closed] = await addresses.views('alice', [storedFile('Ab3dE6gH1k'), storedFile('Zz9yX8wV7u', { isPublic: false })]);
    expect(open.urls).to.deep.equal({
      publicUrl: `${CDN}/m/Ab3dE6gH1k`,
      publicDownloadUrl: `${CDN}/d/Ab3dE6gH1k`,
      defaultUrl: `${CDN}/m/Ab3dE6gH1k`,
      defaultDownloadUrl: `${CDN}/d/Ab3dE6gH1k`,
      viewUrl: `${CDN}/v/Ab3dE6gH1k`,
    });
    expect(closed.urls).to.deep.equal({ publicUrl: null, publicDownloadUrl: null, defaultUrl: null, defaultDownloadUrl: null, viewUrl: null });
  });

  it('hands the same addresses out again, frozen, so that no caller can change another one’s', async () => {
    const addresses = new FileAddresses({ domains: new MemoryCustomDomainRepository(), options: { publicContentUrl: CDN } });
    const [first] = await addresses.views('alice', [storedFile('Ab3dE6gH1k')]);
    const [again] = await addresses.views('alice', [storedFile('Ab3dE6gH1k')]);
    expect(again.urls).to.equal(first.urls);
    expect(Object.isFrozen(first.urls)).to.equal(true);
    expect(() => {
      (first.urls as { publicUrl: string | null }).publicUrl = 'https://elsewhere.example/m/Ab3dE6gH1k';
    }).to.throw(TypeError);
    expect(again.urls.publicUrl).to.equal(`${CDN}/m/Ab3dE6gH1k`);
  });

  it('moves the public addresses to the custom domain once it is verified, and back when it goes', async () => {
    const domains = new MemoryCustomDomainRepository();
    const addresses = new FileAddresses({ domains, options: { publicContentUrl: CDN } });
    const file = storedFile('Ab3dE6gH1k');
    expect((await addresses.views('alice', [file]))[0].urls.publicUrl).to.equal(`${CDN}/m/Ab3dE6gH1k`);

    await domains.save(domain(false));
    expect((await addresses.views('alice', [file]))[0].urls.publicUrl, 'pending: still on the CDN').to.equal(`${CDN}/m/Ab3dE6gH1k`);

    await domains.save(domain(true));
    const [verified] = await addresses.views('alice', [file]);
    expect(verified.urls).to.deep.equal({
      publicUrl: 'https://files.alice.example/m/Ab3dE6gH1k',
      publicDownloadUrl: 'https://files.alice.example/d/Ab3dE6gH1k',
      defaultUrl: `${CDN}/m/Ab3dE6gH1k`,
      defaultDownloadUrl: `${CDN}/d/Ab3dE6gH1k`,
      viewUrl: 'https://files.alice.example/v/Ab3dE6gH1k',
    });

    await domains.delete('alice');
    expect((await addresses.views('alice', [file]))[0].urls.publicUrl).to.equal(`${CDN}/m/Ab3dE6gH1k`);
  });

  it('follows a file made private and public again', async () => {
    const addresses = new FileAddresses({ domains: new MemoryCustomDomainRepository(), options: { publicContentUrl: CDN } });
    const file = storedFile('Ab3dE6gH1k');
    await addresses.views('alice', [file]);
    expect((await addresses.views('alice', [{ ...file, isPublic: false }]))[0].urls.publicUrl).to.equal(null);
    expect((await addresses.views('alice', [file]))[0].urls.publicUrl).to.equal(`${CDN}/m/Ab3dE6gH1k`);
  });

  it('stays exact for more files than it keeps', async () => {
    const addresses = new FileAddresses({ domains: new MemoryCustomDomainRepository(), options: { publicContentUrl: CDN } });
    const files = Array.from({ length: KEPT_FILE_ADDRESSES + 10 }, (_, i) => storedFile(`f${String(i).padStart(9, '0')}`));
    for (const round of [1, 2]) {
      const views = await addresses.views('alice', files);
      for (const [i, view] of views.entries()) expect(view.urls.publicUrl, `round ${round}, file ${i}`).to.equal(`${CDN}/m/${files[i].fileId}`);
    }
  });
});
