import { expect } from 'chai';
import type { RateLimiter, RateRule } from '../../core/index.js';

/** A fresh limiter, and (for shared stores) a second one over the same store, as another process would hold. */
export interface RateLimiterSubject {
  limiter: RateLimiter;
  other: RateLimiter;
  close(): Promise<void>;
}

/** The RateLimiter contract, run against every adapter. */
export function describeRateLimiterContract(name: string, make: () => Promise<RateLimiterSubject>): void {
  describe(`RateLimiter contract: ${name}`, function () {
    this.timeout(20_000);
    let subject: RateLimiterSubject;
    let n = 0;
    // Fresh rule names per test: a shared store keeps counters between tests.
    const rule = (points: number, durationSeconds = 60): RateRule => ({ name: `t${Date.now()}_${n++}`, points, durationSeconds });

    beforeEach(async () => {
      subject = await make();
    });
    afterEach(async () => {
      await subject.close();
    });

    it('counts points and allows them up to the rule', async () => {
      const r = rule(3);
      const counts = [];
      for (let i = 0; i < 3; i++) counts.push(await subject.limiter.consume({ rule: r, key: 'k' }));
      expect(counts).to.deep.equal([1, 2, 3].map((consumed) => ({ consumed, retryAfterSeconds: 0 })));
    });

    it('refuses past the rule with the whole seconds left in the window', async () => {
      const r = rule(2, 60);
      await subject.limiter.consume({ rule: r, key: 'k' });
      await subject.limiter.consume({ rule: r, key: 'k' });
      const over = await subject.limiter.consume({ rule: r, key: 'k' });
      expect(over.consumed).to.equal(3);
      expect(over.retryAfterSeconds).to.be.within(59, 60);
      expect(await subject.limiter.retryAfter({ rule: r, key: 'k' })).to.be.within(59, 60);
    });

    it('keeps keys and rules apart', async () => {
      const a = rule(1);
      const b = { ...rule(1), name: `${a.name}_b` };
      await subject.limiter.consume({ rule: a, key: 'k' });
      expect((await subject.limiter.consume({ rule: a, key: 'other' })).retryAfterSeconds).to.equal(0);
      expect((await subject.limiter.consume({ rule: b, key: 'k' })).retryAfterSeconds).to.equal(0);
    });

    it('says 0 to wait for an unknown key, and blocks a key for the seconds asked', async () => {
      const r = rule(1, 1);
      expect(await subject.limiter.retryAfter({ rule: r, key: 'k' })).to.equal(0);
      await subject.limiter.block({ rule: r, key: 'k', seconds: 30 });
      expect(await subject.limiter.retryAfter({ rule: r, key: 'k' })).to.be.within(29, 30);
    });

    it('forgets a key on reset', async () => {
      const r = rule(1);
      await subject.limiter.block({ rule: r, key: 'k', seconds: 30 });
      await subject.limiter.reset({ rule: r, key: 'k' });
      expect(await subject.limiter.retryAfter({ rule: r, key: 'k' })).to.equal(0);
      expect((await subject.limiter.consume({ rule: r, key: 'k' })).consumed).to.equal(1);
    });

    it('gives points back on reward: the next consume counts from the lowered count, and the key is let through again', async () => {
      const r = rule(2);
      await subject.limiter.consume({ rule: r, key: 'k' });
      await subject.limiter.consume({ rule: r, key: 'k' });
      expect((await subject.limiter.consume({ rule: r, key: 'k' })).retryAfterSeconds).to.be.greaterThan(0);
      await subject.limiter.reward({ rule: r, key: 'k' });
      await subject.other.reward({ rule: r, key: 'k', points: 1 });
      expect(await subject.limiter.retryAfter({ rule: r, key: 'k' })).to.equal(0);
      expect(await subject.other.consume({ rule: r, key: 'k' })).to.deep.equal({ consumed: 2, retryAfterSeconds: 0 });
      expect((await subject.limiter.consume({ rule: r, key: 'other' })).consumed).to.equal(1);
    });

    it('keeps exactly 10 of 40 simultaneous consume-then-reward-when-refused rounds within a 10-point rule, over two holders', async () => {
      const r = rule(10);
      const holders = [subject.limiter, subject.other];
      const admitted = await Promise.all(
        Array.from({ length: 40 }, async (_, i) => {
          const holder = holders[i % 2];
          const count = await holder.consume({ rule: r, key: 'k' });
          if (count.retryAfterSeconds === 0) return true;
          await holder.reward({ rule: r, key: 'k' });
          return false;
        }),
      );
      expect(admitted.filter(Boolean)).to.have.length(10);
      // Every refused point was given back: the count is the 10 admitted ones.
      expect((await subject.limiter.consume({ rule: r, key: 'k' })).consumed).to.equal(11);
    });

    it('lets exactly 10 of 40 simultaneous points through a 10-point rule, split over two holders of the store', async () => {
      const r = rule(10);
      const results = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? subject.limiter : subject.other).consume({ rule: r, key: 'k' })));
      expect(results.filter((result) => result.retryAfterSeconds === 0)).to.have.length(10);
    });
  });
}
