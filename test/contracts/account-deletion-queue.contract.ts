import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { AccountDeletionQueue } from '../../core/admin/account-deletion-queue.js';
import { at } from './persistence-fixtures.js';

/** What a {@link describeAccountDeletionQueueContract} factory returns: a queue over one empty store. */
export interface AccountDeletionQueueSubject {
  subject: AccountDeletionQueue;
  close?: () => Promise<void>;
}

const LEASE = 15_000;
const ADMIN = { id: 'admin-id', email: 'root@example.com', client: '203.0.113.9' };

/** The behaviour every {@link AccountDeletionQueue} adapter must have; `makeSubject` is called once per test. */
export function describeAccountDeletionQueueContract(name: string, makeSubject: () => Promise<AccountDeletionQueueSubject>): void {
  describe(`AccountDeletionQueue contract: ${name}`, () => {
    let queue: AccountDeletionQueue;
    let close: (() => Promise<void>) | undefined;

    beforeEach(async () => {
      ({ subject: queue, close } = await makeSubject());
    });
    afterEach(async () => {
      await close?.();
    });

    const requested = (userId: string = randomUUID(), requestedAt = at(0)) =>
      queue.request({ userId, email: `${userId}@example.com`, requestedAt, actor: ADMIN });

    it('records a deletion once: a second request keeps the first, with who asked and no file deleted yet', async () => {
      const first = await requested('u1', at(0));
      expect(first).to.deep.equal({ userId: 'u1', email: 'u1@example.com', requestedAt: at(0), actor: ADMIN, filesDeleted: 0 });
      expect(
        await queue.request({ userId: 'u1', email: 'other@example.com', requestedAt: at(5), actor: { id: null, email: 'cli', client: null } }),
      ).to.deep.equal(first);
      expect(await queue.find('u1')).to.deep.equal(first);
      expect(await queue.find('nobody')).to.equal(undefined);
    });

    it('hands a free deletion to one claimer of several at once, and none until its lease lapses', async () => {
      await requested('u1');
      const claims = await Promise.all(['a', 'b', 'c', 'd'].map((owner) => queue.claim({ owner, now: at(100), until: at(100 + LEASE) })));
      expect(claims.filter((claim) => claim !== undefined)).to.have.length(1);
      expect(await queue.claim({ owner: 'e', now: at(100 + LEASE - 1), until: at(200 + LEASE) })).to.equal(undefined);
      expect(await queue.claim({ owner: 'e', now: at(100 + LEASE), until: at(100 + 2 * LEASE) })).to.include({ userId: 'u1' });
    });

    it('claims the oldest free deletion, or the one asked for', async () => {
      await requested('late', at(20));
      await requested('early', at(10));
      await requested('asked', at(30));
      expect(await queue.claim({ owner: 'a', now: at(100), until: at(100 + LEASE), userId: 'asked' })).to.include({ userId: 'asked' });
      expect(await queue.claim({ owner: 'a', now: at(100), until: at(100 + LEASE), userId: 'asked' })).to.equal(undefined);
      expect(await queue.claim({ owner: 'a', now: at(100), until: at(100 + LEASE) })).to.include({ userId: 'early' });
      expect(await queue.claim({ owner: 'a', now: at(100), until: at(100 + LEASE) })).to.include({ userId: 'late' });
      expect(await queue.claim({ owner: 'a', now: at(100), until: at(100 + LEASE) })).to.equal(undefined);
    });

    it("renews only the owner's lease, adding the files deleted, and reports a lease lost", async () => {
      await requested('u1');
      await queue.claim({ owner: 'a', now: at(0), until: at(LEASE) });
      expect(await queue.renew({ userId: 'u1', owner: 'a', until: at(2 * LEASE), filesDeleted: 100 })).to.equal(true);
      expect(await queue.renew({ userId: 'u1', owner: 'a', until: at(2 * LEASE), filesDeleted: 30 })).to.equal(true);
      expect(await queue.renew({ userId: 'u1', owner: 'b', until: at(3 * LEASE), filesDeleted: 1 })).to.equal(false);
      expect((await queue.find('u1'))?.filesDeleted).to.equal(130);
      // Renewed: still held just before the new end.
      expect(await queue.claim({ owner: 'b', now: at(2 * LEASE - 1), until: at(3 * LEASE) })).to.equal(undefined);
      expect(await queue.claim({ owner: 'b', now: at(2 * LEASE), until: at(3 * LEASE) })).to.include({ filesDeleted: 130 });
      expect(await queue.renew({ userId: 'u1', owner: 'a', until: at(4 * LEASE), filesDeleted: 5 })).to.equal(false);
    });

    it('frees a released lease at once, but only for its owner', async () => {
      await requested('u1');
      await queue.claim({ owner: 'a', now: at(0), until: at(LEASE) });
      await queue.release({ userId: 'u1', owner: 'b' });
      expect(await queue.claim({ owner: 'b', now: at(1), until: at(LEASE) })).to.equal(undefined);
      await queue.release({ userId: 'u1', owner: 'a' });
      expect(await queue.claim({ owner: 'b', now: at(1), until: at(LEASE) })).to.include({ userId: 'u1' });
    });

    it("removes a deletion for its lease's owner, or for anyone without an owner given", async () => {
      await requested('u1');
      await requested('u2');
      await queue.claim({ owner: 'a', now: at(0), until: at(LEASE), userId: 'u1' });
      expect(await queue.remove({ userId: 'u1', owner: 'b' })).to.equal(false);
      expect(await queue.remove({ userId: 'u1', owner: 'a' })).to.equal(true);
      expect(await queue.find('u1')).to.equal(undefined);
      expect(await queue.remove({ userId: 'u2' })).to.equal(true);
      expect(await queue.remove({ userId: 'u2' })).to.equal(false);
    });
  });
}
