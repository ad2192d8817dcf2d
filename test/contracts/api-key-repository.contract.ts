import { expect } from 'chai';
import type { UserRepository } from '../../core/accounts/user-repository.js';
import type { ApiKey } from '../../core/api-keys/api-key.js';
import type { ApiKeyRepository } from '../../core/api-keys/api-key-repository.js';
import { aHash, anApiKey, at, givenUser } from './persistence-fixtures.js';

/** What a {@link describeApiKeyRepositoryContract} factory returns: repositories over one empty store. */
export interface ApiKeyRepositorySubject {
  subject: ApiKeyRepository;
  /** Creates the users that own keys (a database checks the foreign key). */
  users: UserRepository;
  close?: () => Promise<void>;
}

const MINUTE = 60_000;

/** The behaviour every {@link ApiKeyRepository} adapter must have; `makeSubject` is called once per test. */
export function describeApiKeyRepositoryContract(name: string, makeSubject: () => Promise<ApiKeyRepositorySubject>): void {
  describe(`ApiKeyRepository contract: ${name}`, () => {
    let apiKeys: ApiKeyRepository;
    let users: UserRepository;
    let close: (() => Promise<void>) | undefined;
    let userId: string;

    beforeEach(async () => {
      ({ subject: apiKeys, users, close } = await makeSubject());
      userId = (await givenUser(users)).id;
    });
    afterEach(async () => {
      await close?.();
    });

    async function givenKeys(owner: string, keys: Partial<ApiKey>[]): Promise<ApiKey[]> {
      const created = keys.map((overrides) => anApiKey(owner, overrides));
      for (const key of created) await apiKeys.create(key);
      return created;
    }

    it('stores a key and finds it by the hash of its secret, every field intact', async () => {
      const key = anApiKey(userId, { name: 'CI upload', keyPrefix: 'hgr_AbCdEfGh', createdAt: at(5), lastUsedAt: at(7) });
      await apiKeys.create(key);
      expect(await apiKeys.findByHash(key.keyHash)).to.deep.equal(key);
    });

    it("keeps a key's scopes and expiry, found by hash and listed", async () => {
      const key = anApiKey(userId, { scopes: ['files:read', 'account:read'], expiresAt: at(90_000) });
      await apiKeys.create(key);
      expect(await apiKeys.findByHash(key.keyHash)).to.deep.include({ scopes: ['files:read', 'account:read'], expiresAt: at(90_000) });
      const listed = await apiKeys.list({ userId, window: { offset: 0, limit: 10 } });
      expect(listed.items[0]).to.deep.include({ scopes: ['files:read', 'account:read'], expiresAt: at(90_000) });
    });

    it('finds a key by id, whoever owns it, until it is deleted', async () => {
      const key = anApiKey(userId, { expiresAt: at(90_000) });
      await apiKeys.create(key);
      expect(await apiKeys.findById(key.id)).to.deep.equal(key);
      expect(await apiKeys.findById('00000000-0000-4000-8000-0000000000ff')).to.equal(undefined);
      await apiKeys.delete({ userId, id: key.id });
      expect(await apiKeys.findById(key.id)).to.equal(undefined);
    });

    it('creates within a cap of live keys per user: expired keys and other users’ keys do not count', async () => {
      const other = (await givenUser(users)).id;
      await givenKeys(other, [{}, {}, {}]);
      await givenKeys(userId, [{ expiresAt: at(1000) }]);
      const now = at(2000);
      expect(await apiKeys.createWithin(anApiKey(userId), { maxPerUser: 2, now })).to.equal(true);
      expect(await apiKeys.createWithin(anApiKey(userId, { expiresAt: at(9000) }), { maxPerUser: 2, now })).to.equal(true);
      const refused = anApiKey(userId);
      expect(await apiKeys.createWithin(refused, { maxPerUser: 2, now })).to.equal(false);
      expect(await apiKeys.findByHash(refused.keyHash), 'nothing stored').to.equal(undefined);
      expect((await apiKeys.list({ userId, window: { offset: 0, limit: 10 } })).total).to.equal(3);
    });

    it('lets exactly as many of 12 simultaneous creations through as the cap has room for', async () => {
      await givenKeys(userId, [{}, {}]);
      const results = await Promise.all(Array.from({ length: 12 }, () => apiKeys.createWithin(anApiKey(userId), { maxPerUser: 5, now: at(0) })));
      expect(results.filter(Boolean)).to.have.length(3);
      expect((await apiKeys.list({ userId, window: { offset: 0, limit: 20 } })).total).to.equal(5);
    });

    it('answers undefined for an unknown hash', async () => {
      await givenKeys(userId, [{}]);
      expect(await apiKeys.findByHash(aHash())).to.equal(undefined);
    });

    it('lists keys newest first, equal times by id descending, with the total', async () => {
      const [a, b, c, d] = await givenKeys(userId, [
        { id: '00000000-0000-4000-8000-00000000000a', createdAt: at(1000) },
        { id: '00000000-0000-4000-8000-00000000000c', createdAt: at(2000) },
        { id: '00000000-0000-4000-8000-00000000000b', createdAt: at(2000) },
        { id: '00000000-0000-4000-8000-000000000001', createdAt: at(3000) },
      ]);
      const page = await apiKeys.list({ userId, window: { offset: 0, limit: 10 } });
      expect(page.total).to.equal(4);
      expect(page.items).to.deep.equal([d, b, c, a]);
    });

    it('pages through the list: the window picks the items, the total counts them all', async () => {
      const keys = await givenKeys(
        userId,
        [0, 1, 2, 3, 4].map((i) => ({ createdAt: at(i * 1000) })),
      );
      const newestFirst = [...keys].reverse().map((key) => key.id);
      const second = await apiKeys.list({ userId, window: { offset: 2, limit: 2 } });
      expect(second.total).to.equal(5);
      expect(second.items.map((key) => key.id)).to.deep.equal(newestFirst.slice(2, 4));
      const beyond = await apiKeys.list({ userId, window: { offset: 10, limit: 2 } });
      expect(beyond).to.deep.equal({ items: [], total: 5 });
    });

    it("never lists another user's keys", async () => {
      const otherUserId = (await givenUser(users)).id;
      const [mine] = await givenKeys(userId, [{}]);
      await givenKeys(otherUserId, [{}, {}]);
      expect(await apiKeys.list({ userId, window: { offset: 0, limit: 10 } })).to.deep.equal({ items: [mine], total: 1 });
    });

    it('deletes a key once, after which its hash is unknown', async () => {
      const [key] = await givenKeys(userId, [{}]);
      expect(await apiKeys.delete({ userId, id: key.id })).to.equal(true);
      expect(await apiKeys.findByHash(key.keyHash)).to.equal(undefined);
      expect(await apiKeys.delete({ userId, id: key.id })).to.equal(false);
    });

    it("refuses to delete another user's key, which keeps working", async () => {
      const otherUserId = (await givenUser(users)).id;
      const [theirs] = await givenKeys(otherUserId, [{}]);
      expect(await apiKeys.delete({ userId, id: theirs.id })).to.equal(false);
      expect(await apiKeys.findByHash(theirs.keyHash)).to.deep.equal(theirs);
    });

    it("deletes every key of one user, and only that user's", async () => {
      const otherUserId = (await givenUser(users)).id;
      const mine = await givenKeys(userId, [{}, {}]);
      const [theirs] = await givenKeys(otherUserId, [{}]);
      expect(await apiKeys.deleteAllForUser({ userId })).to.equal(2);
      for (const key of mine) expect(await apiKeys.findByHash(key.keyHash)).to.equal(undefined);
      expect(await apiKeys.findByHash(theirs.keyHash)).to.deep.equal(theirs);
      expect(await apiKeys.deleteAllForUser({ userId })).to.equal(0);
    });

    it('records the first use of a key', async () => {
      const [key] = await givenKeys(userId, [{ lastUsedAt: null }]);
      await apiKeys.touch({ id: key.id, at: at(1000), minIntervalMs: MINUTE });
      expect((await apiKeys.findByHash(key.keyHash))?.lastUsedAt).to.deep.equal(at(1000));
    });

    it('records later uses only once the interval has passed since the last record', async () => {
      const [key] = await givenKeys(userId, [{ lastUsedAt: at(0) }]);
      await apiKeys.touch({ id: key.id, at: at(MINUTE - 1), minIntervalMs: MINUTE });
      expect((await apiKeys.findByHash(key.keyHash))?.lastUsedAt).to.deep.equal(at(0));
      await apiKeys.touch({ id: key.id, at: at(MINUTE), minIntervalMs: MINUTE });
      expect((await apiKeys.findByHash(key.keyHash))?.lastUsedAt).to.deep.equal(at(MINUTE));
      await apiKeys.touch({ id: key.id, at: at(MINUTE + 30_000), minIntervalMs: MINUTE });
      expect((await apiKeys.findByHash(key.keyHash))?.lastUsedAt).to.deep.equal(at(MINUTE));
      await apiKeys.touch({ id: key.id, at: at(5 * MINUTE), minIntervalMs: MINUTE });
      expect((await apiKeys.findByHash(key.keyHash))?.lastUsedAt).to.deep.equal(at(5 * MINUTE));
    });

    it('touches only the key it is given', async () => {
      const [key, other] = await givenKeys(userId, [{}, {}]);
      await apiKeys.touch({ id: key.id, at: at(1000), minIntervalMs: MINUTE });
      expect((await apiKeys.findByHash(other.keyHash))?.lastUsedAt).to.equal(null);
    });

    it('hands out copies: changing a stored or returned key changes nothing stored', async () => {
      const key = anApiKey(userId, { name: 'original' });
      const original = structuredClone(key);
      await apiKeys.create(key);
      key.name = 'changed';
      key.createdAt.setTime(0);
      const found = await apiKeys.findByHash(original.keyHash);
      expect(found).to.deep.equal(original);
      found!.name = 'mutated';
      const listed = await apiKeys.list({ userId, window: { offset: 0, limit: 10 } });
      listed.items[0].createdAt.setTime(0);
      expect(await apiKeys.findByHash(original.keyHash)).to.deep.equal(original);
    });
  });
}
