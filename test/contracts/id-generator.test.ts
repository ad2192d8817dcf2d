import { expect } from 'chai';
import { NodeIdGenerator } from '../../adapters/crypto/node-id-generator.js';
import { NodeSecretDigest } from '../../adapters/crypto/node-secret-digest.js';
import { SystemClock } from '../../adapters/crypto/system-clock.js';
import { FixedClock } from '../support/fixed-clock.js';

describe('NodeIdGenerator', () => {
  const ids = new NodeIdGenerator();

  it('makes lower-case version 7 UUIDs (RFC 9562 §5.7) that carry the time they were made', () => {
    for (let i = 0; i < 100; i++) {
      const before = Date.now();
      const id = ids.uuid();
      expect(id).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      const ms = Number.parseInt(id.replace(/-/g, '').slice(0, 12), 16);
      expect(ms).to.be.within(before, Date.now());
    }
  });

  it('makes UUIDs that sort in the order they were made, from one millisecond to the next', async () => {
    const made: string[] = [];
    for (let i = 0; i < 5; i++) {
      made.push(ids.uuid());
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    expect([...made].sort()).to.deep.equal(made);
  });

  it('makes base62 strings of the requested length', () => {
    for (const length of [0, 1, 12, 22, 43, 200]) {
      const value = ids.base62(length);
      expect(value).to.have.length(length);
      expect(value).to.match(/^[0-9A-Za-z]*$/);
    }
  });

  it('never repeats itself over 1000 ids', () => {
    expect(new Set(Array.from({ length: 1000 }, () => ids.uuid())).size).to.equal(1000);
    expect(new Set(Array.from({ length: 1000 }, () => ids.base62(12))).size).to.equal(1000);
  });

  it('draws every base62 character, roughly evenly', () => {
    const counts = new Map<string, number>();
    for (const character of ids.base62(62_000)) counts.set(character, (counts.get(character) ?? 0) + 1);
    expect(counts.size).to.equal(62);
    // Expected 1000 each; a modulo bias on raw bytes would push the first 8 characters to about 1250.
    for (const [character, count] of counts) expect(count, character).to.be.within(820, 1180);
  });

  it('refuses a negative or fractional length', () => {
    expect(() => ids.base62(-1)).to.throw();
    expect(() => ids.base62(1.5)).to.throw();
  });
});

describe('NodeSecretDigest', () => {
  const digest = new NodeSecretDigest();

  it('computes SHA-256 as lower-case hex (FIPS 180-4 test vectors)', () => {
    expect(digest.sha256('abc')).to.equal('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(digest.sha256('')).to.equal('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });

  it('hashes the UTF-8 bytes of the secret', () => {
    expect(digest.sha256('é')).to.equal(digest.sha256('\u0065\u0301'.normalize('NFC')));
    expect(digest.sha256('é')).to.not.equal(digest.sha256('\u0065\u0301'));
  });

  it('compares equal strings as equal and different ones as different', () => {
    const hash = digest.sha256('secret');
    expect(digest.equals(hash, digest.sha256('secret'))).to.equal(true);
    expect(digest.equals(hash, digest.sha256('Secret'))).to.equal(false);
    expect(digest.equals('', '')).to.equal(true);
  });

  it('answers false for strings of different lengths', () => {
    expect(digest.equals('abc', 'abcd')).to.equal(false);
    expect(digest.equals('abc', '')).to.equal(false);
  });
});

describe('SystemClock', () => {
  it('tells the current time', () => {
    const before = Date.now();
    const now = new SystemClock().now().getTime();
    expect(now).to.be.within(before, Date.now());
  });
});

describe('FixedClock', () => {
  it('starts at 2026-01-01T00:00:00.000Z by default, advances and can be set', () => {
    const clock = new FixedClock();
    expect(clock.now().toISOString()).to.equal('2026-01-01T00:00:00.000Z');
    clock.advance(90_000);
    expect(clock.now().toISOString()).to.equal('2026-01-01T00:01:30.000Z');
    clock.set(new Date('2027-06-01T12:00:00.000Z'));
    expect(clock.now().toISOString()).to.equal('2027-06-01T12:00:00.000Z');
  });

  it('hands out copies, so mutating one does not move the clock', () => {
    const clock = new FixedClock();
    clock.now().setTime(0);
    expect(clock.now().toISOString()).to.equal('2026-01-01T00:00:00.000Z');
  });
});
