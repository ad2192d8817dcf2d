import { expect } from 'chai';
import { type ActivityLogEntry, type ActivityLogRepository, DAY_MS, MINUTE_MS } from '../../core/index.js';
import { createMemoryHangar, expectDomainError, gate, START, UUID_PATTERN } from '../support/memory-hangar.js';

/** An ActivityLogRepository whose `insertMany` can be made to fail or to wait; it records the batches. */
class ControlledLogRepository implements ActivityLogRepository {
  failures = 0;
  hold: Promise<void> | undefined;
  readonly batches: number[] = [];
  constructor(private readonly inner: ActivityLogRepository) {}
  async insertMany(entries: readonly ActivityLogEntry[]): Promise<void> {
    this.batches.push(entries.length);
    if (this.hold) await this.hold;
    if (this.failures > 0) {
      this.failures--;
      throw new Error('database is down');
    }
    return this.inner.insertMany(entries);
  }
  list(options: Parameters<ActivityLogRepository['list']>[0]) {
    return this.inner.list(options);
  }
  deleteBefore(before: Date) {
    return this.inner.deleteBefore(before);
  }

  deleteForAccount(userId: string) {
    return this.inner.deleteForAccount(userId);
  }
}

async function withAccounts(...args: Parameters<typeof createMemoryHangar>) {
  const world = createMemoryHangar(...args);
  const alice = await world.registerConfirmed('alice@example.com');
  const bob = await world.registerConfirmed('bob@example.com');
  /** Records one request of `userId` now; `n` goes into the path so entries can be told apart. */
  const record = (userId: string, n: number, extra: Partial<Omit<ActivityLogEntry, 'id'>> = {}) =>
    world.hangar.activity.record({
      userId,
      method: 'GET',
      path: `/files/${n}`,
      statusCode: 200,
      requestSizeBytes: null,
      metadata: { auth: 'jwt', duration_ms: n, user_agent: 'test', ip: '127.0.0.1' },
      ...extra,
    });
  const paths = async (userId: string, page = 1, limit = 30) => {
    const result = await world.hangar.listLogs.execute({ userId, page, limit });
    return { paths: result.items.map((e) => e.path), total: result.total };
  };
  return { ...world, alice, bob, record, paths };
}

