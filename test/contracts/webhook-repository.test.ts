import { expect } from 'chai';
import type { Webhook } from '../../core/webhooks/webhook.js';
import type { WebhookRepository } from '../../core/webhooks/webhook-repository.js';
import { testDatabaseUrl } from '../support/test-database.js';
import { at, givenUser, onPostgres, onSqlite, openMemory, type OpenedRepositories, T0 } from './persistence-fixtures.js';

const postgres = testDatabaseUrl();
let serial = 0;

function aWebhook(userId: string, overrides: Partial<Webhook> = {}): Webhook {
  serial += 1;
  return {
    id: `wh_${String(serial).padStart(32, '0')}`,
    userId,
    url: `https://hooks.example.com/${serial}`,
    events: ['file.created'],
    description: null,
    enabled: true,
    disabledReason: null,
    createdAt: at(serial),
    updatedAt: at(serial),
    ...overrides,
  };
}

/** The behaviour every WebhookRepository adapter must have. */
function describeWebhookRepositoryContract(name: string, open: () => Promise<OpenedRepositories>): void {
  describe(`WebhookRepository contract: ${name}`, () => {
    let webhooks: WebhookRepository;
    let repos: OpenedRepositories;
    beforeEach(async () => {
      repos = await open();
      webhooks = repos.webhooks;
    });
    afterEach(() => repos.close());

    it('stores endpoints and lists an account’s own, newest first, never another account’s', async () => {
      const alice = (await givenUser(repos.users)).id;
      const bob = (await givenUser(repos.users)).id;
      const older = aWebhook(alice, { events: ['file.created', 'share.revoked'], description: 'first' });
      const newer = aWebhook(alice);
      const bobs = aWebhook(bob);
      for (const webhook of [older, newer, bobs]) expect(await webhooks.create({ webhook, secret: 'whsec_x', max: 10 })).to.equal('created');
      expect(await webhooks.list(alice)).to.deep.equal([newer, older]);
      expect(await webhooks.find({ userId: alice, id: older.id })).to.deep.equal(older);
      expect(await webhooks.find({ userId: bob, id: older.id })).to.equal(undefined);
      expect(await webhooks.update({ userId: bob, id: older.id, changes: { enabled: false }, at: T0 })).to.equal(undefined);
      expect(await webhooks.delete({ userId: bob, id: older.id })).to.equal(false);
      expect(await webhooks.rotateSecret({ userId: bob, id: older.id, secret: 'whsec_y', previousUntil: T0, at: T0 })).to.equal(false);
      expect(await webhooks.list(alice)).to.have.length(2);
    });

    it('refuses the endpoint past the cap, also when many are created at once', async () => {
      const carol = (await givenUser(repos.users)).id;
      const results = await Promise.all(Array.from({ length: 8 }, () => webhooks.create({ webhook: aWebhook(carol), secret: 'whsec_x', max: 3 })));
      expect(results.filter((r) => r === 'created')).to.have.length(3);
      expect(await webhooks.list(carol)).to.have.length(3);
    });

    it('changes only what is given, and deletes an endpoint with its deliveries', async () => {
      const dave = (await givenUser(repos.users)).id;
      const webhook = aWebhook(dave);
      await webhooks.create({ webhook, secret: 'whsec_x', max: 10 });
      const changed = await webhooks.update({
        userId: dave,
        id: webhook.id,
        changes: { events: ['file.deleted', 'quota.warning'], enabled: false },
        at: at(9_999),
      });
      expect(changed).to.deep.equal({ ...webhook, events: ['file.deleted', 'quota.warning'], enabled: false, updatedAt: at(9_999) });
      await webhooks.enqueueTest({ userId: dave, webhookId: webhook.id, deliveryId: 'msg_1', at: T0 });
      expect(await webhooks.delete({ userId: dave, id: webhook.id })).to.equal(true);
      expect(await webhooks.find({ userId: dave, id: webhook.id })).to.equal(undefined);
      expect((await webhooks.listDeliveries({ userId: dave, webhookId: webhook.id, window: { offset: 0, limit: 10 } })).total).to.equal(0);
    });

    it('queues test deliveries, lists them newest first and paged, and makes one due again on retry', async () => {
      const erin = (await givenUser(repos.users)).id;
      const webhook = aWebhook(erin);
      await webhooks.create({ webhook, secret: 'whsec_x', max: 10 });
      for (let i = 1; i <= 3; i++) await webhooks.enqueueTest({ userId: erin, webhookId: webhook.id, deliveryId: `msg_${i}`, at: at(i * 1000) });
      const page = await webhooks.listDeliveries({ userId: erin, webhookId: webhook.id, window: { offset: 1, limit: 1 } });
      expect(page.total).to.equal(3);
      expect(page.items).to.deep.equal([
        {
          id: 'msg_2',
          webhookId: webhook.id,
          eventType: 'webhook.test',
          createdAt: at(2000),
          attempts: 0,
          state: 'pending',
          lastStatus: null,
          lastError: null,
          durationMs: null,
          nextAttemptAt: at(2000),
        },
      ]);
      const retried = await webhooks.retryDelivery({ userId: erin, webhookId: webhook.id, deliveryId: 'msg_1', at: at(50_000) });
      expect(retried).to.include({ id: 'msg_1', state: 'pending' });
      expect(retried!.nextAttemptAt).to.deep.equal(at(50_000));
      const other = (await givenUser(repos.users)).id;
      expect(await webhooks.retryDelivery({ userId: other, webhookId: webhook.id, deliveryId: 'msg_1', at: T0 })).to.equal(undefined);
      expect((await webhooks.listDeliveries({ userId: other, webhookId: webhook.id, window: { offset: 0, limit: 10 } })).total).to.equal(0);
    });
  });
}

describeWebhookRepositoryContract('memory', openMemory);
onSqlite((open) => describeWebhookRepositoryContract('SQLite', open));
if (postgres !== undefined) onPostgres(postgres, (open) => describeWebhookRepositoryContract('Postgres', open));
