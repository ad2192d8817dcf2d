import { expect } from 'chai';
import { DAY_MS, type PeriodCounts, type UsageRepository } from '../../core/index.js';
import { createMemoryHangar, expectDomainError, gate } from '../support/memory-hangar.js';

/** A UsageRepository whose `add` can be made to fail or to wait; it counts the calls. */
class ControlledUsageRepository implements UsageRepository {
  failures = 0;
  hold: Promise<void> | undefined;
  adds = 0;
  constructor(private readonly inner: UsageRepository) {}
  async add(entries: Parameters<UsageRepository['add']>[0]): Promise<void> {
    this.adds++;
    if (this.hold) await this.hold;
    if (this.failures > 0) {
      this.failures--;
      throw new Error('database is down');
    }
    await this.inner.add(entries);
    if (this.commitHold) await this.commitHold;
  }
  /** When set, `add` writes the counts at once but returns only once this settles (committed, not yet acknowledged). */
  commitHold: Promise<void> | undefined;
  /** When set, `get` reads the counts at once but answers only once this settles (a read that overlaps a write). */
  readHold: Promise<void> | undefined;
  takeImageOp(options: Parameters<UsageRepository['takeImageOp']>[0]): Promise<boolean> {
    return this.inner.takeImageOp(options);
  }
  async get(options: { userId: string; periodStart: Date }): Promise<PeriodCounts> {
    const counts = await this.inner.get(options);
    if (this.readHold) await this.readHold;
    return counts;
  }
}

/** The first billing period of an account created at START (2025-03-01T12:00Z). */
const MARCH = { start: new Date('2025-03-01T00:00:00.000Z'), end: new Date('2025-04-01T00:00:00.000Z') };
const APRIL = { start: MARCH.end, end: new Date('2025-05-01T00:00:00.000Z') };

/** Alice with one public and one private file, Bob with one public file. */
async function withFiles(replacePorts?: Parameters<typeof createMemoryHangar>[1]) {
  const world = createMemoryHangar({}, replacePorts);
  const alice = await world.registerConfirmed('alice@example.com');
  const bob = await world.registerConfirmed('bob@example.com');
  const shown = (await world.upload(alice.userId, { size: 100 })).file;
  const hidden = (await world.upload(alice.userId, { size: 50, isPublic: false })).file;
  const bobs = (await world.upload(bob.userId, { size: 10 })).file;
  const read = (fileId: string) => world.hangar.readPublicFile.execute({ fileId });
  const reads = async (userId: string) => (await world.usage(userId)).originReads;
  const written = (userId: string, periodStart: Date) => world.repos.usage.get({ userId, periodStart });
  return { ...world, alice, bob, shown, hidden, bobs, read, reads, written };
}

