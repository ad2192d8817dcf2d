import { expect } from 'chai';
import { MemoryLogger } from '../../adapters/logging/memory-logger.js';
import { type ActivityLogEntry, DAY_MS, DomainError, HangarRuntime } from '../../core/index.js';
import { createMemoryHangar } from '../support/memory-hangar.js';

async function world() {
  const w = createMemoryHangar();
  const alice = await w.registerConfirmed('alice@example.com');
  const record = (path: string) =>
    w.hangar.activity.record({ userId: alice.userId, method: 'GET', path, statusCode: 200, requestSizeBytes: null, metadata: { auth: 'jwt' } });
  const paths = async () => (await w.hangar.listLogs.execute({ userId: alice.userId, page: 1, limit: 30 })).items.map((entry) => entry.path);
  return { ...w, alice, record, paths };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('HangarRuntime', () => {
  it('writes the buffered activity log on its timer while running', async () => {
    const { hangar, record, paths } = await world();
    const runtime = new HangarRuntime(hangar, { flushIntervalMs: 10, maintenance: false });
    runtime.start();
    record('/files/1');
    expect(await paths()).to.deep.equal([]);
    await sleep(60);
    expect(await paths()).to.deep.equal(['/files/1']);
    await runtime.stop();
  });

  it('at stop writes what is still buffered and waits for the reset e-mail being prepared', async () => {
    const { hangar, record, paths } = await world();
    const runtime = new HangarRuntime(hangar, { flushIntervalMs: 60_000, maintenance: false });
    runtime.start();
    record('/files/2');
    await hangar.requestPasswordReset.execute({ email: 'alice@example.com' });
    await runtime.stop();
    expect(await paths()).to.deep.equal(['/files/2']);
  });

  it('at stop waits for the e-mails use cases are still handing to a slow mailer', async () => {
    const sent: string[] = [];
    const w = createMemoryHangar({}, (defaults) => ({
      mailer: {
        send: async (message) => {
          await sleep(20);
          sent.push(message.subject);
          await defaults.mailer.send(message);
        },
      },
    }));
    await w.hangar.registerAccount.execute({ email: 'bob@example.com', password: 'correct horse battery' });
    await sleep(40);
    sent.length = 0;
    w.clock.advance(2 * 60_000); // past the one-confirmation-mail-a-minute window
    const runtime = new HangarRuntime(w.hangar, { maintenance: false });
    runtime.start();
    await w.hangar.requestPasswordReset.execute({ email: 'bob@example.com' });
    await w.hangar.resendConfirmation.execute({ email: 'bob@example.com' });
    await runtime.stop();
    expect(sent).to.have.length(2);
  });

  it('with maintenance, prunes log entries past their retention as it starts', async () => {
    const { hangar, record, paths, clock } = await world();
    record('/old');
    await hangar.activity.flush();
    clock.advance(31 * DAY_MS);
    record('/new');
    await hangar.activity.flush();
    const runtime = new HangarRuntime(hangar, { maintenance: true });
    runtime.start();
    await runtime.stop();
    expect(await paths()).to.deep.equal(['/new']);
  });

  it('without maintenance, prunes nothing', async () => {
    const { hangar, record, paths, clock } = await world();
    record('/old');
    await hangar.activity.flush();
    clock.advance(31 * DAY_MS);
    const runtime = new HangarRuntime(hangar, { maintenance: false });
    runtime.start();
    await runtime.stop();
    expect(await paths()).to.deep.equal(['/old']);
  });

  it('logs an outage as deferred and a bug as an internal error, keeps the entries, and never rejects', async () => {
    let failure: Error = new DomainError('DATABASE_UNAVAILABLE', 'down');
    const w = createMemoryHangar({}, (defaults) => ({
      logs: {
        insertMany: async (_entries: readonly ActivityLogEntry[]) => {
          throw failure;
        },
        list: (options) => defaults.logs.list(options),
        deleteBefore: (before) => defaults.logs.deleteBefore(before),
        deleteForAccount: (userId) => defaults.logs.deleteForAccount(userId),
      },
    }));
    const logger = new MemoryLogger();
    const runtime = new HangarRuntime(w.hangar, { maintenance: false, logger });
    w.hangar.activity.record({ userId: 'u', method: 'GET', path: '/x', statusCode: 200, requestSizeBytes: null, metadata: {} });
    await runtime.flush();
    failure = new TypeError('a bug');
    await runtime.flush();
    expect(logger.entries.map(({ level, event, fields }) => [level, event, fields.work, fields.code])).to.deep.equal([
      ['warn', 'background_work_deferred', 'flush', 'DATABASE_UNAVAILABLE'],
      ['error', 'internal_error', 'flush', undefined],
    ]);
  });

  it('refuses to start twice', async () => {
    const { hangar } = await world();
    const runtime = new HangarRuntime(hangar, { maintenance: false });
    runtime.start();
    expect(() => runtime.start()).to.throw(/already started/);
    await runtime.stop();
  });
});
