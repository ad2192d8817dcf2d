import { expect } from 'chai';
import { type CustomDomain } from '../../core/index.js';
import { createDomainsWorld, until } from '../support/custom-domain-doubles.js';
import { createMemoryHangar, expectDomainError, gate } from '../support/memory-hangar.js';

const START = new Date('2025-03-01T12:00:00.000Z');

/**
 * Alice holds the verified files.example.com, Carol the pending pending.example.com, Bob none;
 * each has a public file, Alice also a private one.
 */
async function withDomains() {
  const world = createMemoryHangar();
  const { hangar, registerConfirmed, upload } = world;
  const [alice, bob, carol] = [
    await registerConfirmed('alice@example.com'),
    await registerConfirmed('bob@example.com'),
    await registerConfirmed('carol@example.com'),
  ];
  await hangar.updateSettings.execute({ userId: alice.userId, customDomain: 'files.example.com', refreshCustomDomain: true });
  await hangar.updateSettings.execute({ userId: carol.userId, customDomain: 'pending.example.com' });
  const files = {
    alicePublic: (await upload(alice.userId)).file.fileId,
    alicePrivate: (await upload(alice.userId, { isPublic: false })).file.fileId,
    bobPublic: (await upload(bob.userId)).file.fileId,
    carolPublic: (await upload(carol.userId)).file.fileId,
  };
  /** The file id served for `fileId` on `host`, or the DomainError code. */
  async function read(fileId: string, host?: string): Promise<string> {
    try {
      return (await hangar.readPublicFile.execute({ fileId, host })).file.fileId;
    } catch (error) {
      return (error as { code?: string }).code ?? String(error);
    }
  }
  return { ...world, alice, bob, carol, files, read };
}

