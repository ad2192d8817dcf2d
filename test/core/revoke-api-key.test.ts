import { expect } from 'chai';
import type { ApiKeyRepository } from '../../core/index.js';
import { createMemoryHangar, expectDomainError } from '../support/memory-hangar.js';

/** Refuses ids that are not UUIDs, as a database with a uuid column does (Postgres: invalid input syntax). */
class StrictUuidApiKeyRepository implements ApiKeyRepository {
  deleteCalls = 0;
  constructor(private readonly inner: ApiKeyRepository) {}
  create(...args: Parameters<ApiKeyRepository['create']>) {
    return this.inner.create(...args);
  }
  createWithin(...args: Parameters<ApiKeyRepository['createWithin']>) {
    return this.inner.createWithin(...args);
  }
  findByHash(...args: Parameters<ApiKeyRepository['findByHash']>) {
    return this.inner.findByHash(...args);
  }
  findById(...args: Parameters<ApiKeyRepository['findById']>) {
    return this.inner.findById(...args);
  }
  list(...args: Parameters<ApiKeyRepository['list']>) {
    return this.inner.list(...args);
  }
  async delete(options: Parameters<ApiKeyRepository['delete']>[0]) {
    this.deleteCalls++;
    if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(options.id))
      throw new Error(`invalid input syntax for type uuid: "${options.id}"`);
    return this.inner.delete(options);
  }
  deleteAllForUser(...args: Parameters<ApiKeyRepository['deleteAllForUser']>) {
    return this.inner.deleteAllForUser(...args);
  }
  touch(...args: Parameters<ApiKeyRepository['touch']>) {
    return this.inner.touch(...args);
  }
}

async function withKeys() {
  const world = createMemoryHangar();
  const alice = await world.registerConfirmed('alice@example.com');
  const bob = await world.registerConfirmed('bob@example.com');
  const aliceKey = await world.hangar.createApiKey.execute({ userId: alice.userId, name: 'alice-key' });
  const bobKey = await world.hangar.createApiKey.execute({ userId: bob.userId, name: 'bob-key' });
  return { ...world, alice, bob, aliceKey, bobKey };
}

describe('RevokeApiKey', () => {
  it('revokes the key: it no longer authenticates and is gone from the repository', async () => {
    const { hangar, repos, alice, aliceKey } = await withKeys();
    await hangar.revokeApiKey.execute({ userId: alice.userId, id: aliceKey.apiKey.id });
    await expectDomainError(hangar.authenticate.execute({ apiKey: aliceKey.key }), 'UNAUTHORIZED');
    expect(await repos.apiKeys.findByHash(aliceKey.apiKey.keyHash)).to.equal(undefined);
  });

  it('refuses another account’s key with API_KEY_NOT_FOUND and leaves it working', async () => {
    const { hangar, alice, bob, bobKey } = await withKeys();
    await expectDomainError(hangar.revokeApiKey.execute({ userId: alice.userId, id: bobKey.apiKey.id }), 'API_KEY_NOT_FOUND');
    expect(await hangar.authenticate.execute({ apiKey: bobKey.key })).to.include({ userId: bob.userId });
  });

  it('refuses an id that is not a UUID with API_KEY_NOT_FOUND', async () => {
    const { hangar, alice } = await withKeys();
    for (const id of ['not-a-uuid', '', '1', "' OR 1=1 --"]) {
      await expectDomainError(hangar.revokeApiKey.execute({ userId: alice.userId, id }), 'API_KEY_NOT_FOUND');
    }
  });

  it('answers a non-UUID id itself, without asking the repository (a uuid column would fail on it)', async () => {
    let apiKeys!: StrictUuidApiKeyRepository;
    const world = createMemoryHangar({}, (ports) => ({ apiKeys: (apiKeys = new StrictUuidApiKeyRepository(ports.apiKeys)) }));
    const alice = await world.registerConfirmed('alice@example.com');
    await expectDomainError(world.hangar.revokeApiKey.execute({ userId: alice.userId, id: 'not-a-uuid' }), 'API_KEY_NOT_FOUND');
    expect(apiKeys.deleteCalls).to.equal(0);
  });

  it('refuses an unknown UUID with API_KEY_NOT_FOUND', async () => {
    const { hangar, alice } = await withKeys();
    await expectDomainError(hangar.revokeApiKey.execute({ userId: alice.userId, id: '00000000-0000-4000-8000-000000000000' }), 'API_KEY_NOT_FOUND');
  });

  it('refuses a second revocation of the same key with API_KEY_NOT_FOUND', async () => {
    const { hangar, alice, aliceKey } = await withKeys();
    await hangar.revokeApiKey.execute({ userId: alice.userId, id: aliceKey.apiKey.id });
    await expectDomainError(hangar.revokeApiKey.execute({ userId: alice.userId, id: aliceKey.apiKey.id }), 'API_KEY_NOT_FOUND');
  });

  it('accepts the id in upper case', async () => {
    const { hangar, alice, aliceKey } = await withKeys();
    await hangar.revokeApiKey.execute({ userId: alice.userId, id: aliceKey.apiKey.id.toUpperCase() });
    await expectDomainError(hangar.authenticate.execute({ apiKey: aliceKey.key }), 'UNAUTHORIZED');
  });

  it('leaves the account’s other keys working', async () => {
    const { hangar, alice, aliceKey } = await withKeys();
    const other = await hangar.createApiKey.execute({ userId: alice.userId, name: 'other' });
    await hangar.revokeApiKey.execute({ userId: alice.userId, id: aliceKey.apiKey.id });
    await hangar.authenticate.execute({ apiKey: other.key });
  });
});
