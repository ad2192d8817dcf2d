import { expect } from 'chai';
import type { UserRepository } from '../../core/accounts/user-repository.js';
import type { UsageRepository } from '../../core/plans/usage-repository.js';
import { at, givenUser, T0 } from './persistence-fixtures.js';

/** What a {@link describeUsageRepositoryContract} factory returns: repositories over one empty store. */
export interface UsageRepositorySubject {
  subject: UsageRepository;
  /** Creates (and deletes) the accounts the counters belong to. */
  users: UserRepository;
  close?: () => Promise<void>;
}

const DAY = 24 * 3600_000;
const UNKNOWN_USER = '00000000-0000-4000-8000-000000000000';

/** The behaviour every {@link UsageRepository} adapter must have; `makeSubject` is called once per test. */
export function describeUsageRepositoryContract(name: string, makeSubject: () => Promise<UsageRepositorySubject>): void {
  describe(`UsageRepository contract: ${name}`, () => {
    let usage: UsageRepository;
    let users: UserRepository;
    let close: (() => Promise<void>) | undefined;
    let userId: string;

    beforeEach(async () => {
      ({ subject: usage, users, close } = await makeSubject());
      userId = (await givenUser(users)).id;
    });
    afterEach(async () => {
      await close?.();
    });

    it('answers zeros for a period without counts', async () => {
      expect(await usage.get({ userId, periodStart: T0 })).to.deep.equal({ originReads: 0, imageOps: 0 });
      expect(await usage.get({ userId: UNKNOWN_USER, periodStart: T0 })).to.deep.equal({ originReads: 0, imageOps: 0 });
    });

    it('creates the row of a period on the first add and adds to it afterwards', async () => {
      await usage.add([{ userId, periodStart: T0, originReads: 3, imageOps: 1 }]);
      expect(await usage.get({ userId, periodStart: T0 })).to.deep.equal({ originReads: 3, imageOps: 1 });
      await usage.add([{ userId, periodStart: T0, originReads: 4, imageOps: 0 }]);
      expect(await usage.get({ userId, periodStart: T0 })).to.deep.equal({ originReads: 7, imageOps: 1 });
    });

    it('sums entries of the same account and period within one batch', async () => {
      await usage.add([
        { userId, periodStart: T0, originReads: 1, imageOps: 0 },
        { userId, periodStart: T0, originReads: 2, imageOps: 5 },
        { userId, periodStart: T0, originReads: 0, imageOps: 1 },
      ]);
      expect(await usage.get({ userId, periodStart: T0 })).to.deep.equal({ originReads: 3, imageOps: 6 });
    });

    it('keeps one row per account and period: other periods and accounts are counted apart', async () => {
      const otherUserId = (await givenUser(users)).id;
      const next = at(31 * DAY);
      await usage.add([
        { userId, periodStart: T0, originReads: 1, imageOps: 1 },
        { userId, periodStart: next, originReads: 10, imageOps: 20 },
        { userId: otherUserId, periodStart: T0, originReads: 100, imageOps: 200 },
      ]);
      expect(await usage.get({ userId, periodStart: T0 })).to.deep.equal({ originReads: 1, imageOps: 1 });
      expect(await usage.get({ userId, periodStart: next })).to.deep.equal({ originReads: 10, imageOps: 20 });
      expect(await usage.get({ userId: otherUserId, periodStart: T0 })).to.deep.equal({ originReads: 100, imageOps: 200 });
      expect(await usage.get({ userId, periodStart: at(1) })).to.deep.equal({ originReads: 0, imageOps: 0 });
    });

    it('takes an image operation only while the stored count, the pending ones and it stay within the limit', async () => {
      expect(await usage.takeImageOp({ userId, periodStart: T0, limit: 3, pending: 0 })).to.equal(true);
      expect(await usage.get({ userId, periodStart: T0 })).to.deep.equal({ originReads: 0, imageOps: 1 });
      await usage.add([{ userId, periodStart: T0, originReads: 5, imageOps: 1 }]);
      expect(await usage.takeImageOp({ userId, periodStart: T0, limit: 3, pending: 1 })).to.equal(false);
      expect(await usage.takeImageOp({ userId, periodStart: T0, limit: 3, pending: 0 })).to.equal(true);
      expect(await usage.takeImageOp({ userId, periodStart: T0, limit: 3, pending: 0 })).to.equal(false);
      expect(await usage.get({ userId, periodStart: T0 })).to.deep.equal({ originReads: 5, imageOps: 3 });
      // A new period starts from zero; a limit of 0 allows nothing, and pending counts alone can fill it.
      const next = at(31 * DAY);
      expect(await usage.takeImageOp({ userId, periodStart: next, limit: 0, pending: 0 })).to.equal(false);
      expect(await usage.takeImageOp({ userId, periodStart: next, limit: 2, pending: 2 })).to.equal(false);
      expect(await usage.get({ userId, periodStart: next })).to.deep.equal({ originReads: 0, imageOps: 0 });
      expect(await usage.takeImageOp({ userId: UNKNOWN_USER, periodStart: T0, limit: 3, pending: 0 })).to.equal(false);
      expect(await usage.get({ userId: UNKNOWN_USER, periodStart: T0 })).to.deep.equal({ originReads: 0, imageOps: 0 });
    });

    it('lets exactly the limit of concurrent takes through, with and without a row to start from', async () => {
      for (const periodStart of [T0, at(31 * DAY)]) {
        if (periodStart === T0) await usage.add([{ userId, periodStart, originReads: 1, imageOps: 1 }]);
        const taken = await Promise.all(Array.from({ length: 12 }, () => usage.takeImageOp({ userId, periodStart, limit: 5, pending: 0 })));
        const before = periodStart === T0 ? 1 : 0;
        expect(taken.filter(Boolean), periodStart.toISOString()).to.have.length(5 - before);
        expect((await usage.get({ userId, periodStart })).imageOps).to.equal(5);
      }
    });

    it('skips entries of unknown accounts without failing, and writes the rest of the batch', async () => {
      await usage.add([
        { userId: UNKNOWN_USER, periodStart: T0, originReads: 9, imageOps: 9 },
        { userId, periodStart: T0, originReads: 2, imageOps: 3 },
      ]);
      expect(await usage.get({ userId, periodStart: T0 })).to.deep.equal({ originReads: 2, imageOps: 3 });
      expect(await usage.get({ userId: UNKNOWN_USER, periodStart: T0 })).to.deep.equal({ originReads: 0, imageOps: 0 });
    });

    it('skips entries of an account deleted since they were counted', async () => {
      const goneId = (await givenUser(users)).id;
      await users.delete(goneId);
      await usage.add([
        { userId: goneId, periodStart: T0, originReads: 1, imageOps: 0 },
        { userId, periodStart: T0, originReads: 1, imageOps: 0 },
      ]);
      expect(await usage.get({ userId: goneId, periodStart: T0 })).to.deep.equal({ originReads: 0, imageOps: 0 });
      expect(await usage.get({ userId, periodStart: T0 })).to.deep.equal({ originReads: 1, imageOps: 0 });
    });

    it('does nothing for an empty batch', async () => {
      await usage.add([]);
      expect(await usage.get({ userId, periodStart: T0 })).to.deep.equal({ originReads: 0, imageOps: 0 });
    });

    it('loses no count when several batches add to one row at once', async () => {
      await Promise.all(Array.from({ length: 10 }, () => usage.add([{ userId, periodStart: T0, originReads: 1, imageOps: 2 }])));
      expect(await usage.get({ userId, periodStart: T0 })).to.deep.equal({ originReads: 10, imageOps: 20 });
    });

    it('counts beyond 2^32', async () => {
      await usage.add([{ userId, periodStart: T0, originReads: 2 ** 32, imageOps: 2 ** 33 }]);
      await usage.add([{ userId, periodStart: T0, originReads: 1, imageOps: 1 }]);
      expect(await usage.get({ userId, periodStart: T0 })).to.deep.equal({ originReads: 2 ** 32 + 1, imageOps: 2 ** 33 + 1 });
    });

    it('writes a large batch whole (more rows than one statement takes)', async () => {
      const entries = Array.from({ length: 1200 }, (_, day) => ({ userId, periodStart: at(day * DAY), originReads: day, imageOps: 1 }));
      await usage.add(entries);
      expect(await usage.get({ userId, periodStart: at(0) })).to.deep.equal({ originReads: 0, imageOps: 1 });
      expect(await usage.get({ userId, periodStart: at(777 * DAY) })).to.deep.equal({ originReads: 777, imageOps: 1 });
      expect(await usage.get({ userId, periodStart: at(1199 * DAY) })).to.deep.equal({ originReads: 1199, imageOps: 1 });
    });
  });
}
