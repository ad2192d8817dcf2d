import { expect } from 'chai';
import { billingPeriodAt, DAY_MS } from '../../core/index.js';

const at = (iso: string) => new Date(iso);
const period = (created: string, now: string) => {
  const { start, end } = billingPeriodAt(at(created), at(now));
  return { start: start.toISOString(), end: end.toISOString() };
};

describe('billingPeriodAt', () => {
  it('starts at 00:00 UTC of the creation day and lasts one month', () => {
    expect(period('2025-03-01T12:00:00.000Z', '2025-03-01T12:00:00.000Z')).to.deep.equal({
      start: '2025-03-01T00:00:00.000Z',
      end: '2025-04-01T00:00:00.000Z',
    });
    expect(period('2025-03-01T23:59:59.999Z', '2025-03-10T00:00:00.000Z')).to.deep.equal({
      start: '2025-03-01T00:00:00.000Z',
      end: '2025-04-01T00:00:00.000Z',
    });
  });

  it('rolls over exactly at period_end: the last millisecond is in the old period, period_end in the new', () => {
    expect(period('2025-03-15T08:00:00.000Z', '2025-04-14T23:59:59.999Z')).to.deep.equal({
      start: '2025-03-15T00:00:00.000Z',
      end: '2025-04-15T00:00:00.000Z',
    });
    expect(period('2025-03-15T08:00:00.000Z', '2025-04-15T00:00:00.000Z')).to.deep.equal({
      start: '2025-04-15T00:00:00.000Z',
      end: '2025-05-15T00:00:00.000Z',
    });
  });

  it('clamps to the month’s last day and comes back: created Jan 31 (leap year) → Feb 29 → Mar 31 → Apr 30 → May 31', () => {
    const created = '2024-01-31T18:30:00.000Z';
    expect(period(created, '2024-02-28T23:59:59.999Z')).to.deep.equal({ start: '2024-01-31T00:00:00.000Z', end: '2024-02-29T00:00:00.000Z' });
    expect(period(created, '2024-02-29T00:00:00.000Z')).to.deep.equal({ start: '2024-02-29T00:00:00.000Z', end: '2024-03-31T00:00:00.000Z' });
    expect(period(created, '2024-03-30T12:00:00.000Z')).to.deep.equal({ start: '2024-02-29T00:00:00.000Z', end: '2024-03-31T00:00:00.000Z' });
    expect(period(created, '2024-03-31T00:00:00.000Z')).to.deep.equal({ start: '2024-03-31T00:00:00.000Z', end: '2024-04-30T00:00:00.000Z' });
    expect(period(created, '2024-05-01T00:00:00.000Z')).to.deep.equal({ start: '2024-04-30T00:00:00.000Z', end: '2024-05-31T00:00:00.000Z' });
  });

  it('clamps to Feb 28 in a common year: created 2025-01-31 → Feb 28 → Mar 31', () => {
    expect(period('2025-01-31T00:00:00.000Z', '2025-02-28T00:00:00.000Z')).to.deep.equal({
      start: '2025-02-28T00:00:00.000Z',
      end: '2025-03-31T00:00:00.000Z',
    });
    expect(period('2025-01-31T00:00:00.000Z', '2025-02-27T23:59:59.999Z')).to.deep.equal({
      start: '2025-01-31T00:00:00.000Z',
      end: '2025-02-28T00:00:00.000Z',
    });
  });

  it('crosses the year: created Dec 31 → Jan 31 → Feb 28', () => {
    expect(period('2024-12-31T10:00:00.000Z', '2025-01-15T00:00:00.000Z')).to.deep.equal({
      start: '2024-12-31T00:00:00.000Z',
      end: '2025-01-31T00:00:00.000Z',
    });
    expect(period('2024-12-31T10:00:00.000Z', '2025-02-01T00:00:00.000Z')).to.deep.equal({
      start: '2025-01-31T00:00:00.000Z',
      end: '2025-02-28T00:00:00.000Z',
    });
  });

  it('keeps a Feb 29 anchor on the 29th in later months and on the 28th in common-year Februaries', () => {
    expect(period('2024-02-29T00:00:00.000Z', '2024-03-29T00:00:00.000Z')).to.deep.equal({
      start: '2024-03-29T00:00:00.000Z',
      end: '2024-04-29T00:00:00.000Z',
    });
    expect(period('2024-02-29T00:00:00.000Z', '2025-02-28T00:00:00.000Z')).to.deep.equal({
      start: '2025-02-28T00:00:00.000Z',
      end: '2025-03-29T00:00:00.000Z',
    });
  });

  it('always contains the instant, starts on the anchor day (or the month’s last day), and chains periods, every 7 hours over three years', () => {
    for (const created of ['2024-01-31T18:30:00.000Z', '2024-02-29T00:00:00.000Z', '2023-03-30T05:00:00.000Z', '2024-05-01T23:59:59.999Z']) {
      const createdAt = at(created);
      const anchorDay = createdAt.getUTCDate();
      let previous: { start: Date; end: Date } | undefined;
      for (let t = createdAt.getTime(); t < createdAt.getTime() + 3 * 366 * DAY_MS; t += 7 * 3600_000) {
        const now = new Date(t);
        const { start, end } = billingPeriodAt(createdAt, now);
        const context = `created ${created}, at ${now.toISOString()}: ${start.toISOString()} – ${end.toISOString()}`;
        expect(start.getTime() <= t && t < end.getTime(), context).to.equal(true);
        for (const bound of [start, end]) {
          expect(bound.getTime() % DAY_MS, context).to.equal(0);
          const lastDay = new Date(Date.UTC(bound.getUTCFullYear(), bound.getUTCMonth() + 1, 0)).getUTCDate();
          expect(bound.getUTCDate(), context).to.equal(Math.min(anchorDay, lastDay));
        }
        const months = (end.getUTCFullYear() - start.getUTCFullYear()) * 12 + end.getUTCMonth() - start.getUTCMonth();
        expect(months, context).to.equal(1);
        if (previous && previous.start.getTime() !== start.getTime()) expect(start.getTime(), context).to.equal(previous.end.getTime());
        previous = { start, end };
      }
    }
  });
});
