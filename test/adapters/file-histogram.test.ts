import { expect } from 'chai';
import fc from 'fast-check';
import {
  coverSizeRange,
  coverTimeRange,
  DAY_MS,
  floorDiv,
  histogramKeysOf,
  HOUR_MS,
  type InclusiveRange,
  type RangeCover,
  sizeBucket,
  sizeBucketStart,
} from '../../adapters/persistence/sql/file-histogram.js';

/** How many parts of `cover` hold `value`: a sum whose bucket range holds the value's bucket, or an exact range holding it. */
function partsHolding(cover: RangeCover, value: number, bucketOf: (dimension: string, value: number) => number): number {
  const inside = (range: InclusiveRange, x: number) => (range.from === undefined || x >= range.from) && (range.to === undefined || x <= range.to);
  return cover.sums.filter((sum) => inside(sum, bucketOf(sum.dimension, value))).length + cover.exact.filter((range) => inside(range, value)).length;
}

const timeBucket = (dimension: string, ms: number) => floorDiv(ms, dimension === 'day' ? DAY_MS : HOUR_MS);
const MAX = Number.MAX_SAFE_INTEGER;

describe('file histogram buckets (file-histogram.ts)', () => {
  it('gives sizes below 64 a class each, then 32 classes per octave', () => {
    expect([0, 1, 31, 32, 63].map(sizeBucket)).to.deep.equal([0, 1, 31, 32, 63]);
    expect([64, 65, 66, 67, 126, 127, 128, 131, 132].map(sizeBucket)).to.deep.equal([64, 64, 65, 65, 95, 95, 96, 96, 97]);
    expect(sizeBucket(2 ** 32)).to.equal(32 * 27 + 32);
    expect(sizeBucket(MAX)).to.equal(1567);
    expect(sizeBucketStart(1568)).to.equal(2 ** 53);
  });

  it('refuses negative and unsafe sizes', () => {
    for (const size of [-1, 0.5, 2 ** 53, Number.NaN]) expect(() => sizeBucket(size), String(size)).to.throw(RangeError);
  });

  it('puts every size in the class that starts at or below it and ends before the next, each class at most 1/32 of its start wide', () => {
    const sizes = fc.oneof(fc.integer({ min: 0, max: 10_000 }), fc.integer({ min: 0, max: MAX }), fc.integer({ min: 0, max: 52 }).chain((k) => fc.constantFrom(2 ** k - 1, 2 ** k, 2 ** k + 1)));
    fc.assert(
      fc.property(sizes, (size) => {
        const bucket = sizeBucket(size);
        const start = sizeBucketStart(bucket);
        const next = sizeBucketStart(bucket + 1);
        expect(start).to.be.at.most(size);
        expect(next).to.be.above(size);
        expect(sizeBucket(start)).to.equal(bucket);
        expect(sizeBucket(next - 1)).to.equal(bucket);
        if (start >= 64) expect(next - start).to.be.at.most(start / 32);
      }),
      { numRuns: 2000 },
    );
  });

  it('divides negative times down, as SQL backfill and JavaScript both must', () => {
    expect(floorDiv(-1, HOUR_MS)).to.equal(-1);
    expect(floorDiv(-HOUR_MS, HOUR_MS)).to.equal(-1);
    expect(floorDiv(HOUR_MS - 1, HOUR_MS)).to.equal(0);
    expect(histogramKeysOf({ createdAtMs: DAY_MS + HOUR_MS, size: 100 })).to.deep.equal([
      { dimension: 'day', bucket: 1 },
      { dimension: 'hour', bucket: 25 },
      { dimension: 'size', bucket: sizeBucket(100) },
    ]);
  });

  it('covers a time range with whole days, whole hours beside them and at most two exact ends', () => {
    const day = 20_000 * DAY_MS;
    const cover = coverTimeRange({ from: day - HOUR_MS - 5, to: day + 3 * DAY_MS + 2 * HOUR_MS + 7 });
    expect(cover.sums).to.deep.equal([
      { dimension: 'day', from: 20_000, to: 20_002 },
      { dimension: 'hour', from: 20_000 * 24 - 1, to: 20_000 * 24 - 1 },
      { dimension: 'hour', from: 20_003 * 24, to: 20_003 * 24 + 1 },
    ]);
    expect(cover.exact).to.deep.equal([
      { from: day - HOUR_MS - 5, to: day - HOUR_MS - 1 },
      { from: day + 3 * DAY_MS + 2 * HOUR_MS, to: day + 3 * DAY_MS + 2 * HOUR_MS + 7 },
    ]);
    expect(coverTimeRange({ to: day - 1 })).to.deep.equal({ sums: [{ dimension: 'day', from: undefined, to: 19_999 }], exact: [] });
    expect(coverTimeRange({ from: day + 1, to: day + 1 })).to.deep.equal({ sums: [], exact: [{ from: day + 1, to: day + 1 }] });
  });

  it('covers every time range exactly once: a time is in one part if it is in the range, in none otherwise', () => {
    const time = fc.integer({ min: -5 * DAY_MS, max: 5 * DAY_MS });
    const end = fc.option(time, { nil: undefined });
    fc.assert(
      fc.property(end, end, fc.array(time, { maxLength: 20 }), (from, to, values) => {
        fc.pre(from === undefined || to === undefined || from <= to);
        const cover = coverTimeRange({ from, to });
        expect(cover.exact.length).to.be.at.most(2);
        for (const value of [...values, ...[from, to].flatMap((x) => (x === undefined ? [] : [x - 1, x, x + 1]))]) {
          const inRange = (from === undefined || value >= from) && (to === undefined || value <= to);
          expect(partsHolding(cover, value, timeBucket), `${value} in [${from}, ${to}]`).to.equal(inRange ? 1 : 0);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('covers every size range exactly once, with at most one exact part at each end inside one class', () => {
    const size = fc.oneof(fc.integer({ min: 0, max: 5000 }), fc.integer({ min: 0, max: 2 ** 45 }));
    const end = fc.option(size, { nil: undefined });
    fc.assert(
      fc.property(end, end, fc.array(size, { maxLength: 20 }), (from, to, values) => {
        fc.pre(from === undefined || to === undefined || from <= to);
        const cover = coverSizeRange({ from, to });
        expect(cover.exact.length).to.be.at.most(2);
        for (const part of cover.exact) expect(sizeBucket(part.to!) - sizeBucket(part.from!)).to.be.at.most(1);
        for (const value of [...values, ...[from, to].flatMap((x) => (x === undefined ? [] : [x - 1, x, x + 1].filter((v) => v >= 0)))]) {
          const inRange = (from === undefined || value >= from) && (to === undefined || value <= to);
          expect(partsHolding(cover, value, (_, v) => sizeBucket(v)), `${value} in [${from}, ${to}]`).to.equal(inRange ? 1 : 0);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
