import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { MailMessage, Mailer } from '../../core/accounts/mailer.js';
import { FileOutboxMailer } from '../../adapters/mail/file-outbox-mailer.js';
import { MemoryMailer } from '../../adapters/mail/memory-mailer.js';
import { QueuedMailer } from '../../adapters/mail/queued-mailer.js';
import { SmtpMailer } from '../../adapters/mail/smtp-mailer.js';
import { FakeSmtpServer, parseMail } from '../support/fake-smtp-server.js';
import { FixedClock } from '../support/fixed-clock.js';
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

describeMailerContract('QueuedMailer over MemoryMailer', async () => {
  const inner = new MemoryMailer();
  const mailer = new QueuedMailer(inner, { retryDelayMs: 1 });
  return {
    mailer,
    received: async () => {
      await mailer.drain();
      return inner.messages;
    },
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

describe('QueuedMailer', () => {
  it('resolves send before the inner mailer has delivered', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const inner = new MemoryMailer();
    const slow: Mailer = {
      send: async (message) => {
        await gate;
        await inner.send(message);
      },
    };
    const queued = new QueuedMailer(slow);
    await queued.send(sampleMessage());
    expect(inner.messages).to.have.length(0);
    expect(queued.pending).to.equal(1);
    release();
    await queued.drain();
    expect(inner.messages).to.have.length(1);
    expect(queued.pending).to.equal(0);
  });

  it('retries a failing delivery and succeeds without reporting an error', async () => {
    const inner = new FlakyMailer(2);
    const errors: unknown[] = [];
    const queued = new QueuedMailer(inner, { maxAttempts: 3, retryDelayMs: 1, onError: (error) => errors.push(error) });
    await queued.send(sampleMessage());
    await queued.drain();
    expect(inner.attempts).to.equal(3);
    expect(inner.delivered).to.deep.equal([sampleMessage()]);
    expect(errors).to.deep.equal([]);
  });

  it('reports the last error with the message after maxAttempts, then goes on with the next message', async () => {
    const inner = new FlakyMailer(3);
    const reports: Array<{ error: unknown; message: MailMessage }> = [];
    const queued = new QueuedMailer(inner, { maxAttempts: 3, retryDelayMs: 1, onError: (error, message) => reports.push({ error, message }) });
    const lost = sampleMessage({ subject: 'lost' });
    const next = sampleMessage({ subject: 'next' });
    await queued.send(lost);
    await queued.send(next);
    await queued.drain();
    expect(reports).to.have.length(1);
    expect((reports[0].error as Error).message).to.equal('failure 3');
    expect(reports[0].message).to.deep.equal(lost);
    expect(inner.delivered).to.deep.equal([next]);
    expect(inner.attempts).to.equal(4);
  });

  it('waits longer before each retry (backoff from retryDelayMs)', async () => {
    const inner = new FlakyMailer(2);
    const queued = new QueuedMailer(inner, { maxAttempts: 3, retryDelayMs: 40 });
    const started = Date.now();
    await queued.send(sampleMessage());
    await queued.drain();
    expect(Date.now() - started).to.be.at.least(40 + 80 - 5);
  });

  it('drops and reports messages beyond maxQueueLength', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const inner = new MemoryMailer();
    const slow: Mailer = {
      send: async (message) => {
        await gate;
        await inner.send(message);
      },
    };
    const dropped: MailMessage[] = [];
    const queued = new QueuedMailer(slow, { maxQueueLength: 2, onError: (_error, message) => dropped.push(message) });
    for (const subject of ['a', 'b', 'c']) await queued.send(sampleMessage({ subject }));
    expect(dropped.map((message) => message.subject)).to.deep.equal(['c']);
    release();
    await queued.drain();
    expect(inner.messages.map((message) => message.subject)).to.deep.equal(['a', 'b']);
  });

  it('keeps delivering when onError itself throws', async () => {
    const inner = new FlakyMailer(1);
    const queued = new QueuedMailer(inner, {
      maxAttempts: 1,
      onError: () => {
        throw new Error('handler broke');
      },
    });
    await queued.send(sampleMessage({ subject: 'lost' }));
    await queued.send(sampleMessage({ subject: 'kept' }));
    await queued.drain();
    expect(inner.delivered.map((message) => message.subject)).to.deep.equal(['kept']);
  });

  it('delivers messages queued after a drain', async () => {
    const inner = new MemoryMailer();
    const queued = new QueuedMailer(inner);
    await queued.send(sampleMessage({ subject: 'one' }));
    await queued.drain();
    await queued.send(sampleMessage({ subject: 'two' }));
    await queued.drain();
    expect(inner.messages.map((message) => message.subject)).to.deep.equal(['one', 'two']);
  });
});

describe('FileOutboxMailer', () => {
  let directory: string;

  beforeEach(async () => {
    directory = await mkdtemp(join(tmpdir(), 'hangar-outbox-'));
  });

  afterEach(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it('writes exactly the fields to, subject, text, html, created_at (ISO 8601 UTC with ms)', async () => {
    const clock = new FixedClock(new Date('2026-03-04T05:06:07.089Z'));
    const mailer = new FileOutboxMailer({ directory, clock: () => clock.now() });
    const message = sampleMessage();
    await mailer.send(message);
    const names = await readdir(directory);
    expect(names).to.have.length(1);
    expect(names[0]).to.match(/^2026-03-04T05-06-07\.089Z-[0-9a-z-]+\.json$/);
    const file = JSON.parse(await readFile(join(directory, names[0]), 'utf8')) as Record<string, unknown>;
    expect(Object.keys(file)).to.deep.equal(['to', 'subject', 'text', 'html', 'created_at']);
    expect(file).to.deep.equal({ ...message, created_at: '2026-03-04T05:06:07.089Z' });
  });

  it('names files so that they sort by time and never collide', async () => {
    const clock = new FixedClock();
    const mailer = new FileOutboxMailer({ directory, clock: () => clock.now() });
    const subjects: string[] = [];
    for (let i = 0; i < 12; i++) {
      if (i % 4 === 0) clock.advance(i === 4 ? 9 * 60 * 60 * 1000 : 1500);
      subjects.push(`message ${i}`);
      await mailer.send(sampleMessage({ subject: `message ${i}` }));
    }
    await Promise.all(Array.from({ length: 20 }, (_, i) => mailer.send(sampleMessage({ subject: `burst ${i}` }))));
    const files = await readOutbox(directory);
    expect(files).to.have.length(32);
    expect(files.slice(0, 12).map((file) => file.subject)).to.deep.equal(subjects);
  });

  it('creates a missing directory and leaves no temporary files', async () => {
    const nested = join(directory, 'mail', 'outbox');
    const mailer = new FileOutboxMailer({ directory: nested });
    await mailer.send(sampleMessage());
    await mailer.send(sampleMessage());
    const names = await readdir(nested);
    expect(names).to.have.length(2);
    expect(names.every((name) => name.endsWith('.json') && !name.startsWith('.'))).to.equal(true);
  });
});
