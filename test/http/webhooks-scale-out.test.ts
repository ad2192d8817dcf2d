import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { call, mailedToken, outboxesUnder } from '../support/http-harness.js';
import { type ServerProcess, startServerProcesses } from '../support/server-process.js';
import { createTestSchema, type TestSchema, testDatabaseUrl } from '../support/test-database.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

const postgres = testDatabaseUrl();

/**
 * Two server processes on one Postgres schema, each running the webhook delivery loop: every event is
 * delivered once to its endpoint between them (docs/webhooks.md "Several processes").
 */
(postgres === undefined ? describe.skip : describe)('HTTP: webhooks from two server processes on one Postgres', function () {
  this.timeout(90_000);
  let shared: string;
  let schema: TestSchema;
  let servers: ServerProcess[] = [];
  let receiver: WebhookReceiver;

  before(async () => {
    shared = await mkdtemp(path.join(tmpdir(), 'hangar-hooks-scale-'));
    schema = await createTestSchema(postgres!);
    receiver = await WebhookReceiver.start();
    const env = (name: string) => ({
      HOST: '127.0.0.1',
      PORT: '0',
      CONTENT_PORT: '0',
      DATA_DIR: path.join(shared, name),
      DATABASE_URL: schema.url,
      BLOB_STORE_URL: `file:${path.join(shared, 'blobs')}`,
      PASSWORD_HASH_MEMORY_KIB: '1024',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_ALLOW_HTTP: 'true',
      RATE_LIMIT_UPLOADS_PER_MINUTE: '100000',
    });
    servers = await startServerProcesses([env('a'), env('b')]);
  });
  after(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await receiver?.stop();
    await schema?.drop();
    if (shared) await rm(shared, { recursive: true, force: true });
  });

  it('delivers each of 40 uploads, made through both processes, exactly once per endpoint', async () => {
    const [a, b] = servers as [ServerProcess, ServerProcess];
    const email = 'hooks-scale@example.com';
    expect((await call(a.api, '/auth/register', { method: 'POST', json: { email, password: 'correct horse' } })).status).to.equal(201);
    await call(b.api, `/auth/confirm?token=${await mailedToken(outboxesUnder(shared), email, '/auth/confirm')}`);
    const token = (await call(b.api, '/auth/login', { method: 'POST', json: { email, password: 'correct horse' } })).body.session.access_token;
    for (const pathName of ['/one', '/two']) {
      expect((await call(a.api, '/webhooks', { method: 'POST', token, json: { url: receiver.url(pathName), events: ['file.created'] } })).status).to.equal(201);
    }
    const uploads = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        call(i % 2 === 0 ? a.api : b.api, '/files', { method: 'POST', token, headers: { 'content-type': 'text/plain' }, body: `file ${i}` }),
      ),
    );
    expect(uploads.every((u) => u.status === 201)).to.equal(true);
    await receiver.waitFor(80, { timeoutMs: 30_000 });
    // A moment more, for a duplicate to show up if one were sent.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    for (const pathName of ['/one', '/two']) {
      const ids = receiver.received.filter((r) => r.path === pathName).map((r) => r.headers['webhook-id']);
      expect(ids, pathName).to.have.length(40);
      expect(new Set(ids).size, pathName).to.equal(40);
      const fileIds = receiver.received.filter((r) => r.path === pathName).map((r) => r.payload.data.file_id);
      expect(new Set(fileIds)).to.deep.equal(new Set(uploads.map((u) => u.body.file.file_id)));
    }
  });
});
