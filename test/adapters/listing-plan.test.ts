import { expect } from 'chai';
import { cheaperIndex, chooseCountWay, choosePageWay, ENTRIES_PER_MATCH, walkShareOf } from '../../adapters/persistence/sql/listing-plan.js';

describe('listing-plan: how SQLite answers a filtered listing', () => {
  const files = 1_000_000;

  describe('choosePageWay', () => {
    it('walks in list order when matches are common: the page is among the first files walked', () => {
      expect(choosePageWay({ accountFiles: files, matches: 300_000, atLeast: false, wanted: 30 })).to.equal('list-order');
    });

    it("reads the filter's index when matches are rare: a walk would pass most of the account", () => {
      expect(choosePageWay({ accountFiles: files, matches: 12, atLeast: false, wanted: 30 })).to.equal('index');
      expect(choosePageWay({ accountFiles: files, matches: 1_000, atLeast: false, wanted: 30 })).to.equal('index');
    });

    it('switches where the walk passes as many entries as the matches read cost: wanted × files = ENTRIES_PER_MATCH × matches²', () => {
      const even = Math.sqrt((30 * files) / ENTRIES_PER_MATCH);
      expect(choosePageWay({ accountFiles: files, matches: Math.floor(even) - 1, atLeast: false, wanted: 30 })).to.equal('index');
      expect(choosePageWay({ accountFiles: files, matches: Math.ceil(even), atLeast: false, wanted: 30 })).to.equal('list-order');
    });

    it('reads the index for a deep page that a walk would reach only far down the list', () => {
      expect(choosePageWay({ accountFiles: files, matches: 5_000, atLeast: false, wanted: 3_030 })).to.equal('index');
      expect(choosePageWay({ accountFiles: files, matches: 5_000, atLeast: false, wanted: 30 })).to.equal('list-order');
    });

    it('walks when the trigram index would read many more files than match: a common needle narrowed by other filters', () => {
      // 500 matches, but 50,000 files hold the needle: the walk passes ~60,000 entries, the index reads 50,000 files.
      expect(choosePageWay({ accountFiles: files, matches: 500, atLeast: false, wanted: 30, index: { entries: 0, reads: 50_000 } })).to.equal('list-order');
      expect(choosePageWay({ accountFiles: files, matches: 500, atLeast: false, wanted: 30, index: { entries: 0, reads: 500 } })).to.equal('index');
    });

    it('reads a size range for a deep page, and walks for the first one when the range is wide', () => {
      // 3,000 matches in a range of 60,000 files: the first page is 10,000 entries walked against
      // 60,000 entries and 3,000 rows; page 101 is 1,000,000 entries walked against the same.
      const sizeRange = { entries: 60_000, reads: 0 };
      expect(choosePageWay({ accountFiles: files, matches: 3_000, atLeast: false, wanted: 30, index: sizeRange })).to.equal('list-order');
      expect(choosePageWay({ accountFiles: files, matches: 3_000, atLeast: false, wanted: 3_030, index: sizeRange })).to.equal('index');
    });

    it('walks a content type or visibility on its own list-order index: the walk passes only that share of the account', () => {
      // 500 matches among 100,000 private files: the walk passes 6,000 entries, not 60,000.
      expect(choosePageWay({ accountFiles: files, matches: 500, atLeast: false, wanted: 30, index: { entries: 0, reads: 50_000 }, walkShare: 0.1 })).to.equal(
        'list-order',
      );
      expect(choosePageWay({ accountFiles: files, matches: 500, atLeast: false, wanted: 30, walkShare: 1 })).to.equal('index');
      expect(choosePageWay({ accountFiles: files, matches: 500, atLeast: false, wanted: 30, walkShare: 0.001 })).to.equal('list-order');
    });

    it('walks whenever only a bound of the matches is known: the walk is bounded, the index is not', () => {
      expect(choosePageWay({ accountFiles: files, matches: 10_001, atLeast: true, wanted: 3_030 })).to.equal('list-order');
    });

    it('walks an empty account', () => {
      expect(choosePageWay({ accountFiles: 0, matches: 0, atLeast: false, wanted: 30 })).to.equal('list-order');
    });
  });

  describe('chooseCountWay', () => {
    const sampleSize = 1_000;
    const bounded = { accountFiles: files, sampled: sampleSize, countLimit: 10_000 };

    it('counts a needle none of the newest files holds by the trigram index', () => {
      expect(chooseCountWay({ ...bounded, needleMatches: 0, matches: 0 }, sampleSize)).to.equal('index');
    });

    it('counts a rare needle (1 % of the files) by the trigram index', () => {
      expect(chooseCountWay({ ...bounded, needleMatches: 10, matches: 10 }, sampleSize)).to.equal('index');
    });

    it('walks a common needle (10 % of the files): the bound is reached after 100,000 entries, cheaper than reading 100,000 matches', () => {
      expect(chooseCountWay({ ...bounded, needleMatches: 100, matches: 100 }, sampleSize)).to.equal('list-order');
    });

    it('reads the index for a common needle that other filters make rare, unless the walk is cheaper still', () => {
      // 4 % hold the needle, 0.1 % pass every filter: the walk would pass the whole account.
      expect(chooseCountWay({ ...bounded, needleMatches: 40, matches: 1 }, sampleSize)).to.equal('index');
      // 30 % hold the needle: reading them costs more than walking the whole account.
      expect(chooseCountWay({ ...bounded, needleMatches: 300, matches: 1 }, sampleSize)).to.equal('list-order');
    });

    it('walks without a bound when the needle is common, since the index would read nearly every file', () => {
      expect(chooseCountWay({ ...bounded, countLimit: undefined, needleMatches: 100, matches: 100 }, sampleSize)).to.equal('list-order');
      expect(chooseCountWay({ ...bounded, countLimit: undefined, needleMatches: 10, matches: 10 }, sampleSize)).to.equal('index');
    });

    it("walks when the listing's range holds fewer files than the sample: no more to pass", () => {
      expect(chooseCountWay({ ...bounded, sampled: 400, needleMatches: 0, matches: 0 }, sampleSize)).to.equal('list-order');
    });

    it('walks the size range on its index for a common needle narrowed by a rare size range', () => {
      // 5 % hold the needle, 6 % are in the range, 0.3 % both: the walk passes the whole account
      // (1,000,000 entries), the trigram index reads 50,000 rows (1,000,000 entries' worth), the
      // size range is 60,000 entries.
      const narrowed = { ...bounded, needleMatches: 50, sizeRangeMatches: 60, matches: 3 };
      expect(chooseCountWay(narrowed, sampleSize)).to.equal('size-range');
      expect(cheaperIndex(narrowed)).to.deep.equal({ way: 'size-range', entries: 60_000, reads: 0 });
      // Without a size range: the trigram index costs as much as the walk, which is taken.
      expect(chooseCountWay({ ...narrowed, sizeRangeMatches: undefined }, sampleSize)).to.equal('list-order');
      // A rare needle (1 %) with a wide range (70 %): the trigram index.
      expect(chooseCountWay({ ...bounded, needleMatches: 10, sizeRangeMatches: 700, matches: 7 }, sampleSize)).to.equal('index');
      // A common needle with a common range: the bound is reached soonest walking.
      expect(chooseCountWay({ ...bounded, needleMatches: 300, sizeRangeMatches: 300, matches: 90 }, sampleSize)).to.equal('list-order');
    });

    it('walks a rare content type for a common needle: the walk passes only the files of that type', () => {
      // 4 % hold the needle, 1 % are of the type, 0.1 % both: the account's walk costs 1,000,000
      // entries, the trigram index 800,000 entries' worth, the type's list-order index 10,000.
      const rareType = { ...bounded, needleMatches: 40, walkedMatches: 10, matches: 1 };
      expect(walkShareOf(rareType)).to.equal(0.01);
      expect(chooseCountWay(rareType, sampleSize)).to.equal('list-order');
      expect(chooseCountWay({ ...rareType, walkedMatches: undefined }, sampleSize)).to.equal('index');
      expect(walkShareOf({ sampled: 0, walkedMatches: 0 })).to.equal(1);
    });

    it('walks the size range for a needle of 1–2 code points with a rare size range, and the account without one', () => {
      const short = { ...bounded, trigram: false, needleMatches: 300, matches: 1 };
      expect(chooseCountWay({ ...short, sizeRangeMatches: 3 }, sampleSize)).to.equal('size-range');
      expect(cheaperIndex(short)).to.equal(undefined);
      expect(chooseCountWay(short, sampleSize)).to.equal('list-order');
    });

    it('gives the trigram index the page when no size range narrows it, and on a tie', () => {
      expect(cheaperIndex({ ...bounded, needleMatches: 20, matches: 1 })).to.deep.equal({ way: 'index', entries: 0, reads: 20_000 });
      expect(cheaperIndex({ ...bounded, sampled: 0, needleMatches: 0, sizeRangeMatches: 0, matches: 0 })).to.deep.equal({ way: 'index', entries: 0, reads: 0 });
    });
  });
});
