import { expect } from 'chai';
import type { HangarOptions } from '../../core/index.js';
import { RecordingEdgeProvider, ScriptedDomainRepository } from '../support/custom-domain-doubles.js';
import { createMemoryHangar, expectDomainError } from '../support/memory-hangar.js';

/** The core on memory adapters, with the provider and the domain repository wrapped in doubles. */
async function withAlice(overrides: Partial<HangarOptions> = {}) {
  const world = createMemoryHangar(overrides, (defaults) => ({
    edge: new RecordingEdgeProvider(defaults.edge),
    domains: new ScriptedDomainRepository(defaults.domains),
  }));
  const edge = world.ports.edge as RecordingEdgeProvider;
  const domains = world.ports.domains as ScriptedDomainRepository;
  const alice = await world.registerConfirmed('alice@example.com');
  return { ...world, edge, domains, alice };
}

describe('UpdateSettings with a custom domain', () => {
  it('sets custom_domain and answers the DNS records to create, with the public base still on the content URL', async () => {
    const { hangar, edge, repos, alice } = await withAlice();
    const settings = await hangar.updateSettings.execute({ userId: alice.userId, customDomain: 'Files.Example.com' });

    expect(edge.argsOf('create')).to.deep.equal(['files.example.com']);
    expect(settings.publicUrlBase).to.equal('http://cdn.test');
    expect(settings.customDomain?.hostname).to.equal('files.example.com');
    expect(settings.customDomain?.verificationStatus).to.equal('pending');
    expect(settings.customDomain?.sslStatus).to.equal('initializing');
    expect(settings.customDomain?.dnsRecords.map((r) => [r.type, r.name, r.purpose])).to.deep.equal([
      ['CNAME', 'files.example.com', 'routing'],
      ['TXT', '_cf-custom-hostname.files.example.com', 'ownership'],
      ['TXT', '_acme-challenge.files.example.com', 'ssl_validation'],
    ]);
    expect(settings.customDomain?.dnsRecords[0].value).to.equal('cdn.test');
    expect(await repos.domains.findByUser(alice.userId)).to.deep.equal(settings.customDomain);
    expect(await hangar.getSettings.execute({ userId: alice.userId })).to.deep.equal(settings);
  });

  it('changes neither the size nor the domain when max_upload_size_bytes is invalid in the same call', async () => {
    const { hangar, edge, repos, alice } = await withAlice();
    await hangar.updateSettings.execute({ userId: alice.userId, maxUploadSizeBytes: 2048 });
    await expectDomainError(
      hangar.updateSettings.execute({ userId: alice.userId, maxUploadSizeBytes: 0, customDomain: 'files.example.com' }),
      'INVALID_SETTINGS',
    );
    expect(edge.calls).to.deep.equal([]);
    expect(await repos.domains.findByUser(alice.userId)).to.equal(undefined);
    expect((await repos.users.findById(alice.userId))?.maxUploadSizeBytes).to.equal(2048);
  });

  it('changes neither the size nor the domain when the provider fails (502) with a valid size in the same call', async () => {
    const { hangar, edge, repos, alice } = await withAlice();
    await hangar.updateSettings.execute({ userId: alice.userId, maxUploadSizeBytes: 2048 });
    await expectDomainError(
      hangar.updateSettings.execute({ userId: alice.userId, maxUploadSizeBytes: 4096, customDomain: 'edge-error.example.com' }),
      'EDGE_PROVIDER_ERROR',
    );
    edge.failNext('create');
    await expectDomainError(
      hangar.updateSettings.execute({ userId: alice.userId, maxUploadSizeBytes: 4096, customDomain: 'files.example.com' }),
      'EDGE_PROVIDER_ERROR',
    );
    expect(edge.argsOf('create')).to.deep.equal(['edge-error.example.com', 'files.example.com']);
    expect(await repos.domains.findByUser(alice.userId)).to.equal(undefined);
    expect((await repos.users.findById(alice.userId))?.maxUploadSizeBytes).to.equal(2048);
  });

  it('changes neither the size nor the domain when the hostname is invalid (INVALID_HOSTNAME)', async () => {
    const { hangar, edge, repos, alice } = await withAlice();
    await expectDomainError(
      hangar.updateSettings.execute({ userId: alice.userId, maxUploadSizeBytes: 4096, customDomain: 'https://files.example.com' }),
      'INVALID_HOSTNAME',
    );
    expect(edge.calls).to.deep.equal([]);
    expect(await repos.domains.findByUser(alice.userId)).to.equal(undefined);
    expect((await repos.users.findById(alice.userId))?.maxUploadSizeBytes).to.equal(null);
  });

  it('keeps the domain and the size when removing the domain fails at the provider', async () => {
    const { hangar, edge, repos, alice } = await withAlice();
    const { customDomain } = await hangar.updateSettings.execute({ userId: alice.userId, customDomain: 'files.example.com' });
    edge.failNext('delete');
    await expectDomainError(hangar.updateSettings.execute({ userId: alice.userId, maxUploadSizeBytes: 4096, customDomain: null }), 'EDGE_PROVIDER_ERROR');
    expect(await repos.domains.findByUser(alice.userId)).to.deep.equal(customDomain);
    expect((await repos.users.findById(alice.userId))?.maxUploadSizeBytes).to.equal(null);
  });

  it('refreshes the new hostname when refresh_custom_domain comes with a new custom_domain', async () => {
    const { hangar, edge, repos, alice } = await withAlice();
    const old = (await hangar.updateSettings.execute({ userId: alice.userId, customDomain: 'old.example.com' })).customDomain!;
    edge.reset();

    const settings = await hangar.updateSettings.execute({ userId: alice.userId, customDomain: 'new.example.com', refreshCustomDomain: true });

    const created = edge.created[0].hostname;
    expect(created.hostname).to.equal('new.example.com');
    expect(edge.calls).to.deep.equal([
      { method: 'create', arg: 'new.example.com' },
      { method: 'delete', arg: old.providerId },
      { method: 'refresh', arg: created.providerId },
    ]);
    expect(settings.customDomain?.hostname).to.equal('new.example.com');
    expect(settings.customDomain?.verificationStatus).to.equal('active');
    expect(settings.customDomain?.sslStatus).to.equal('active');
    expect(settings.publicUrlBase).to.equal('https://new.example.com');
    expect(await repos.domains.findByUser(alice.userId)).to.deep.equal(settings.customDomain);
  });

  it('refreshes the current hostname with refresh_custom_domain alone, and answers NO_CUSTOM_DOMAIN (size unchanged) without one', async () => {
    const { hangar, edge, repos, alice } = await withAlice();
    await expectDomainError(hangar.updateSettings.execute({ userId: alice.userId, maxUploadSizeBytes: 4096, refreshCustomDomain: true }), 'NO_CUSTOM_DOMAIN');
    expect((await repos.users.findById(alice.userId))?.maxUploadSizeBytes).to.equal(null);
    expect(edge.calls).to.deep.equal([]);

    await hangar.updateSettings.execute({ userId: alice.userId, customDomain: 'files.example.com' });
    const settings = await hangar.updateSettings.execute({ userId: alice.userId, refreshCustomDomain: true });
    expect(settings.customDomain?.verificationStatus).to.equal('active');
    expect((await repos.domains.findByUser(alice.userId))?.sslStatus).to.equal('active');
  });

  it('removes the domain at the provider and here with custom_domain null', async () => {
    const { hangar, edge, repos, alice } = await withAlice();
    const { customDomain } = await hangar.updateSettings.execute({ userId: alice.userId, customDomain: 'files.example.com', refreshCustomDomain: true });
    const settings = await hangar.updateSettings.execute({ userId: alice.userId, customDomain: null });
    expect(edge.argsOf('delete')).to.deep.equal([customDomain!.providerId]);
    expect(settings.customDomain).to.equal(null);
    expect(settings.publicUrlBase).to.equal('http://cdn.test');
    expect(await repos.domains.findByUser(alice.userId)).to.equal(undefined);
    expect(await repos.domains.findByHostname('files.example.com')).to.equal(undefined);
  });

  it('answers HOSTNAME_TAKEN for another account’s hostname and leaves both accounts as they were', async () => {
    const world = await withAlice();
    const bob = await world.registerConfirmed('bob@example.com');
    const bobs = (await world.hangar.updateSettings.execute({ userId: bob.userId, customDomain: 'files.example.com' })).customDomain;
    world.edge.reset();
    await expectDomainError(world.hangar.updateSettings.execute({ userId: world.alice.userId, customDomain: 'files.example.com' }), 'HOSTNAME_TAKEN');
    expect(world.edge.calls).to.deep.equal([]);
    expect(await world.repos.domains.findByUser(world.alice.userId)).to.equal(undefined);
    expect(await world.repos.domains.findByHostname('files.example.com')).to.deep.equal(bobs);
  });

  it('refuses the service’s own hosts, taken from the configured URLs', async () => {
    // The API URL stays http://api.test: the harness reads confirmation links on it.
    const { hangar, edge, alice } = await withAlice({ publicContentUrl: 'https://content.hangar.example:8443/' });
    for (const hostname of ['api.test', 'Content.Hangar.Example.']) {
      await expectDomainError(hangar.updateSettings.execute({ userId: alice.userId, customDomain: hostname }), 'INVALID_HOSTNAME');
    }
    expect(edge.calls).to.deep.equal([]);
    expect((await hangar.updateSettings.execute({ userId: alice.userId, customDomain: 'files.hangar.example' })).customDomain?.hostname).to.equal(
      'files.hangar.example',
    );
  });
});

