import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { createMemoryHangar, expectDomainError, START, UUID_PATTERN } from '../support/memory-hangar.js';

async function withAlice() {
  const world = createMemoryHangar();
  const alice = await world.registerConfirmed('alice@example.com');
  return { ...world, alice };
}

describe('CreateApiKey', () => {
  it('creates a key of the form hgr_ + 32 base62 characters, returned once with its record', async () => {
    const { hangar, alice, clock } = await withAlice();
    clock.advance(1234);
    const { apiKey, key } = await hangar.createApiKey.execute({ userId: alice.userId, name: 'deploy script' });
    expect(key).to.match(/^hgr_[0-9A-Za-z]{32}$/);
    expect(apiKey.id).to.match(UUID_PATTERN);
    expect(apiKey.userId).to.equal(alice.userId);
    expect(apiKey.name).to.equal('deploy script');
    expect(apiKey.createdAt.getTime()).to.equal(START.getTime() + 1234);
    expect(apiKey.lastUsedAt).to.equal(null);
  });

  it('uses the first 12 characters of the key as key_prefix', async () => {
    const { hangar, alice } = await withAlice();
    const { apiKey, key } = await hangar.createApiKey.execute({ userId: alice.userId });
    expect(apiKey.keyPrefix).to.have.length(12);
    expect(apiKey.keyPrefix).to.equal(key.slice(0, 12));
    expect(apiKey.keyPrefix.startsWith('hgr_')).to.equal(true);
  });

  it('stores only the SHA-256 of the key: the stored record holds no plaintext', async () => {
    const { hangar, repos, alice } = await withAlice();
    const { key } = await hangar.createApiKey.execute({ userId: alice.userId });
    const digest = createHash('sha256').update(key, 'utf8').digest('hex');
    const stored = await repos.apiKeys.findByHash(digest);
    expect(stored, 'the record is found by the SHA-256 of the key').to.not.equal(undefined);
    expect(stored!.keyHash).to.equal(digest);
    const serialised = JSON.stringify(stored);
    expect(serialised).to.not.include(key);
    expect(serialised).to.not.include(key.slice(12)); // the secret part, beyond the prefix
    const listed = await repos.apiKeys.list({ userId: alice.userId, window: { offset: 0, limit: 10 } });
    expect(JSON.stringify(listed)).to.not.include(key.slice(12));
  });

  it('names a key without a name "API key", and trims names', async () => {
    const { hangar, alice } = await withAlice();
    expect((await hangar.createApiKey.execute({ userId: alice.userId })).apiKey.name).to.equal('API key');
    expect((await hangar.createApiKey.execute({ userId: alice.userId, name: '   ' })).apiKey.name).to.equal('API key');
    expect((await hangar.createApiKey.execute({ userId: alice.userId, name: '  CI  ' })).apiKey.name).to.equal('CI');
  });

  it('creates a different key each time', async () => {
    const { hangar, alice } = await withAlice();
    const a = await hangar.createApiKey.execute({ userId: alice.userId });
    const b = await hangar.createApiKey.execute({ userId: alice.userId });
    expect(a.key).to.not.equal(b.key);
    expect(a.apiKey.id).to.not.equal(b.apiKey.id);
  });

  it('creates a key that authenticates as its owner', async () => {
    const { hangar, alice } = await withAlice();
    const { apiKey, key } = await hangar.createApiKey.execute({ userId: alice.userId });
    expect(await hangar.authenticate.execute({ apiKey: key })).to.deep.equal({
      kind: 'api_key',
      userId: alice.userId,
      apiKeyId: apiKey.id,
      scopes: ['files:read', 'files:write', 'files:delete', 'account:read', 'webhooks:manage'],
    });
  });

  it('refuses a name longer than 100 characters with VALIDATION_FAILED and creates no key', async () => {
    const { hangar, alice } = await withAlice();
    await expectDomainError(hangar.createApiKey.execute({ userId: alice.userId, name: 'k'.repeat(101) }), 'VALIDATION_FAILED');
    expect((await hangar.listApiKeys.execute({ userId: alice.userId, page: 1, limit: 30 })).total).to.equal(0);
    const { apiKey } = await hangar.createApiKey.execute({ userId: alice.userId, name: 'k'.repeat(100) });
    expect(apiKey.name).to.have.length(100);
  });
});