describe('Activity log', () => {
  it('pages by a stable cursor: entries logged between two pages neither repeat nor shift rows, and the last page has no cursor', async () => {
    const { hangar, alice, clock, record } = await withAccounts();
    for (let n = 1; n <= 5; n++) {
      clock.advance(1000);
      record(alice.userId, n);
    }
    await hangar.activity.flush();
    const first = await hangar.listLogs.execute({ userId: alice.userId, page: 1, limit: 2 });
    expect(first.items.map((e) => e.path)).to.deep.equal(['/files/5', '/files/4']);
    expect(first.nextCursor).to.be.a('string');
    clock.advance(1000);
    record(alice.userId, 6);
    record(alice.userId, 7);
    await hangar.activity.flush();
    const second = await hangar.listLogs.execute({ userId: alice.userId, page: 1, limit: 2, before: first.nextCursor! });
    expect(
      second.items.map((e) => e.path),
      'no row of the first page again',
    ).to.deep.equal(['/files/3', '/files/2']);
    const third = await hangar.listLogs.execute({ userId: alice.userId, page: 1, limit: 2, before: second.nextCursor! });
    expect(third.items.map((e) => e.path)).to.deep.equal(['/files/1']);
    expect(third.nextCursor).to.equal(null);
    expect(third.total).to.equal(7);
  });

  it('lists the account actions alone with kind "actions" (no reads), and refuses a cursor it did not hand out', async () => {
    const { hangar, alice, clock, record } = await withAccounts();
    for (const [n, method] of [
      [1, 'POST'],
      [2, 'GET'],
      [3, 'DELETE'],
      [4, 'HEAD'],
      [5, 'PATCH'],
    ] as const) {
      clock.advance(1000);
      record(alice.userId, n, { method });
    }
    await hangar.activity.flush();
    const actions = await hangar.listLogs.execute({ userId: alice.userId, page: 1, limit: 30, kind: 'actions' });
    expect(actions.items.map((e) => e.method)).to.deep.equal(['PATCH', 'DELETE', 'POST']);
    expect(actions.total).to.equal(3);
    expect((await hangar.listLogs.execute({ userId: alice.userId, page: 1, limit: 30, kind: 'reads' })).items.map((e) => e.method)).to.deep.equal([
      'HEAD',
      'GET',
    ]);
    for (const cursor of ['', 'abc', '123.not-a-uuid', '12.00000000-0000-4000-8000-00000000000A', `${'9'.repeat(16)}.00000000-0000-4000-8000-00000000000a`]) {
      await expectDomainError(hangar.listLogs.execute({ userId: alice.userId, page: 1, limit: 30, before: cursor }), 'INVALID_CURSOR');
    }
  });

  it('stores what was recorded, after a flush, with an id and the clock’s time', async () => {
    const { hangar, alice, clock, record } = await withAccounts();
    clock.advance(5000);
    record(alice.userId, 1, {
      method: 'POST',
      path: '/files',
      statusCode: 201,
      requestSizeBytes: 1234,
      metadata: { auth: 'api_key', api_key_id: 'k1', file_id: 'AAAAAAAAAA', duration_ms: 12, user_agent: 'curl/8', ip: '10.0.0.1' },
    });
    await hangar.activity.flush();
    const { items, total } = await hangar.listLogs.execute({ userId: alice.userId, page: 1, limit: 30 });
    expect(total).to.equal(1);
    const [entry] = items;
    expect(entry.id).to.match(UUID_PATTERN);
    expect({ ...entry, id: undefined }).to.deep.equal({
      id: undefined,
      userId: alice.userId,
      method: 'POST',
      path: '/files',
      statusCode: 201,
      requestSizeBytes: 1234,
      createdAt: new Date(START.getTime() + 5000),
      metadata: { auth: 'api_key', api_key_id: 'k1', file_id: 'AAAAAAAAAA', duration_ms: 12, user_agent: 'curl/8', ip: '10.0.0.1' },
    });
  });

  it('lists newest first with pages and the total on every page', async () => {
    const { hangar, alice, clock, record, paths } = await withAccounts();
    for (let n = 1; n <= 5; n++) {
      clock.advance(MINUTE_MS);
      record(alice.userId, n);
    }
    await hangar.activity.flush();
    expect(await paths(alice.userId)).to.deep.equal({ paths: ['/files/5', '/files/4', '/files/3', '/files/2', '/files/1'], total: 5 });
    expect(await paths(alice.userId, 1, 2)).to.deep.equal({ paths: ['/files/5', '/files/4'], total: 5 });
    expect(await paths(alice.userId, 2, 2)).to.deep.equal({ paths: ['/files/3', '/files/2'], total: 5 });
    expect(await paths(alice.userId, 3, 2)).to.deep.equal({ paths: ['/files/1'], total: 5 });
    expect(await paths(alice.userId, 4, 2)).to.deep.equal({ paths: [], total: 5 });
  });

  it('orders by created_at, not by recording order, and entries of one instant by id descending', async () => {
    const { hangar, alice, record } = await withAccounts();
    record(alice.userId, 1, { createdAt: new Date(START.getTime() + 3000) });
    record(alice.userId, 2, { createdAt: new Date(START.getTime() + 1000) });
    record(alice.userId, 3, { createdAt: new Date(START.getTime() + 2000) });
    for (let n = 4; n <= 6; n++) record(alice.userId, n, { createdAt: new Date(START.getTime() + 500) });
    await hangar.activity.flush();
    const { items } = await hangar.listLogs.execute({ userId: alice.userId, page: 1, limit: 30 });
    expect(items.slice(0, 3).map((e) => e.path)).to.deep.equal(['/files/1', '/files/3', '/files/2']);
    const tied = items.slice(3).map((e) => e.id);
    expect(tied).to.deep.equal([...tied].sort().reverse());
  });

  it('shows each account only its own entries', async () => {
    const { hangar, alice, bob, record, paths, clock } = await withAccounts();
    record(alice.userId, 1);
    clock.advance(1000);
    record(bob.userId, 2);
    clock.advance(1000);
    record(alice.userId, 3);
    await hangar.activity.flush();
    expect(await paths(alice.userId)).to.deep.equal({ paths: ['/files/3', '/files/1'], total: 2 });
    expect(await paths(bob.userId)).to.deep.equal({ paths: ['/files/2'], total: 1 });
  });

  it('answers an account without entries with an empty page and total 0', async () => {
    const { alice, paths } = await withAccounts();
    expect(await paths(alice.userId)).to.deep.equal({ paths: [], total: 0 });
  });

  describe('pruning', () => {
    it('deletes entries older than 30 days by default, of every account, and keeps the rest', async () => {
      const { hangar, alice, bob, record, paths, clock } = await withAccounts();
      const now = new Date(START.getTime() + 100 * DAY_MS);
      clock.set(now);
      const ago = (ms: number) => new Date(now.getTime() - ms);
      record(alice.userId, 1, { createdAt: ago(31 * DAY_MS) });
      record(alice.userId, 2, { createdAt: ago(30 * DAY_MS + 1) });
      record(alice.userId, 3, { createdAt: ago(30 * DAY_MS) });
      record(alice.userId, 4, { createdAt: ago(29 * DAY_MS) });
      record(alice.userId, 5);
      record(bob.userId, 6, { createdAt: ago(45 * DAY_MS) });
      record(bob.userId, 7, { createdAt: ago(DAY_MS) });
      await hangar.activity.flush();
      expect(await hangar.pruneLogs.execute()).to.equal(3);
      expect(await paths(alice.userId)).to.deep.equal({ paths: ['/files/5', '/files/4', '/files/3'], total: 3 });
      expect(await paths(bob.userId)).to.deep.equal({ paths: ['/files/7'], total: 1 });
      expect(await hangar.pruneLogs.execute()).to.equal(0);
    });

    it('uses logRetentionDays when given', async () => {
      const { hangar, alice, record, paths, clock } = await withAccounts({ logRetentionDays: 7 });
      const now = new Date(START.getTime() + 10 * DAY_MS);
      clock.set(now);
      record(alice.userId, 1, { createdAt: new Date(now.getTime() - 7 * DAY_MS - 1) });
      record(alice.userId, 2, { createdAt: new Date(now.getTime() - 7 * DAY_MS) });
      record(alice.userId, 3, { createdAt: new Date(now.getTime() - 6 * DAY_MS) });
      await hangar.activity.flush();
      expect(await hangar.pruneLogs.execute()).to.equal(1);
      expect(await paths(alice.userId)).to.deep.equal({ paths: ['/files/3', '/files/2'], total: 2 });
    });
  });

  describe('buffering', () => {
    it('keeps the entries when the insert fails, and writes each exactly once on the next flush', async () => {
      let logs!: ControlledLogRepository;
      const world = await withAccounts({}, (ports) => ({ logs: (logs = new ControlledLogRepository(ports.logs)) }));
      const { hangar, alice, record, paths, clock } = world;
      record(alice.userId, 1);
      clock.advance(1000);
      record(alice.userId, 2);
      logs.failures = 1;
      let failure: unknown;
      await hangar.activity.flush().catch((error) => (failure = error));
      expect(failure).to.be.instanceOf(Error).with.property('message', 'database is down');
      expect(await paths(alice.userId)).to.deep.equal({ paths: [], total: 0 });
      expect(hangar.activity.buffered).to.equal(2);
      clock.advance(1000);
      record(alice.userId, 3);
      await hangar.activity.flush();
      expect(await paths(alice.userId)).to.deep.equal({ paths: ['/files/3', '/files/2', '/files/1'], total: 3 });
      await hangar.activity.flush();
      const { items } = await hangar.listLogs.execute({ userId: alice.userId, page: 1, limit: 30 });
      expect(new Set(items.map((e) => e.id)).size).to.equal(3);
      expect(hangar.activity.dropped).to.equal(0);
      expect(hangar.activity.buffered).to.equal(0);
    });

    it('keeps at most 50,000 entries while the database is down, dropping the oldest and counting them', async () => {
      let logs!: ControlledLogRepository;
      const world = await withAccounts({}, (ports) => ({ logs: (logs = new ControlledLogRepository(ports.logs)) }));
      const { hangar, alice, record, paths, clock } = world;
      logs.failures = Number.POSITIVE_INFINITY;
      for (let n = 0; n < 50_003; n++) {
        clock.advance(1);
        record(alice.userId, n);
      }
      expect(hangar.activity.dropped).to.equal(3);
      expect(hangar.activity.buffered).to.equal(50_000);
      logs.failures = 0;
      await hangar.activity.flush();
      expect(hangar.activity.buffered).to.equal(0);
      expect((await paths(alice.userId)).total).to.equal(50_000);
      // The newest are kept: /files/0, /files/1 and /files/2 were dropped.
      const oldest = await paths(alice.userId, 500, 100);
      expect(oldest.paths[oldest.paths.length - 1]).to.equal('/files/3');
    });

    it('writes entries recorded while a flush is under way before that flush (and a concurrent one) resolves', async () => {
      let logs!: ControlledLogRepository;
      const world = await withAccounts({}, (ports) => ({ logs: (logs = new ControlledLogRepository(ports.logs)) }));
      const { hangar, alice, record, paths } = world;
      record(alice.userId, 1);
      const held = gate();
      logs.hold = held.promise;
      const first = hangar.activity.flush();
      record(alice.userId, 2);
      const second = hangar.activity.flush();
      logs.hold = undefined;
      held.open();
      await Promise.all([first, second]);
      expect((await paths(alice.userId)).total).to.equal(2);
    });

    it('writes in the background only full batches of 1000, not a stream of small ones; a flush writes the rest', async () => {
      let logs!: ControlledLogRepository;
      const world = await withAccounts({}, (ports) => ({ logs: (logs = new ControlledLogRepository(ports.logs)) }));
      const { hangar, alice, record, paths } = world;
      const held = gate();
      logs.hold = held.promise;
      for (let n = 0; n < 1000; n++) record(alice.userId, n);
      await new Promise((resolve) => setTimeout(resolve, 1));
      // Recorded while that batch is being written: too few for a batch of their own.
      for (let n = 1000; n < 1300; n++) record(alice.userId, n);
      logs.hold = undefined;
      held.open();
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(logs.batches).to.deep.equal([1000]);
      for (let n = 1300; n < 2000; n++) record(alice.userId, n);
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(logs.batches).to.deep.equal([1000, 1000]);
      for (let n = 2000; n < 2010; n++) record(alice.userId, n);
      await hangar.activity.flush();
      expect(logs.batches).to.deep.equal([1000, 1000, 10]);
      expect((await paths(alice.userId)).total).to.equal(2010);
    });

    it('flushes on its own once 1000 entries are buffered, reporting failures to onBackgroundError', async () => {
      let logs!: ControlledLogRepository;
      const world = await withAccounts({}, (ports) => ({ logs: (logs = new ControlledLogRepository(ports.logs)) }));
      const { alice, record, paths, backgroundErrors } = world;
      for (let n = 0; n < 999; n++) record(alice.userId, n);
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(logs.batches).to.deep.equal([]);
      logs.failures = 1;
      record(alice.userId, 999);
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(backgroundErrors).to.have.length(1);
      expect((await paths(alice.userId)).total).to.equal(0);
      record(alice.userId, 1000);
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect((await paths(alice.userId)).total).to.equal(1001);
    });
  });
});
