import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import { MemoryMailer } from '../../adapters/mail/memory-mailer.js';
import { openPostgresDatabase } from '../../adapters/persistence/postgres/postgres-database.js';
import { createSqlRepositories } from '../../adapters/persistence/sql/create-sql-repositories.js';
import { claimDueRow } from '../../adapters/persistence/sql/leased-claim.js';
import type { HangarDatabase } from '../../adapters/persistence/sql/schema.js';
import { openSqliteDatabase } from '../../adapters/persistence/sqlite/sqlite-database.js';
import { HttpWebhookSender } from '../../adapters/webhooks/http-webhook-sender.js';
import { writeWebhookPlanLimits } from '../../adapters/webhooks/webhook-plan-limits.js';
import { PublicAddressPolicy } from '../../adapters/webhooks/public-addresses.js';
import { SqlWebhookOutbox, type SqlWebhookOutboxOptions, WEBHOOK_DISABLE_AFTER_MS } from '../../adapters/webhooks/sql-webhook-outbox.js';
import type { Repositories } from '../../adapters/persistence/repositories.js';
import type { Webhook, WebhookEventType } from '../../core/webhooks/webhook.js';
import type { WebhookEvent } from '../../core/webhooks/webhook-event.js';
import { aFile, givenUser } from '../contracts/persistence-fixtures.js';
import { createTestSchema, testDatabaseUrl } from '../support/test-database.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

const ROOMY = { storageLimitBytes: 2 ** 40, fileCountLimit: 1_000_000 };
const SECRET = `whsec_${'A'.repeat(44)}`;

interface Opened {
  db: Kysely<HangarDatabase>;
  repos: Repositories;
  close(): Promise<void>;
}

/** A minimal payload: what the tests look at (the composition renders with the API's presenters). */
async function render(event: WebhookEvent): Promise<unknown> {
  if ('quota' in event) return { type: event.type, timestamp: event.occurredAt.toISOString(), data: event.quota };
  const data = 'file' in event ? { file_id: event.file.fileId, name: event.file.name, ...('reason' in event ? { reason: event.reason } : {}) } : {};
  return { type: event.type, timestamp: event.occurredAt.toISOString(), data };
}

let serial = 0;

