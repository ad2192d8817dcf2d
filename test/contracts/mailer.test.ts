import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { MailMessage, Mailer } from '../../core/accounts/mailer.js';
import { FileOutboxMailer } from '../../adapters/mail/file-outbox-mailer.js';
import { MemoryMailer } from '../../adapters/mail/memory-mailer.js';
import { SqlMailOutbox } from '../../adapters/mail/sql-mail-outbox.js';
import { MemoryLogger } from '../../adapters/logging/memory-logger.js';
import { openSqliteDatabase } from '../../adapters/persistence/sqlite/sqlite-database.js';
import { openPostgresDatabase } from '../../adapters/persistence/postgres/postgres-database.js';
import type { HangarDatabase } from '../../adapters/persistence/sql/schema.js';
import type { Kysely } from 'kysely';
import { createTestSchema, testDatabaseUrl } from '../support/test-database.js';
import { SmtpMailer } from '../../adapters/mail/smtp-mailer.js';
import { FakeSmtpServer, parseMail } from '../support/fake-smtp-server.js';
import { describeMailerContract, sampleMessage } from './mailer.contract.js';

/** Reads an outbox back: the visible `*.json` files, sorted by name (time). */
async function readOutbox(directory: string): Promise<Array<Record<string, unknown>>> {
  let names: string[];
  try {
    names = await readdir(directory);
  } catch {
    return [];
  }
  const files = names.filter((name) => name.endsWith('.json') && !name.startsWith('.')).sort();
  return Promise.all(files.map(async (name) => JSON.parse(await readFile(join(directory, name), 'utf8')) as Record<string, unknown>));
}

function asMessage(file: Record<string, unknown>): MailMessage {
  return { to: file.to as string, subject: file.subject as string, text: file.text as string, html: file.html as string };
}

describeMailerContract('MemoryMailer', async () => {
  const mailer = new MemoryMailer();
  return { mailer, received: async () => mailer.messages };
});

describeMailerContract('FileOutboxMailer', async () => {
  const directory = await mkdtemp(join(tmpdir(), 'hangar-outbox-'));
  const mailer = new FileOutboxMailer({ directory });
  return {
    mailer,
    received: async () => (await readOutbox(directory)).map(asMessage),
    close: () => rm(directory, { recursive: true, force: true }),
  };
});

describeMailerContract('SqlMailOutbox (SQLite) over MemoryMailer', async () => {
  const open = await openSqliteDatabase({ path: ':memory:' });
  const inner = new MemoryMailer();
  const mailer = new SqlMailOutbox({ db: open.db, transport: inner, retryDelayMs: 1 });
  return {
    mailer,
    received: async () => {
      await mailer.drain();
      return inner.messages;
    },
    close: () => open.close(),
  };
});

describeMailerContract('SmtpMailer against a fake SMTP server', async () => {
  const server = await FakeSmtpServer.start();
  const mailer = new SmtpMailer({ url: server.url, from: 'Hangar <no-reply@hangar.test>', timeoutMs: 2_000 });
  return {
    mailer,
    received: async () =>
      server.messages.map((received) => {
        const parsed = parseMail(received.raw);
        return { to: received.to.join(','), subject: parsed.subject, text: parsed.text, html: parsed.html };
      }),
    close: async () => {
      mailer.close();
      await server.close();
    },
  };
});

describe('SmtpMailer', () => {
  let server: FakeSmtpServer | undefined;

  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('sends from the configured address, to the recipient only, with matching headers', async () => {
    server = await FakeSmtpServer.start();
    const mailer = new SmtpMailer({ url: server.url, from: 'Hangar <no-reply@hangar.test>', timeoutMs: 2_000 });
    await mailer.send(sampleMessage({ to: 'grace@example.com' }));
    expect(server.messages).to.have.length(1);
    const [received] = server.messages;
    expect(received.from).to.equal('no-reply@hangar.test');
    expect(received.to).to.deep.equal(['grace@example.com']);
    const headers = parseMail(received.raw).headers;
    expect(headers.get('from')).to.equal('Hangar <no-reply@hangar.test>');
    expect(headers.get('to')).to.equal('grace@example.com');
    expect(headers.get('content-type')).to.match(/^multipart\/alternative/);
    mailer.close();
  });

  it('rejects when the server refuses the message', async () => {
    server = await FakeSmtpServer.start();
    server.failNext = 1;
    const mailer = new SmtpMailer({ url: server.url, from: 'no-reply@hangar.test', timeoutMs: 2_000 });
    let error: unknown;
    await mailer.send(sampleMessage()).catch((caught: unknown) => (error = caught));
    expect(error).to.be.instanceOf(Error);
    expect((error as { responseCode?: number }).responseCode).to.equal(451);
    expect(server.messages).to.have.length(0);
    mailer.close();
  });

  it('gives up after timeoutMs when the server never greets', async () => {
    server = await FakeSmtpServer.start({ silent: true });
    const mailer = new SmtpMailer({ url: server.url, from: 'no-reply@hangar.test', timeoutMs: 200 });
    const started = Date.now();
    let error: unknown;
    await mailer.send(sampleMessage()).catch((caught: unknown) => (error = caught));
    expect(error).to.be.instanceOf(Error);
    expect(Date.now() - started).to.be.below(2_000);
    mailer.close();
  });

  it('rejects when nothing listens on the port', async () => {
    const closed = await FakeSmtpServer.start();
    const url = closed.url;
    await closed.close();
    const mailer = new SmtpMailer({ url, from: 'no-reply@hangar.test', timeoutMs: 1_000 });
    let error: unknown;
    await mailer.send(sampleMessage()).catch((caught: unknown) => (error = caught));
    expect(error).to.be.instanceOf(Error);
    mailer.close();
  });
});

