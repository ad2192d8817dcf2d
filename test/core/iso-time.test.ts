import { expect } from 'chai';
import { toIso } from '../../core/shared/time.js';

describe('toIso: the timestamp format of every body', () => {
  it('writes exactly what Date.prototype.toISOString writes, for dates across the years 0001–9999', () => {
    const edges = [
      Date.UTC(1970, 0, 1),
      Date.UTC(1000, 0, 1),
      Date.UTC(999, 11, 31, 23, 59, 59, 999),
      Date.UTC(9999, 11, 31, 23, 59, 59, 999),
      Date.UTC(2026, 10, 27, 9, 5, 7, 42),
      Date.UTC(2024, 1, 29, 0, 0, 0, 7),
      Date.UTC(2000, 9, 10, 10, 10, 10, 100),
      -1,
      0,
      1,
    ];
    // A fixed walk over the whole range (no randomness: the same dates on every run).
    const walked = Array.from({ length: 5000 }, (_, i) => Date.UTC(1, 0, 1) + i * 63_113_851_237 + (i % 1000));
    for (const ms of [...edges, ...walked]) {
      const date = new Date(ms);
      expect(toIso(date), String(ms)).to.equal(date.toISOString());
    }
  });

  it('leaves years outside 1000–9999 to the builtin (six-digit years with a sign), and refuses an invalid date as it does', () => {
    for (const ms of [Date.UTC(10000, 0, 1), Date.UTC(-1, 5, 5), Date.UTC(0, 0, 1), 8.64e15, -8.64e15]) {
      const date = new Date(ms);
      expect(toIso(date)).to.equal(date.toISOString());
    }
    expect(() => toIso(new Date(Number.NaN))).to.throw(RangeError);
  });
});
