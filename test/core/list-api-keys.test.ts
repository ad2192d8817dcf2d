import { expect } from 'chai';
import { createMemoryHangar } from '../support/memory-hangar.js';

/** Alice with three keys created a second apart (k1 oldest), Bob with one. */
async function withKeys() {
  const world = createMemoryHangar();
  const alice = await world.registerConfirmed('alice@example.com');
  const bob = await world.registerConfirmed('bob@example.com');
  const keys = [];
  for (const name of ['k1', 'k2', 'k3']) {
    world.clock.advance(1000);
    keys.push((await world.hangar.createApiKey.execute({ userId: alice.userId, name })).apiKey);
  }
  await world.hangar.createApiKey.execute({ userId: bob.userId, name: 'bob-key' });
  return { ...world, alice, bob, keys };
}

describe('ListApiKeys', () => {
  it('lists the user’s keys newest first with the total', async () => {
    const { hangar, alice } = await withKeys();
    const page = await hangar.listApiKeys.execute({ userId: alice.userId, page: 1, limit: 30 });
    expect(page.total).to.equal(3);
    expect(page.items.map((k) => k.name)).to.deep.equal(['k3', 'k2', 'k1']);
  });

  it('pages: limit 2 gives two keys then one, the total staying 3', async () => {
    const { hangar, alice } = await withKeys();
    const first = await hangar.listApiKeys.execute({ userId: alice.userId, page: 1, limit: 2 });
    const second = await hangar.listApiKeys.execute({ userId: alice.userId, page: 2, limit: 2 });
    const third = await hangar.listApiKeys.execute({ userId: alice.userId, page: 3, limit: 2 });
    expect(first.items.map((k) => k.name)).to.deep.equal(['k3', 'k2']);
    expect(second.items.map((k) => k.name)).to.deep.equal(['k1']);
    expect(third.items).to.deep.equal([]);
    expect([first.total, second.total, third.total]).to.deep.equal([3, 3, 3]);
  });

  it('shows only the user’s own keys', async () => {
    const { hangar, bob } = await withKeys();
    const page = await hangar.listApiKeys.execute({ userId: bob.userId, page: 1, limit: 30 });
    expect(page.total).to.equal(1);
    expect(page.items.map((k) => k.name)).to.deep.equal(['bob-key']);
  });

  it('lists an account without keys as empty', async () => {
    const world = createMemoryHangar();
    const carol = await world.registerConfirmed('carol@example.com');
    expect(await world.hangar.listApiKeys.execute({ userId: carol.userId, page: 1, limit: 30 })).to.deep.equal({ items: [], total: 0 });
  });

  it('gives prefix, name, dates and no secret for each key', async () => {
    const { hangar, alice, keys } = await withKeys();
    const page = await hangar.listApiKeys.execute({ userId: alice.userId, page: 1, limit: 30 });
    const k3 = page.items[0];
    expect(k3.id).to.equal(keys[2].id);
    expect(k3.keyPrefix).to.equal(keys[2].keyPrefix);
    expect(k3.createdAt.getTime()).to.equal(keys[2].createdAt.getTime());
    expect(k3.lastUsedAt).to.equal(null);
  });

  it('no longer lists a revoked key', async () => {
    const { hangar, alice, keys } = await withKeys();
    await hangar.revokeApiKey.execute({ userId: alice.userId, id: keys[1].id });
    const page = await hangar.listApiKeys.execute({ userId: alice.userId, page: 1, limit: 30 });
    expect(page.total).to.equal(2);
    expect(page.items.map((k) => k.name)).to.deep.equal(['k3', 'k1']);
  });
});