function describeOutbox(name: string, open: () => Promise<Opened>): void {
  describe(`SqlWebhookOutbox on ${name}`, function () {
    this.timeout(30_000);
    let opened: Opened;
    let receiver: WebhookReceiver;
    let outboxes: SqlWebhookOutbox[];
    beforeEach(async () => {
      opened = await open();
      receiver = await WebhookReceiver.start();
      outboxes = [];
    });
    afterEach(async () => {
      for (const outbox of outboxes) await outbox.stop();
      await receiver.stop();
      await opened.close();
    });

    function outbox(options: Partial<SqlWebhookOutboxOptions> = {}, db = opened.db): SqlWebhookOutbox {
      const policy = new PublicAddressPolicy({ allowPrivateNetworks: true });
      const made = new SqlWebhookOutbox({
        db,
        sender: new HttpWebhookSender({ policy, allowHttp: true }),
        render,
        retryDelaysMs: [50, 50],
        jitter: 0,
        pollMs: 20,
        ...options,
      });
      outboxes.push(made);
      return made;
    }

    async function givenEndpoint(events: WebhookEventType[]): Promise<{ userId: string; webhook: Webhook }> {
      const user = await givenUser(opened.repos.users);
      serial += 1;
      const now = new Date();
      const webhook: Webhook = {
        id: `wh_test${serial}`,
        userId: user.id,
        url: receiver.url(),
        events,
        description: null,
        enabled: true,
        disabledReason: null,
        createdAt: now,
        updatedAt: now,
      };
      expect(await opened.repos.webhooks.create({ webhook, secret: SECRET, max: 10 })).to.equal('created');
      return { userId: user.id, webhook };
    }

    it('queues one delivery per subscribed endpoint in the transaction of the change, signed as Standard Webhooks verifies', async () => {
      const { userId } = await givenEndpoint(['file.created', 'file.deleted']);
      const file = aFile(userId, { name: 'one.txt' });
      await opened.repos.files.insert(file, ROOMY);
      await opened.repos.files.deleteMany({ userId, fileIds: [file.fileId], reason: 'expired' });
      await outbox().drain();
      expect(receiver.received.map((r) => r.payload.type)).to.have.members(['file.created', 'file.deleted']);
      for (const received of receiver.received) WebhookReceiver.verify(received, SECRET);
      const deleted = receiver.received.find((r) => r.payload.type === 'file.deleted')!;
      expect(deleted.payload.data).to.deep.equal({ file_id: file.fileId, name: 'one.txt', reason: 'expired' });
    });

    it('sends nothing for a change that was rolled back, and nothing to an account without endpoints', async () => {
      const { userId } = await givenEndpoint(['file.updated']);
      const file = aFile(userId, { name: 'before.txt' });
      await opened.repos.files.insert(file, ROOMY);
      const other = await givenUser(opened.repos.users);
      await opened.repos.files.insert(aFile(other.id), ROOMY);
      await opened.db
        .transaction()
        .execute(async (trx) => {
          await trx.updateTable('files').set({ name: 'rolled-back.txt' }).where('id', '=', file.id).execute();
          throw new Error('roll back');
        })
        .catch(() => undefined);
      await outbox().drain();
      expect(receiver.received).to.deep.equal([]);
      await opened.repos.files.update({ userId, fileId: file.fileId, changes: { name: 'after.txt' } });
      await outbox().drain();
      expect(receiver.received.map((r) => r.payload.data.name)).to.deep.equal(['after.txt']);
    });

    it('retries after a 500 and after a timeout, with the same webhook-id and body, then delivers', async () => {
      const { userId } = await givenEndpoint(['file.created']);
      receiver.script = [500, 'hang'];
      await opened.repos.files.insert(aFile(userId), ROOMY);
      const box = outbox({ timeoutMs: 300 });
      box.start();
      const attempts = await receiver.waitFor(3);
      expect(attempts.map((a) => a.status)).to.deep.equal([500, 0, 204]);
      expect(new Set(attempts.map((a) => a.headers['webhook-id'])).size).to.equal(1);
      expect(new Set(attempts.map((a) => a.body)).size).to.equal(1);
      for (const attempt of attempts) WebhookReceiver.verify(attempt, SECRET);
    });

    it('marks a delivery failed after its last attempt, and turns off an endpoint failing for 5 days and mails its owner', async () => {
      const { userId, webhook } = await givenEndpoint(['file.created']);
      receiver.script = [500, 500, 500];
      await opened.db
        .updateTable('webhooks')
        .set({ failing_since: Date.now() - WEBHOOK_DISABLE_AFTER_MS - 1 })
        .where('id', '=', webhook.id)
        .execute();
      await opened.repos.files.insert(aFile(userId), ROOMY);
      const mailer = new MemoryMailer();
      const box = outbox({ mailer });
      box.start();
      await receiver.waitFor(1);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const page = await opened.repos.webhooks.listDeliveries({ userId, webhookId: webhook.id, window: { offset: 0, limit: 10 } });
      expect(page.items[0]).to.include({ state: 'failed', lastStatus: 500 });
      expect(await opened.repos.webhooks.find({ userId, id: webhook.id })).to.include({ enabled: false, disabledReason: 'failing' });
      expect(mailer.messages.map((m) => m.subject)).to.deep.equal(['Your Hangar webhook was turned off']);
    });

    it('sends quota.warning when use passes 80 % of the plan and quota.reached at 100 %, once per crossing', async () => {
      await writeWebhookPlanLimits(opened.db, {
        plans: [
          { name: 'small', storageLimitBytes: 1000, fileCountLimit: 100 },
          { name: 'tiny', storageLimitBytes: 10, fileCountLimit: 1 },
        ],
        defaultPlan: 'small',
      });
      const { userId } = await givenEndpoint(['quota.warning', 'quota.reached']);
      const files = [aFile(userId, { size: 500 }), aFile(userId, { size: 200 }), aFile(userId, { size: 150 }), aFile(userId, { size: 150 })];
      for (const file of files.slice(0, 3)) await opened.repos.files.insert(file, ROOMY);
      await outbox().drain();
      expect(receiver.received.map((r) => [r.payload.type, r.payload.data])).to.deep.equal([
        ['quota.warning', { resource: 'storage', used: 850, limit: 1000 }],
      ]);
      await opened.repos.files.deleteMany({ userId, fileIds: [files[2].fileId] });
      await opened.repos.files.insert(files[2], ROOMY);
      await opened.repos.files.insert(files[3], ROOMY);
      await outbox().drain();
      // 850 again after falling to 700 is a new crossing; 1000 reaches the limit. One drain's deliveries
      // may arrive in any order (per-endpoint ordering is not promised: docs/webhooks.md).
      const sent = receiver.received.map((r) => [r.payload.type, r.payload.data.used]);
      expect(sent).to.have.length(3);
      expect(sent.slice(1)).to.have.deep.members([
        ['quota.warning', 850],
        ['quota.reached', 1000],
      ]);
    });

    it('delivers a delivery claimed by a process that died (its lease lapses), never losing it', async () => {
      const { userId, webhook } = await givenEndpoint(['file.created']);
      await opened.repos.files.insert(aFile(userId), ROOMY);
      // A process claims the row, then dies without recording anything.
      const claimed = await claimDueRow<{ id: string }>({
        db: opened.db,
        table: 'webhook_deliveries',
        owner: 'dead-process',
        leaseMs: 200,
        now: Date.now,
        columns: ['id'],
      });
      expect(claimed).to.not.equal(undefined);
      await outbox().drain();
      expect(receiver.received).to.deep.equal([]);
      await new Promise((resolve) => setTimeout(resolve, 250));
      await outbox().drain();
      expect(receiver.received.map((r) => r.headers['webhook-id'])).to.deep.equal([claimed!.id]);
      const page = await opened.repos.webhooks.listDeliveries({ userId, webhookId: webhook.id, window: { offset: 0, limit: 10 } });
      expect(page.items[0]).to.include({ state: 'delivered', attempts: 2 });
    });
  });
}

