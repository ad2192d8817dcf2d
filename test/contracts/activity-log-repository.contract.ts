import { expect } from 'chai';
import type { UserRepository } from '../../core/accounts/user-repository.js';
import type { ActivityLogEntry } from '../../core/activity/activity-log.js';
import type { ActivityLogRepository } from '../../core/activity/activity-log-repository.js';
import { aLogEntry, at, givenUser } from './persistence-fixtures.js';

/** What a {@link describeActivityLogRepositoryContract} factory returns: repositories over one empty store. */
export interface ActivityLogRepositorySubject {
  subject: ActivityLogRepository;
  /** Creates (and deletes) the accounts entries belong to. */
  users: UserRepository;
  close?: () => Promise<void>;
}

const UNKNOWN_USER = '00000000-0000-4000-8000-000000000000';

/** The behaviour every {@link ActivityLogRepository} adapter must have; `makeSubject` is called once per test. */
export function describeActivityLogRepositoryContract(name: string, makeSubject: () => Promise<ActivityLogRepositorySubject>): void {
  describe(`ActivityLogRepository contract: ${name}`, () => {
    let logs: ActivityLogRepository;
    let users: UserRepository;
    let close: (() => Promise<void>) | undefined;
    let userId: string;

    beforeEach(async () => {
      ({ subject: logs, users, close } = await makeSubject());
      userId = (await givenUser(users)).id;
    });
    afterEach(async () => {
      await close?.();
    });

    async function all(owner = userId): Promise<ActivityLogEntry[]> {
      return (await logs.list({ userId: owner, window: { offset: 0, limit: 10_000 } })).items;
    }

    async function rejects(promise: Promise<unknown>): Promise<void> {
      let failed = false;
      await promise.catch(() => {
        failed = true;
      });
      expect(failed, 'expected the promise to reject').to.equal(true);
    }

    it('stores entries and lists them with every field intact, metadata included', async () => {
      const entry = aLogEntry(userId, {
        method: 'POST',
        path: '/files',
        statusCode: 413,
        requestSizeBytes: 6 * 1024 ** 3,
        createdAt: at(1234),
        metadata: {
          auth: 'api_key',
          api_key_id: 'k-1',
          file_id: 'AbCdE12345',
          duration_ms: 12.5,
          user_agent: 'curl/8 «ü»',
          ip: '::1',
          nested: { ok: true, list: [1, null, 'x'] },
        },
      });
      await logs.insertMany([entry]);
      expect(await logs.list({ userId, window: { offset: 0, limit: 10 } })).to.deep.equal({ items: [entry], total: 1 });
    });

    it('keeps an unknown request size as null and empty metadata as an empty object', async () => {
      const entry = aLogEntry(userId, { requestSizeBytes: null, metadata: {} });
      await logs.insertMany([entry]);
      expect(await all()).to.deep.equal([entry]);
    });

    it('lists newest first, equal times by id descending, with the total', async () => {
      const [a, b, c, d] = [
        aLogEntry(userId, { id: '00000000-0000-4000-8000-00000000000a', createdAt: at(1000) }),
        aLogEntry(userId, { id: '00000000-0000-4000-8000-00000000000c', createdAt: at(2000) }),
        aLogEntry(userId, { id: '00000000-0000-4000-8000-00000000000b', createdAt: at(2000) }),
        aLogEntry(userId, { id: '00000000-0000-4000-8000-000000000001', createdAt: at(3000) }),
      ];
      await logs.insertMany([a, b]);
      await logs.insertMany([c, d]);
      expect(await logs.list({ userId, window: { offset: 0, limit: 10 } })).to.deep.equal({ items: [d, b, c, a], total: 4 });
    });

    it('pages through the log: the window picks the items, the total counts them all', async () => {
      const entries = Array.from({ length: 7 }, (_, i) => aLogEntry(userId, { createdAt: at(i * 1000) }));
      await logs.insertMany(entries);
      const newestFirst = [...entries].reverse().map((entry) => entry.id);
      const second = await logs.list({ userId, window: { offset: 3, limit: 3 } });
      expect(second.total).to.equal(7);
      expect(second.items.map((entry) => entry.id)).to.deep.equal(newestFirst.slice(3, 6));
      expect(await logs.list({ userId, window: { offset: 30, limit: 3 } })).to.deep.equal({ items: [], total: 7 });
    });

    it('lists one kind: actions (every method but GET, HEAD, OPTIONS) or reads, each with its own total', async () => {
      const methods = ['GET', 'POST', 'HEAD', 'DELETE', 'PATCH', 'OPTIONS', 'GET', 'PUT'];
      const entries = methods.map((method, i) => aLogEntry(userId, { method, createdAt: at(i * 1000) }));
      await logs.insertMany(entries);
      const ids = (list: ActivityLogEntry[]) => list.map((entry) => entry.id);
      const newest = [...entries].reverse();
      const actions = await logs.list({ userId, window: { offset: 0, limit: 2 }, kind: 'actions' });
      expect(actions.total).to.equal(4);
      expect(ids(actions.items)).to.deep.equal(ids(newest.filter((e) => ['PUT', 'PATCH'].includes(e.method))));
      const reads = await logs.list({ userId, window: { offset: 0, limit: 10 }, kind: 'reads' });
      expect(reads.total).to.equal(4);
      expect(ids(reads.items)).to.deep.equal(ids(newest.filter((e) => ['GET', 'HEAD', 'OPTIONS'].includes(e.method))));
      expect((await logs.list({ userId, window: { offset: 0, limit: 10 }, kind: 'all' })).total).to.equal(8);
    });

    it('lists what follows a position (before): older entries, equal times by id, whatever was added since', async () => {
      const [a, b, c, d] = [
        aLogEntry(userId, { id: '00000000-0000-4000-8000-00000000000a', createdAt: at(1000) }),
        aLogEntry(userId, { id: '00000000-0000-4000-8000-00000000000c', createdAt: at(2000) }),
        aLogEntry(userId, { id: '00000000-0000-4000-8000-00000000000b', createdAt: at(2000) }),
        aLogEntry(userId, { id: '00000000-0000-4000-8000-000000000001', createdAt: at(3000) }),
      ];
      await logs.insertMany([a, b, c, d]);
      const first = await logs.list({ userId, window: { offset: 0, limit: 2 } });
      expect(first.items.map((e) => e.id)).to.deep.equal([d.id, b.id]);
      await logs.insertMany([aLogEntry(userId, { createdAt: at(4000) }), aLogEntry(userId, { createdAt: at(4000) })]);
      const next = await logs.list({ userId, window: { offset: 0, limit: 2 }, before: { createdAt: b.createdAt, id: b.id } });
      expect(next.items.map((e) => e.id)).to.deep.equal([c.id, a.id]);
      expect(next.total).to.equal(6);
      expect((await logs.list({ userId, window: { offset: 1, limit: 5 }, before: { createdAt: b.createdAt, id: b.id } })).items).to.deep.equal([a]);
      expect((await logs.list({ userId, window: { offset: 0, limit: 5 }, before: { createdAt: a.createdAt, id: a.id } })).items).to.deep.equal([]);
    });

    it("never lists another account's entries", async () => {
      const otherUserId = (await givenUser(users)).id;
      const mine = aLogEntry(userId);
      await logs.insertMany([mine, aLogEntry(otherUserId), aLogEntry(otherUserId)]);
      expect(await logs.list({ userId, window: { offset: 0, limit: 10 } })).to.deep.equal({ items: [mine], total: 1 });
      expect((await logs.list({ userId: otherUserId, window: { offset: 0, limit: 10 } })).total).to.equal(2);
    });

    it('skips entries of unknown and deleted accounts without failing, and stores the rest of the batch', async () => {
      const goneId = (await givenUser(users)).id;
      await users.delete(goneId);
      const kept = aLogEntry(userId);
      await logs.insertMany([aLogEntry(UNKNOWN_USER), kept, aLogEntry(goneId)]);
      expect(await all()).to.deep.equal([kept]);
      expect(await all(goneId)).to.deep.equal([]);
      expect(await all(UNKNOWN_USER)).to.deep.equal([]);
    });

    it('does nothing for an empty batch', async () => {
      await logs.insertMany([]);
      expect(await all()).to.deep.equal([]);
    });

    it('stores a batch whole or not at all: an id already stored refuses every entry of the batch', async () => {
      const first = aLogEntry(userId);
      await logs.insertMany([first]);
      await rejects(logs.insertMany([aLogEntry(userId), aLogEntry(userId, { id: first.id }), aLogEntry(userId)]));
      expect(await all()).to.deep.equal([first]);
    });

    it('writes a large batch whole, every entry once (more rows than one statement takes, in statements of several sizes)', async () => {
      const entries = Array.from({ length: 1234 }, (_, i) => aLogEntry(userId, { createdAt: at(i), path: `/files/${i}` }));
      await logs.insertMany(entries);
      const page = await logs.list({ userId, window: { offset: 0, limit: 2000 } });
      expect(page.total).to.equal(1234);
      expect(page.items[0]).to.deep.equal(entries[1233]);
      expect(page.items.map((entry) => entry.path).sort()).to.deep.equal(entries.map((entry) => entry.path).sort());
    });

    it('deletes the entries created before the given instant, of every account, and says how many', async () => {
      const otherUserId = (await givenUser(users)).id;
      const old = [aLogEntry(userId, { createdAt: at(-2) }), aLogEntry(userId, { createdAt: at(-1) }), aLogEntry(otherUserId, { createdAt: at(-5) })];
      const boundary = aLogEntry(userId, { createdAt: at(0) });
      const recent = aLogEntry(otherUserId, { createdAt: at(1) });
      await logs.insertMany([...old, boundary, recent]);
      expect(await logs.deleteBefore(at(0))).to.equal(3);
      expect(await all()).to.deep.equal([boundary]);
      expect(await all(otherUserId)).to.deep.equal([recent]);
      expect(await logs.deleteBefore(at(0))).to.equal(0);
    });

    it('keeps every total exact through batches (unknown and deleted accounts skipped), refused batches, pruning in several rounds, and an account deleted', async () => {
      const otherUserId = (await givenUser(users)).id;
      const goneId = (await givenUser(users)).id;
      const totals = async () => {
        const of = async (id: string) => (await logs.list({ userId: id, window: { offset: 0, limit: 1 } })).total;
        return [await of(userId), await of(otherUserId), await of(goneId), await of(UNKNOWN_USER)];
      };
      const old = (id: string, n: number) => Array.from({ length: n }, (_, i) => aLogEntry(id, { createdAt: at(-1000 - i) }));
      await logs.insertMany([...old(userId, 3), ...old(otherUserId, 2), ...old(goneId, 4), aLogEntry(UNKNOWN_USER)]);
      await logs.insertMany([aLogEntry(userId), aLogEntry(userId), aLogEntry(otherUserId)]);
      expect(await totals()).to.deep.equal([5, 3, 4, 0]);
      const stored = aLogEntry(userId);
      await logs.insertMany([stored]);
      await rejects(logs.insertMany([aLogEntry(otherUserId), aLogEntry(userId, { id: stored.id })]));
      expect(await totals()).to.deep.equal([6, 3, 4, 0]);
      await users.delete(goneId);
      await logs.insertMany([aLogEntry(goneId), aLogEntry(otherUserId)]);
      expect(await totals()).to.deep.equal([6, 4, 0, 0]);
      // Prune more entries than one round deletes (PRUNE_CHUNK on SQL is 5,000).
      await logs.insertMany(old(otherUserId, 6000));
      expect(await totals()).to.deep.equal([6, 6004, 0, 0]);
      expect(await logs.deleteBefore(at(0))).to.equal(6000 + 3 + 2);
      expect(await totals()).to.deep.equal([3, 2, 0, 0]);
      expect(await logs.deleteBefore(at(0))).to.equal(0);
      expect(await totals()).to.deep.equal([3, 2, 0, 0]);
    });

    it('deletes every entry of one account, in as many steps as it takes, and keeps the totals exact', async () => {
      const otherUserId = (await givenUser(users)).id;
      const many = (id: string, n: number) => Array.from({ length: n }, (_, i) => aLogEntry(id, { createdAt: at(-i) }));
      // More entries than one step deletes (PRUNE_CHUNK on SQL is 5,000).
      await logs.insertMany(many(userId, 6001));
      const kept = many(otherUserId, 2);
      await logs.insertMany(kept);
      expect(await logs.deleteForAccount(userId)).to.equal(6001);
      expect(await logs.list({ userId, window: { offset: 0, limit: 10 } })).to.deep.equal({ items: [], total: 0 });
      expect(await logs.list({ userId: otherUserId, window: { offset: 0, limit: 10 } })).to.deep.equal({
        items: [...kept].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime()),
        total: 2,
      });
      expect(await logs.deleteForAccount(userId)).to.equal(0);
      expect(await logs.deleteForAccount(UNKNOWN_USER)).to.equal(0);
      await logs.insertMany([aLogEntry(userId)]);
      expect((await logs.list({ userId, window: { offset: 0, limit: 10 } })).total).to.equal(1);
    });

    it('hands out copies: changing a stored or listed entry changes nothing stored', async () => {
      const entry = aLogEntry(userId, { metadata: { auth: 'jwt', nested: { n: 1 } } });
      const original = structuredClone(entry);
      await logs.insertMany([entry]);
      entry.path = '/changed';
      entry.createdAt.setTime(0);
      (entry.metadata.nested as { n: number }).n = 2;
      const [listed] = await all();
      expect(listed).to.deep.equal(original);
      listed.metadata.auth = 'mutated';
      listed.createdAt.setTime(0);
      expect(await all()).to.deep.equal([original]);
    });
  });
}
