import BetterSqlite3 from 'better-sqlite3';
import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { call, signUp } from '../support/http-harness.js';
import { freePort, startServerProcess } from '../support/server-process.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

describe('Reliability: a webhook survives SIGKILL of the delivering process (the webhook outbox)', function () {
  this.timeout(60_000);

  it('delivers the event, with the same webhook-id, from the next process after the first was killed mid-delivery', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'hangar-webhook-crash-'));
    const receiver = await WebhookReceiver.start();
    // The first attempt never gets an answer: the process is killed while it waits.
    receiver.script = ['hang'];
    const [port, contentPort] = [await freePort(), await freePort()];
    const env = {
      HOST: '127.0.0.1',
      PORT: String(port),
      CONTENT_PORT: String(contentPort),
      DATA_DIR: dataDir,
      DATABASE_URL: `sqlite:${path.join(dataDir, 'hangar.db')}`,
      PASSWORD_HASH_MEMORY_KIB: '1024',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_ALLOW_HTTP: 'true',
    };
    try {
      const first = await startServerProcess(env);
      let secret: string;
      let deliveryId: string;
      try {
        const { accessToken } = await signUp({ api: first.api, dataDir }, 'crash-hook@example.com');
        const created = await call(first.api, '/webhooks', { method: 'POST', token: accessToken, json: { url: receiver.url(), events: ['file.created'] } });
        secret = created.body.webhook.secret;
        deliveryId = (await call(first.api, `/webhooks/${created.body.webhook.id}/test`, { method: 'POST', token: accessToken })).body.delivery_id;
        await receiver.waitFor(1);
        first.child.kill('SIGKILL');
      } finally {
        await first.stop();
      }
      // The killed process's claim holds for its lease (60 s) before another process may take the
      // row. The lease is moved to its end here rather than waited for: what this test shows is
      // that the row survives the kill and is delivered again with the same webhook-id; that a
      // lapsed lease is claimed again, and a running one is not, is tested with a 200 ms lease in
      // test/adapters/sql-webhook-outbox.test.ts.
      const database = new BetterSqlite3(path.join(dataDir, 'hangar.db'));
      try {
        const held = database
          .prepare('update webhook_deliveries set claimed_until = ? where claimed_until is not null and sent_at is null')
          .run(Date.now() - 1);
        expect(held.changes, 'the delivery the killed process held').to.equal(1);
      } finally {
        database.close();
      }
      const second = await startServerProcess(env);
      try {
        const received = await receiver.waitFor(2, { timeoutMs: 30_000 });
        expect(received.map((r) => r.headers['webhook-id'])).to.deep.equal([deliveryId, deliveryId]);
        WebhookReceiver.verify(received[1], secret);
      } finally {
        await second.stop();
      }
    } finally {
      await receiver.stop();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