describe('ReadPublicFile on custom hostnames', () => {
  for (const [what, host] of [
    ['without a host', undefined],
    ['on the content host', 'cdn.test'],
  ] as const) {
    it(`serves every account’s public files ${what}`, async () => {
      const { files, read } = await withDomains();
      expect(await read(files.alicePublic, host)).to.equal(files.alicePublic);
      expect(await read(files.bobPublic, host)).to.equal(files.bobPublic);
      expect(await read(files.carolPublic, host)).to.equal(files.carolPublic);
      expect(await read(files.alicePrivate, host)).to.equal('FILE_NOT_FOUND');
    });
  }

  it('serves nothing on a host that is neither the content server’s nor a registered custom hostname', async () => {
    const { files, read } = await withDomains();
    for (const file of [files.alicePublic, files.bobPublic, files.carolPublic]) {
      expect(await read(file, 'other.example.org')).to.equal('FILE_NOT_FOUND');
    }
  });

  it('serves only the owner’s public files on a verified custom hostname', async () => {
    const { files, read, hangar } = await withDomains();
    const served = await hangar.readPublicFile.execute({ fileId: files.alicePublic, host: 'files.example.com' });
    expect(served.file.fileId).to.equal(files.alicePublic);
    expect(await read(files.alicePrivate, 'files.example.com')).to.equal('FILE_NOT_FOUND');
  });

  it('answers 404 for another account’s file on a verified custom hostname', async () => {
    const { files, read } = await withDomains();
    expect(await read(files.bobPublic, 'files.example.com')).to.equal('FILE_NOT_FOUND');
    expect(await read(files.carolPublic, 'files.example.com')).to.equal('FILE_NOT_FOUND');
  });

  it('answers 404 on a pending (unverified) custom hostname, even for the owner’s public file', async () => {
    const { files, read } = await withDomains();
    expect(await read(files.carolPublic, 'pending.example.com')).to.equal('FILE_NOT_FOUND');
    expect(await read(files.alicePublic, 'pending.example.com')).to.equal('FILE_NOT_FOUND');
    expect(await read(files.bobPublic, 'pending.example.com')).to.equal('FILE_NOT_FOUND');
  });

  it('counts a read only when the file is served', async () => {
    const { files, hangar, alice, bob } = await withDomains();
    await expectDomainError(hangar.readPublicFile.execute({ fileId: files.bobPublic, host: 'files.example.com' }), 'FILE_NOT_FOUND');
    await hangar.readPublicFile.execute({ fileId: files.alicePublic, host: 'files.example.com' });
    await hangar.usageMeter.flush();
    expect((await hangar.getUsage.execute({ userId: bob.userId })).originReads).to.equal(0);
    expect((await hangar.getUsage.execute({ userId: alice.userId })).originReads).to.equal(1);
  });

  it('sees a hostname set, verified and removed through the settings at once (no stale cache)', async () => {
    const { hangar, files, read, bob } = await withDomains();
    // Looked up before Bob registers it: nobody holds it, so it is cached as unknown (and serves nothing).
    expect(await read(files.bobPublic, 'bob.example.com')).to.equal('FILE_NOT_FOUND');
    await hangar.updateSettings.execute({ userId: bob.userId, customDomain: 'bob.example.com' });
    expect(await read(files.bobPublic, 'bob.example.com'), 'pending now').to.equal('FILE_NOT_FOUND');
    await hangar.updateSettings.execute({ userId: bob.userId, refreshCustomDomain: true });
    expect(await read(files.bobPublic, 'bob.example.com'), 'verified now').to.equal(files.bobPublic);
    expect(await read(files.alicePublic, 'bob.example.com')).to.equal('FILE_NOT_FOUND');
    await hangar.updateSettings.execute({ userId: bob.userId, customDomain: null });
    expect(await read(files.bobPublic, 'bob.example.com'), 'unknown again').to.equal('FILE_NOT_FOUND');
  });

  it('stops serving the owner’s files on the old hostname at once when the hostname changes', async () => {
    const { hangar, files, read, alice } = await withDomains();
    expect(await read(files.alicePublic, 'files.example.com')).to.equal(files.alicePublic);
    await hangar.updateSettings.execute({ userId: alice.userId, customDomain: 'cdn.example.com', refreshCustomDomain: true });
    expect(await read(files.alicePublic, 'cdn.example.com')).to.equal(files.alicePublic);
    expect(await read(files.bobPublic, 'cdn.example.com')).to.equal('FILE_NOT_FOUND');
  });
});

/** A verified domain record, as if an earlier process (or another one) had stored it. */
function verifiedDomain(userId: string, hostname: string): CustomDomain {
  return {
    userId,
    hostname,
    providerId: `mock-${hostname}`,
    verificationStatus: 'active',
    sslStatus: 'active',
    dnsRecords: [{ type: 'CNAME', name: hostname, value: 'cdn.test', purpose: 'routing' }],
    errors: [],
    createdAt: START,
    updatedAt: START,
  };
}

