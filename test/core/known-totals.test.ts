import { expect } from 'chai';
import { KnownTotals } from '../../core/files/known-totals.js';

const LIMITS = { storageLimitBytes: 10_000, fileCountLimit: 10 };
const UPLOAD_LIMIT = 1_000;

describe('KnownTotals', () => {
  it('knows nothing of an account it never read', () => {
    expect(new KnownTotals().roomy('alice', LIMITS, UPLOAD_LIMIT, 0)).to.equal(undefined);
  });

  it('answers the totals read, plus this process’s uploads since, while they leave a file and a whole upload of room', () => {
    const known = new KnownTotals();
    known.learned('alice', { storageBytes: 7_000, filesCount: 5 }, 0);
    expect(known.roomy('alice', LIMITS, UPLOAD_LIMIT, 1)).to.deep.equal({ storageBytes: 7_000, filesCount: 5 });
    known.added('alice', 2_000);
    expect(known.roomy('alice', LIMITS, UPLOAD_LIMIT, 2)).to.deep.equal({ storageBytes: 9_000, filesCount: 6 });
    // 999 bytes left: less than a whole upload, so the upload must read.
    known.added('alice', 1);
    expect(known.roomy('alice', LIMITS, UPLOAD_LIMIT, 3)).to.equal(undefined);
  });

  it('counts reservations of unfinished resumable uploads as used', () => {
    const known = new KnownTotals();
    known.learned('alice', { storageBytes: 0, filesCount: 0, reservedBytes: 9_500, reservedFiles: 1 }, 0);
    expect(known.roomy('alice', LIMITS, UPLOAD_LIMIT, 0)).to.equal(undefined);
    known.learned('bob', { storageBytes: 0, filesCount: 0, reservedBytes: 0, reservedFiles: 10 }, 0);
    expect(known.roomy('bob', LIMITS, UPLOAD_LIMIT, 0)).to.equal(undefined);
    known.learned('carol', { storageBytes: 0, filesCount: 8, reservedBytes: 9_000, reservedFiles: 1 }, 0);
    expect(known.roomy('carol', LIMITS, UPLOAD_LIMIT, 0)).to.deep.include({ filesCount: 8 });
  });

  it('judges room by the limits given now (a plan changed since the read)', () => {
    const known = new KnownTotals();
    known.learned('alice', { storageBytes: 5_000, filesCount: 5 }, 0);
    expect(known.roomy('alice', LIMITS, UPLOAD_LIMIT, 0)).to.not.equal(undefined);
    expect(known.roomy('alice', { storageLimitBytes: 5_500, fileCountLimit: 10 }, UPLOAD_LIMIT, 0)).to.equal(undefined);
    expect(known.roomy('alice', { storageLimitBytes: 10_000, fileCountLimit: 5 }, UPLOAD_LIMIT, 0)).to.equal(undefined);
  });

  it('forgets an account after the max age (10 s by default), or when the clock went back', () => {
    const known = new KnownTotals();
    known.learned('alice', { storageBytes: 0, filesCount: 0 }, 50_000);
    expect(known.roomy('alice', LIMITS, UPLOAD_LIMIT, 60_000)).to.not.equal(undefined);
    expect(known.roomy('alice', LIMITS, UPLOAD_LIMIT, 60_001)).to.equal(undefined);
    known.learned('bob', { storageBytes: 0, filesCount: 0 }, 50_000);
    expect(known.roomy('bob', LIMITS, UPLOAD_LIMIT, 49_999)).to.equal(undefined);
    // Forgotten, not only refused: learning again starts from the new read.
    expect(known.roomy('bob', LIMITS, UPLOAD_LIMIT, 50_000)).to.equal(undefined);
  });

  it('forgets an account when told (an insert refused an upload)', () => {
    const known = new KnownTotals();
    known.learned('alice', { storageBytes: 0, filesCount: 0 }, 0);
    known.forget('alice');
    expect(known.roomy('alice', LIMITS, UPLOAD_LIMIT, 0)).to.equal(undefined);
    known.added('alice', 100);
    expect(known.roomy('alice', LIMITS, UPLOAD_LIMIT, 0)).to.equal(undefined);
  });

  it('keeps at most `capacity` accounts, forgetting the one learned longest ago', () => {
    const known = new KnownTotals({ capacity: 2 });
    known.learned('alice', { storageBytes: 0, filesCount: 0 }, 0);
    known.learned('bob', { storageBytes: 0, filesCount: 0 }, 0);
    known.learned('alice', { storageBytes: 0, filesCount: 1 }, 1);
    known.learned('carol', { storageBytes: 0, filesCount: 0 }, 2);
    expect(known.roomy('bob', LIMITS, UPLOAD_LIMIT, 3)).to.equal(undefined);
    expect(known.roomy('alice', LIMITS, UPLOAD_LIMIT, 3)).to.deep.equal({ storageBytes: 0, filesCount: 1 });
    expect(known.roomy('carol', LIMITS, UPLOAD_LIMIT, 3)).to.not.equal(undefined);
  });
});