describe('GetUsage', () => {
  it('reports totals, zero counters and the period for a new account', async () => {
    const world = createMemoryHangar();
    const alice = await world.registerConfirmed('alice@example.com');
    expect(await world.usage(alice.userId)).to.deep.equal({
      storageBytes: 0,
      filesCount: 0,
      originReads: 0,
      imageOps: 0,
      periodStart: MARCH.start,
      periodEnd: MARCH.end,
    });
  });

  it('reports current storage and file totals', async () => {
    const { usage, alice, bob } = await withFiles();
    const mine = await usage(alice.userId);
    expect({ storageBytes: mine.storageBytes, filesCount: mine.filesCount }).to.deep.equal({ storageBytes: 150, filesCount: 2 });
    const bobs = await usage(bob.userId);
    expect({ storageBytes: bobs.storageBytes, filesCount: bobs.filesCount }).to.deep.equal({ storageBytes: 10, filesCount: 1 });
  });

  it('refuses an account that no longer exists with UNAUTHORIZED', async () => {
    const { hangar } = createMemoryHangar();
    await expectDomainError(hangar.getUsage.execute({ userId: '00000000-0000-4000-8000-000000000000' }), 'UNAUTHORIZED');
  });

  describe('billing period', () => {
    it('keeps period_start ≤ now < period_end across the monthly rollover', async () => {
      const { usage, alice, clock } = await withFiles();
      clock.set(new Date(MARCH.end.getTime() - 1));
      const last = await usage(alice.userId);
      expect([last.periodStart, last.periodEnd]).to.deep.equal([MARCH.start, MARCH.end]);
      clock.set(MARCH.end);
      const next = await usage(alice.userId);
      expect([next.periodStart, next.periodEnd]).to.deep.equal([APRIL.start, APRIL.end]);
    });

    it('anchors on the creation day and clamps: created Jan 31 → Feb 29 → Mar 31 (2024)', async () => {
      const world = createMemoryHangar();
      world.clock.set(new Date('2024-01-31T18:30:00.000Z'));
      const alice = await world.registerConfirmed('alice@example.com');
      const periodAt = async (iso: string) => {
        world.clock.set(new Date(iso));
        const { periodStart, periodEnd } = await world.usage(alice.userId);
        return [periodStart.toISOString(), periodEnd.toISOString()];
      };
      expect(await periodAt('2024-01-31T18:30:00.000Z')).to.deep.equal(['2024-01-31T00:00:00.000Z', '2024-02-29T00:00:00.000Z']);
      expect(await periodAt('2024-02-28T23:59:59.999Z')).to.deep.equal(['2024-01-31T00:00:00.000Z', '2024-02-29T00:00:00.000Z']);
      expect(await periodAt('2024-02-29T00:00:00.000Z')).to.deep.equal(['2024-02-29T00:00:00.000Z', '2024-03-31T00:00:00.000Z']);
      expect(await periodAt('2024-03-31T00:00:00.000Z')).to.deep.equal(['2024-03-31T00:00:00.000Z', '2024-04-30T00:00:00.000Z']);
    });

    it('clamps to Feb 28 in a common year (created 2025-01-31)', async () => {
      const world = createMemoryHangar();
      world.clock.set(new Date('2025-01-31T09:00:00.000Z'));
      const alice = await world.registerConfirmed('alice@example.com');
      world.clock.set(new Date('2025-03-01T00:00:00.000Z'));
      const { periodStart, periodEnd } = await world.usage(alice.userId);
      expect([periodStart.toISOString(), periodEnd.toISOString()]).to.deep.equal(['2025-02-28T00:00:00.000Z', '2025-03-31T00:00:00.000Z']);
    });
  });

  describe('origin reads', () => {
    it('counts each public read once, for the file’s owner, visible at once', async () => {
      const { read, reads, shown, bobs, alice, bob } = await withFiles();
      expect(await reads(alice.userId)).to.equal(0);
      await read(shown.fileId);
      await read(shown.fileId);
      await read(shown.fileId);
      await read(bobs.fileId);
      expect(await reads(alice.userId)).to.equal(3);
      expect(await reads(bob.userId)).to.equal(1);
    });

    it('counts a read whose bytes are opened several times (ranges) once', async () => {
      const { read, reads, shown, alice } = await withFiles();
      const found = await read(shown.fileId);
      await found.open({ start: 0, end: 9 });
      await found.open({ start: 10, end: 19 });
      await found.open();
      expect(await reads(alice.userId)).to.equal(1);
    });

    it('does not count private, missing, malformed or deleted files', async () => {
      const { hangar, read, reads, shown, hidden, alice } = await withFiles();
      await expectDomainError(read(hidden.fileId), 'FILE_NOT_FOUND');
      await expectDomainError(read('AAAAAAAAAA'), 'FILE_NOT_FOUND');
      await expectDomainError(read('not-an-id'), 'FILE_NOT_FOUND');
      await hangar.deleteFile.execute({ userId: alice.userId, fileId: shown.fileId });
      await expectDomainError(read(shown.fileId), 'FILE_NOT_FOUND');
      expect(await reads(alice.userId)).to.equal(0);
      await hangar.usageMeter.flush();
      expect(await reads(alice.userId)).to.equal(0);
    });

    it('writes the counts on flush into the account’s period row, and reports the same number after it', async () => {
      const { hangar, read, reads, written, shown, bobs, alice, bob } = await withFiles();
      for (let i = 0; i < 3; i++) await read(shown.fileId);
      await read(bobs.fileId);
      expect(await written(alice.userId, MARCH.start)).to.deep.equal({ originReads: 0, imageOps: 0 });
      await hangar.usageMeter.flush();
      expect(await written(alice.userId, MARCH.start)).to.deep.equal({ originReads: 3, imageOps: 0 });
      expect(await written(bob.userId, MARCH.start)).to.deep.equal({ originReads: 1, imageOps: 0 });
      expect(await reads(alice.userId)).to.equal(3);
      await read(shown.fileId);
      expect(await reads(alice.userId)).to.equal(4);
      await hangar.usageMeter.flush();
      expect(await written(alice.userId, MARCH.start)).to.deep.equal({ originReads: 4, imageOps: 0 });
      expect(await reads(alice.userId)).to.equal(4);
    });

    it('a flush with nothing recorded writes nothing and changes nothing', async () => {
      const { hangar, reads, written, alice } = await withFiles();
      await hangar.usageMeter.flush();
      await hangar.usageMeter.flush();
      expect(await written(alice.userId, MARCH.start)).to.deep.equal({ originReads: 0, imageOps: 0 });
      expect(await reads(alice.userId)).to.equal(0);
    });

    it('starts a new period at zero, keeping the old period’s row', async () => {
      const { hangar, read, reads, written, usage, shown, alice, clock } = await withFiles();
      await read(shown.fileId);
      await read(shown.fileId);
      await hangar.usageMeter.flush();
      clock.set(new Date(MARCH.end.getTime() - 1));
      await read(shown.fileId);
      expect(await reads(alice.userId)).to.equal(3);
      clock.set(MARCH.end);
      const april = await usage(alice.userId);
      expect(april.originReads).to.equal(0);
      expect({ storageBytes: april.storageBytes, filesCount: april.filesCount }).to.deep.equal({ storageBytes: 150, filesCount: 2 });
      await read(shown.fileId);
      expect(await reads(alice.userId)).to.equal(1);
      await hangar.usageMeter.flush();
      expect(await written(alice.userId, MARCH.start)).to.deep.equal({ originReads: 3, imageOps: 0 });
      expect(await written(alice.userId, APRIL.start)).to.deep.equal({ originReads: 1, imageOps: 0 });
      expect(await reads(alice.userId)).to.equal(1);
    });

    it('files a read recorded before the rollover but flushed after it under the old period', async () => {
      const { hangar, read, reads, written, shown, alice, clock } = await withFiles();
      clock.set(new Date(MARCH.end.getTime() - 1000));
      await read(shown.fileId);
      clock.set(new Date(MARCH.end.getTime() + 1000));
      expect(await reads(alice.userId)).to.equal(0);
      await hangar.usageMeter.flush();
      expect(await written(alice.userId, MARCH.start)).to.deep.equal({ originReads: 1, imageOps: 0 });
      expect(await written(alice.userId, APRIL.start)).to.deep.equal({ originReads: 0, imageOps: 0 });
    });

    it('counts image operations per period the same way', async () => {
      const { hangar, usage, written, alice } = await withFiles();
      hangar.usageMeter.recordImageOp(alice.userId);
      hangar.usageMeter.recordImageOp(alice.userId);
      expect((await usage(alice.userId)).imageOps).to.equal(2);
      await hangar.usageMeter.flush();
      expect(await written(alice.userId, MARCH.start)).to.deep.equal({ originReads: 0, imageOps: 2 });
      expect((await usage(alice.userId)).imageOps).to.equal(2);
    });
  });

  describe('when writing the counts fails', () => {
    it('keeps them (still reported) and writes them, once, on the next flush', async () => {
      let usageRepo!: ControlledUsageRepository;
      const world = await withFiles((ports) => ({ usage: (usageRepo = new ControlledUsageRepository(ports.usage)) }));
      const { hangar, read, reads, written, shown, alice } = world;
      await read(shown.fileId);
      await read(shown.fileId);
      usageRepo.failures = 1;
      let failure: unknown;
      await hangar.usageMeter.flush().catch((error) => (failure = error));
      expect(failure).to.be.instanceOf(Error).with.property('message', 'database is down');
      expect(await written(alice.userId, MARCH.start)).to.deep.equal({ originReads: 0, imageOps: 0 });
      expect(await reads(alice.userId)).to.equal(2);
      await read(shown.fileId);
      await hangar.usageMeter.flush();
      expect(await written(alice.userId, MARCH.start)).to.deep.equal({ originReads: 3, imageOps: 0 });
      expect(await reads(alice.userId)).to.equal(3);
      await hangar.usageMeter.flush();
      expect(await written(alice.userId, MARCH.start)).to.deep.equal({ originReads: 3, imageOps: 0 });
    });

    it('keeps reads recorded while the failing write was under way', async () => {
      let usageRepo!: ControlledUsageRepository;
      const world = await withFiles((ports) => ({ usage: (usageRepo = new ControlledUsageRepository(ports.usage)) }));
      const { hangar, read, reads, written, shown, alice } = world;
      await read(shown.fileId);
      const held = gate();
      usageRepo.hold = held.promise;
      usageRepo.failures = 1;
      const flushing = hangar.usageMeter.flush().catch(() => 'failed');
      await read(shown.fileId);
      held.open();
      expect(await flushing).to.equal('failed');
      usageRepo.hold = undefined;
      await hangar.usageMeter.flush();
      expect(await written(alice.userId, MARCH.start)).to.deep.equal({ originReads: 2, imageOps: 0 });
      expect(await reads(alice.userId)).to.equal(2);
    });
  });

  describe('while a flush is under way', () => {
    for (const outcome of ['succeeds', 'fails'] as const) {
      it(`reports the reads being written once, when the write ${outcome} (the answer waits for the running write)`, async () => {
        let usageRepo!: ControlledUsageRepository;
        const world = await withFiles((ports) => ({ usage: (usageRepo = new ControlledUsageRepository(ports.usage)) }));
        const { hangar, read, reads, shown, alice } = world;
        await read(shown.fileId);
        await read(shown.fileId);
        const held = gate();
        usageRepo.hold = held.promise;
        if (outcome === 'fails') usageRepo.failures = 1;
        const flushing = hangar.usageMeter.flush().catch(() => 'failed');
        await new Promise((resolve) => setTimeout(resolve, 10));
        expect(usageRepo.adds, 'the flush has reached UsageRepository.add').to.equal(1);
        const reported = reads(alice.userId);
        await read(shown.fileId);
        await new Promise((resolve) => setTimeout(resolve, 10));
        held.open();
        expect(await flushing).to.equal(outcome === 'fails' ? 'failed' : undefined);
        expect(await reported).to.equal(3);
        expect(await reads(alice.userId)).to.equal(3);
      });
    }

    it('counts a batch once when its write ends while the stored counts are being read', async () => {
      let usageRepo!: ControlledUsageRepository;
      const world = await withFiles((ports) => ({ usage: (usageRepo = new ControlledUsageRepository(ports.usage)) }));
      const { hangar, read, reads, shown, alice } = world;
      await read(shown.fileId);
      await read(shown.fileId);
      const readHeld = gate();
      usageRepo.readHold = readHeld.promise;
      // The stored counts are read (0) before the flush writes the 2 reads; the answer comes after it.
      const reported = reads(alice.userId);
      await new Promise((resolve) => setTimeout(resolve, 10));
      await hangar.usageMeter.flush();
      usageRepo.readHold = undefined;
      readHeld.open();
      expect(await reported).to.equal(2);
    });

    it('counts a batch once when the stored counts are read after its write committed, before the write has returned', async () => {
      let usageRepo!: ControlledUsageRepository;
      const world = await withFiles((ports) => ({ usage: (usageRepo = new ControlledUsageRepository(ports.usage)) }));
      const { hangar, read, reads, written, shown, alice } = world;
      await read(shown.fileId);
      await read(shown.fileId);
      const acknowledged = gate();
      usageRepo.commitHold = acknowledged.promise;
      const flushing = hangar.usageMeter.flush();
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(await written(alice.userId, MARCH.start), 'the batch is in the database').to.deep.equal({ originReads: 2, imageOps: 0 });
      const reported = reads(alice.userId);
      await new Promise((resolve) => setTimeout(resolve, 10));
      acknowledged.open();
      await flushing;
      expect(await reported).to.equal(2);
      expect(await reads(alice.userId)).to.equal(2);
    });

    it('a flush called during another writes the reads recorded since, before it resolves (shutdown)', async () => {
      let usageRepo!: ControlledUsageRepository;
      const world = await withFiles((ports) => ({ usage: (usageRepo = new ControlledUsageRepository(ports.usage)) }));
      const { hangar, read, written, shown, alice } = world;
      await read(shown.fileId);
      const held = gate();
      usageRepo.hold = held.promise;
      const timerFlush = hangar.usageMeter.flush();
      await new Promise((resolve) => setTimeout(resolve, 10));
      await read(shown.fileId);
      const shutdownFlush = hangar.usageMeter.flush();
      held.open();
      await Promise.all([timerFlush, shutdownFlush]);
      expect(await written(alice.userId, MARCH.start)).to.deep.equal({ originReads: 2, imageOps: 0 });
    });
  });

  it('counts reads of each day of a period into that period (a read every day of March)', async () => {
    const { hangar, read, reads, written, shown, alice, clock } = await withFiles();
    for (let day = 0; day < 31; day++) {
      clock.set(new Date(MARCH.start.getTime() + day * DAY_MS + 12 * 3600_000));
      await read(shown.fileId);
      if (day % 10 === 9) await hangar.usageMeter.flush();
    }
    expect(await reads(alice.userId)).to.equal(31);
    await hangar.usageMeter.flush();
    expect(await written(alice.userId, MARCH.start)).to.deep.equal({ originReads: 31, imageOps: 0 });
  });
});