describeOutbox('a SQLite file', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'hangar-webhooks-'));
  const database = await openSqliteDatabase({ path: join(dir, 'hangar.sqlite') });
  return {
    db: database.db,
    repos: createSqlRepositories(database),
    close: async () => {
      await database.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});

const postgresUrl = testDatabaseUrl();
if (postgresUrl !== undefined) {
  const url = postgresUrl;
  describeOutbox('a fresh Postgres schema', async () => {
    const schema = await createTestSchema(url);
    const database = await openPostgresDatabase({ url, poolSize: 4, schema: schema.schema });
    return {
      db: database.db,
      repos: createSqlRepositories(database),
      close: async () => {
        await database.close();
        await schema.drop();
      },
    };
  });

  describe('SqlWebhookOutbox: several processes on one Postgres', function () {
    this.timeout(60_000);

    it('delivers each of 60 events once between two outboxes on separate pools (SKIP LOCKED claims)', async () => {
      const schema = await createTestSchema(url);
      const first = await openPostgresDatabase({ url, poolSize: 4, schema: schema.schema });
      const second = await openPostgresDatabase({ url, poolSize: 4, schema: schema.schema });
      const receiver = await WebhookReceiver.start();
      try {
        const repos = createSqlRepositories(first);
        const user = await givenUser(repos.users);
        const now = new Date();
        await repos.webhooks.create({
          webhook: {
            id: 'wh_pg',
            userId: user.id,
            url: receiver.url(),
            events: ['file.created'],
            description: null,
            enabled: true,
            disabledReason: null,
            createdAt: now,
            updatedAt: now,
          },
          secret: SECRET,
          max: 10,
        });
        for (let i = 0; i < 60; i++) await repos.files.insert(aFile(user.id), ROOMY);
        const policy = new PublicAddressPolicy({ allowPrivateNetworks: true });
        const make = (db: Kysely<HangarDatabase>) =>
          new SqlWebhookOutbox({ db, sender: new HttpWebhookSender({ policy, allowHttp: true }), render, pollMs: 10 });
        const [a, b] = [make(first.db), make(second.db)];
        await Promise.all([a.drain(), b.drain(), a.drain(), b.drain()]);
        const ids = receiver.received.map((r) => r.headers['webhook-id']);
        expect(ids).to.have.length(60);
        expect(new Set(ids).size).to.equal(60);
      } finally {
        await receiver.stop();
        await first.close();
        await second.close();
        await schema.drop();
      }
    });
  });
}