describe('Public addresses with a custom domain', () => {
  it('keeps public_url_base on the content URL while pending, and uses https://<hostname> once verified', async () => {
    const { hangar, alice } = await withAlice();
    await hangar.updateSettings.execute({ userId: alice.userId, customDomain: 'files.example.com' });
    expect((await hangar.getSettings.execute({ userId: alice.userId })).publicUrlBase).to.equal('http://cdn.test');
    await hangar.updateSettings.execute({ userId: alice.userId, refreshCustomDomain: true });
    expect((await hangar.getSettings.execute({ userId: alice.userId })).publicUrlBase).to.equal('https://files.example.com');
  });

  it('gives files the custom address in public_url / public_download_url only, once verified, in upload, list and get', async () => {
    const { hangar, alice, upload } = await withAlice();
    const before = (await upload(alice.userId)).file;
    await hangar.updateSettings.execute({ userId: alice.userId, customDomain: 'files.example.com' });
    const pending = await hangar.getFile.execute({ userId: alice.userId, fileId: before.fileId });
    expect(pending.urls.publicUrl).to.equal(`http://cdn.test/m/${before.fileId}`);

    await hangar.updateSettings.execute({ userId: alice.userId, refreshCustomDomain: true });
    const uploaded = await upload(alice.userId);
    const id = uploaded.file.fileId;
    const custom = {
      publicUrl: `https://files.example.com/m/${id}`,
      publicDownloadUrl: `https://files.example.com/d/${id}`,
      defaultUrl: `http://cdn.test/m/${id}`,
      defaultDownloadUrl: `http://cdn.test/d/${id}`,
      viewUrl: `https://files.example.com/v/${id}`,
    };
    expect(uploaded.urls).to.deep.equal(custom);
    expect((await hangar.getFile.execute({ userId: alice.userId, fileId: id })).urls).to.deep.equal(custom);
    const listed = await hangar.listFiles.execute({ userId: alice.userId, filter: {}, page: 1, limit: 30 });
    expect(listed.items.find((v) => v.file.fileId === id)?.urls).to.deep.equal(custom);
    expect(listed.items.find((v) => v.file.fileId === before.fileId)?.urls).to.deep.equal({
      publicUrl: `https://files.example.com/m/${before.fileId}`,
      publicDownloadUrl: `https://files.example.com/d/${before.fileId}`,
      defaultUrl: `http://cdn.test/m/${before.fileId}`,
      defaultDownloadUrl: `http://cdn.test/d/${before.fileId}`,
      viewUrl: `https://files.example.com/v/${before.fileId}`,
    });
  });

  it('leaves every address of a private file null on a verified custom domain', async () => {
    const { hangar, alice, upload } = await withAlice();
    await hangar.updateSettings.execute({ userId: alice.userId, customDomain: 'files.example.com', refreshCustomDomain: true });
    const hidden = await upload(alice.userId, { isPublic: false });
    const nulls = { publicUrl: null, publicDownloadUrl: null, defaultUrl: null, defaultDownloadUrl: null, viewUrl: null };
    expect(hidden.urls).to.deep.equal(nulls);
    expect((await hangar.getFile.execute({ userId: alice.userId, fileId: hidden.file.fileId })).urls).to.deep.equal(nulls);
  });

  it('does not give other accounts’ files the custom address', async () => {
    const world = await withAlice();
    const bob = await world.registerConfirmed('bob@example.com');
    await world.hangar.updateSettings.execute({ userId: world.alice.userId, customDomain: 'files.example.com', refreshCustomDomain: true });
    const bobs = await world.upload(bob.userId);
    expect(bobs.urls.publicUrl).to.equal(`http://cdn.test/m/${bobs.file.fileId}`);
    expect((await world.hangar.getSettings.execute({ userId: bob.userId })).publicUrlBase).to.equal('http://cdn.test');
  });

  it('goes back to the content URL after the domain is removed', async () => {
    const { hangar, alice, upload } = await withAlice();
    await hangar.updateSettings.execute({ userId: alice.userId, customDomain: 'files.example.com', refreshCustomDomain: true });
    const { file } = await upload(alice.userId);
    await hangar.updateSettings.execute({ userId: alice.userId, customDomain: null });
    expect((await hangar.getSettings.execute({ userId: alice.userId })).publicUrlBase).to.equal('http://cdn.test');
    expect((await hangar.getFile.execute({ userId: alice.userId, fileId: file.fileId })).urls.publicUrl).to.equal(`http://cdn.test/m/${file.fileId}`);
    expect((await upload(alice.userId)).urls.publicDownloadUrl).to.match(/^http:\/\/cdn\.test\/d\//);
  });
});