/** A mailer that fails its first `failures` sends, then delivers to `delivered`. */
class FlakyMailer implements Mailer {
  readonly delivered: MailMessage[] = [];
  attempts = 0;
  constructor(private failures: number) {}
  async send(message: MailMessage): Promise<void> {
    this.attempts += 1;
    if (this.failures > 0) {
      this.failures -= 1;
      throw new Error(`failure ${this.attempts}`);
    }
    this.delivered.push(message);
  }
}

/** Opens one database for the outbox tests: a SQLite file, or a fresh Postgres schema. */
type OpenOutboxDatabase = () => Promise<{ db: Kysely<HangarDatabase>; close(): Promise<void> }>;

function describeSqlMailOutbox(name: string, openDatabase: () => Promise<{ open: OpenOutboxDatabase; drop(): Promise<void> }>): void {
  describe(`SqlMailOutbox (${name})`, function () {
    this.timeout(30_000);
    let database: { open: OpenOutboxDatabase; drop(): Promise<void> };
    const opened: { close(): Promise<void> }[] = [];
    const open = async () => {
      const handle = await database.open();
      opened.push(handle);
      return handle.db;
    };
    beforeEach(async () => {
      database = await openDatabase();
    });
    afterEach(async () => {
      for (const handle of opened.splice(0)) await handle.close();
      await database.drop();
    });

    it('keeps a message accepted by send until a later process delivers it (nothing delivered in the first)', async () => {
      const first = new SqlMailOutbox({ db: await open(), transport: new FlakyMailer(0) });
      await first.send(sampleMessage({ subject: 'survives' }));
      // The first process dies here without delivering: a new one over the same database sends it.
      const transport = new FlakyMailer(0);
      const second = new SqlMailOutbox({ db: await open(), transport });
      expect(await second.pending()).to.equal(1);
      await second.drain();
      expect(transport.delivered.map((m) => m.subject)).to.deep.equal(['survives']);
      expect(await second.pending()).to.equal(0);
    });

    it('retries a failed delivery with backoff, and gives up after maxAttempts with an error entry', async () => {
      let now = 1_000_000;
      const transport = new FlakyMailer(2);
      const logger = new MemoryLogger();
      const outbox = new SqlMailOutbox({ db: await open(), transport, retryDelayMs: 1000, maxAttempts: 3, now: () => now, logger });
      await outbox.send(sampleMessage({ subject: 'flaky' }));
      await outbox.drain();
      expect(transport.attempts).to.equal(1);
      now += 999;
      await outbox.drain();
      expect(transport.attempts, 'not before the first retry delay').to.equal(1);
      now += 1;
      await outbox.drain();
      expect(transport.attempts).to.equal(2);
      now += 2000;
      await outbox.drain();
      expect(transport.attempts, 'the delay doubled').to.equal(3);
      expect(transport.delivered).to.have.length(1);

      const hopeless = new FlakyMailer(100);
      const giving = new SqlMailOutbox({ db: await open(), transport: hopeless, retryDelayMs: 0, maxAttempts: 3, now: () => now, logger });
      await giving.send(sampleMessage({ subject: 'hopeless' }));
      for (let i = 0; i < 5; i++) await giving.drain();
      expect(hopeless.attempts).to.equal(3);
      expect(await giving.pending()).to.equal(0);
      expect(logger.entries.filter((e) => e.event === 'mail_failed').map((e) => [e.level, e.fields.subject])).to.deep.equal([['error', 'hopeless']]);
    });

    it('never delivers one message twice when several processes deliver from one table at once', async () => {
      const transports = [new SlowCountingMailer(), new SlowCountingMailer(), new SlowCountingMailer()];
      const outboxes: SqlMailOutbox[] = [];
      for (const transport of transports) outboxes.push(new SqlMailOutbox({ db: await open(), transport }));
      for (let i = 0; i < 30; i++) await outboxes[i % 3].send(sampleMessage({ subject: `m${i}` }));
      await Promise.all(outboxes.map((outbox) => outbox.drain()));
      const subjects = transports.flatMap((t) => t.delivered.map((m) => m.subject)).sort();
      expect(subjects).to.deep.equal(Array.from({ length: 30 }, (_, i) => `m${i}`).sort());
      expect(transports.filter((t) => t.delivered.length > 0).length, 'every process delivered some').to.be.at.least(2);
    });
  });
}

/** Delivers after a short wait (so that several deliverers overlap), recording what it sent. */
class SlowCountingMailer implements Mailer {
  readonly delivered: MailMessage[] = [];
  async send(message: MailMessage): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, 5));
    this.delivered.push(message);
  }
}

describeSqlMailOutbox('SQLite, several connections to one file', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'hangar-outbox-'));
  return {
    open: () => openSqliteDatabase({ path: join(dir, 'hangar.db') }),
    drop: () => rm(dir, { recursive: true, force: true }),
  };
});

if (testDatabaseUrl()) {
  describeSqlMailOutbox('Postgres, several pools on one schema', async () => {
    const schema = await createTestSchema(testDatabaseUrl()!);
    return {
      open: () => openPostgresDatabase({ url: schema.url, poolSize: 3 }),
      drop: () => schema.drop(),
    };
  });
}