describe('HostnameDirectory', () => {
  it('keeps a lookup until the change feed says that hostname changed, however long that takes', async () => {
    const { customDomains, directory, directoryDomains, store, clock, changes } = createDomainsWorld(START);
    const domain = await customDomains.set('alice', 'files.example.com');
    expect(await directory.lookup('files.example.com')).to.deep.equal(domain);
    await store.delete('alice'); // behind the directory's back, as another process would

    clock.advance(3_600_000);
    expect(await directory.lookup('files.example.com')).to.deep.equal(domain);
    changes.publish({ kind: 'hostname', hostname: 'other.example.com', accountId: 'bob' });
    expect(await directory.lookup('files.example.com')).to.deep.equal(domain);
    expect(directoryDomains.hostnameLookups).to.deep.equal(['files.example.com']);
    changes.publish({ kind: 'hostname', hostname: 'files.example.com', accountId: 'alice' });
    expect(await directory.lookup('files.example.com')).to.equal(undefined);
    expect(directoryDomains.hostnameLookups).to.deep.equal(['files.example.com', 'files.example.com']);
  });

  it('caches an unknown hostname too, until the feed delivers everything (changes missed)', async () => {
    const { directory, store, changes } = createDomainsWorld(START);
    expect(await directory.lookup('files.example.com')).to.equal(undefined);
    const domain = verifiedDomain('alice', 'files.example.com');
    await store.save(domain); // behind its back
    expect(await directory.lookup('files.example.com')).to.equal(undefined);
    changes.publish({ kind: 'everything' });
    expect(await directory.lookup('files.example.com')).to.deep.equal(domain);
  });

  it('does not keep an answer read while the feed announced a change of that hostname from another process', async () => {
    const { directory, directoryDomains, store, changes } = createDomainsWorld(START);
    await store.save(verifiedDomain('alice', 'files.example.com'));
    const slowRead = gate();
    directoryDomains.holdNextFindByHostname(slowRead.promise);
    const inFlight = directory.lookup('files.example.com');
    await until(() => directoryDomains.hostnameLookups.length === 1);
    await store.delete('alice');
    changes.publish({ kind: 'hostname', hostname: 'files.example.com', accountId: 'alice' });
    slowRead.open();
    await inFlight; // this one may answer what it read before the change
    expect(await directory.lookup('files.example.com')).to.equal(undefined);
  });

  it('re-reads a hostname at once after invalidate()', async () => {
    const { directory, directoryDomains, store } = createDomainsWorld(START);
    const domain = verifiedDomain('alice', 'files.example.com');
    expect(await directory.lookup('files.example.com')).to.equal(undefined);
    await store.save(domain);
    directory.invalidate('files.example.com');
    expect(await directory.lookup('files.example.com')).to.deep.equal(domain);
    expect(directoryDomains.hostnameLookups).to.have.length(2);
  });

  it('sees changes through CustomDomains at once: set invalidates the new hostname, a change both, refresh and remove theirs', async () => {
    const { customDomains, directory } = createDomainsWorld(START);
    expect(await directory.lookup('old.example.com')).to.equal(undefined);
    const old = await customDomains.set('alice', 'old.example.com');
    expect(await directory.lookup('old.example.com')).to.deep.equal(old);

    expect(await directory.lookup('new.example.com')).to.equal(undefined);
    const replaced = await customDomains.set('alice', 'new.example.com');
    expect(await directory.lookup('new.example.com'), 'new hostname').to.deep.equal(replaced);
    expect(await directory.lookup('old.example.com'), 'old hostname').to.equal(undefined);

    const refreshed = await customDomains.refresh('alice');
    expect(refreshed.verificationStatus).to.equal('active');
    expect(await directory.lookup('new.example.com'), 'refreshed').to.deep.equal(refreshed);

    await customDomains.remove('alice');
    expect(await directory.lookup('new.example.com'), 'removed').to.equal(undefined);
  });

  it('keeps serving the cached entry when a change fails (nothing changed)', async () => {
    const { customDomains, directory, directoryDomains, edge } = createDomainsWorld(START);
    const domain = await customDomains.set('alice', 'files.example.com');
    expect(await directory.lookup('files.example.com')).to.deep.equal(domain);
    edge.failNext('delete');
    await expectDomainError(customDomains.remove('alice'), 'EDGE_PROVIDER_ERROR');
    expect(await directory.lookup('files.example.com')).to.deep.equal(domain);
    expect(directoryDomains.hostnameLookups).to.have.length(1);
  });

  it('does not keep a stale answer that was read before a change made while the lookup was on its way', async () => {
    const { customDomains, directory, directoryDomains } = createDomainsWorld(START);
    const slowRead = gate();
    directoryDomains.holdNextFindByHostname(slowRead.promise);
    const inFlight = directory.lookup('files.example.com');
    await until(() => directoryDomains.hostnameLookups.length === 1);
    const domain = await customDomains.set('alice', 'files.example.com'); // invalidates the hostname
    slowRead.open();
    await inFlight; // this one may answer what it read before the change

    expect(await directory.lookup('files.example.com'), 'a lookup after the change').to.deep.equal(domain);
  });
});
