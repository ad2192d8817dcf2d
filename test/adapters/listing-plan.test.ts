import { expect } from 'chai';
import { chooseListingWay } from '../../adapters/persistence/sql/listing-plan.js';

describe('chooseListingWay (how SQLite finds a filtered page)', () => {
  const files = 1_000_000;

  it('walks in list order when matches are common: the page is found after a few entries', () => {
    // 300,000 matches: the first page of 30 is among the first ~100 files walked.
    expect(chooseListingWay({ accountFiles: files, matches: 300_000, atLeast: false, wanted: 30 })).to.equal('list-order');
  });

  it('reads the filter\'s index when matches are rare: walking would pass most of the account', () => {
    expect(chooseListingWay({ accountFiles: files, matches: 12, atLeast: false, wanted: 30 })).to.equal('index');
    expect(chooseListingWay({ accountFiles: files, matches: 5_000, atLeast: false, wanted: 30 })).to.equal('index');
  });

  it('switches where walking passes as many entries as the index reads: wanted × files = matches²', () => {
    // 30 × 1,000,000 = 30,000,000 ≈ 5,478²
    expect(chooseListingWay({ accountFiles: files, matches: 5_477, atLeast: false, wanted: 30 })).to.equal('index');
    expect(chooseListingWay({ accountFiles: files, matches: 5_478, atLeast: false, wanted: 30 })).to.equal('list-order');
  });

  it('reads the index for a deep page of matches that a walk would reach only far down the list', () => {
    expect(chooseListingWay({ accountFiles: files, matches: 9_000, atLeast: false, wanted: 3_030 })).to.equal('index');
    expect(chooseListingWay({ accountFiles: files, matches: 9_000, atLeast: false, wanted: 30 })).to.equal('list-order');
  });

  it('walks whenever only a bound of the matches is known: the walk is bounded, the index is not', () => {
    expect(chooseListingWay({ accountFiles: files, matches: 10_001, atLeast: true, wanted: 3_030 })).to.equal('list-order');
  });

  it('walks an empty account (nothing to read either way)', () => {
    expect(chooseListingWay({ accountFiles: 0, matches: 0, atLeast: false, wanted: 30 })).to.equal('list-order');
  });
});
