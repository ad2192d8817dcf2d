import { expect } from 'chai';
import { call, expectError, QUICK_WEBHOOK_RETRIES, signUp, signUpWithKey, startTestServer, type TestServer, upload } from '../support/http-harness.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

const LOCAL = { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_ALLOW_HTTP: 'true' };

describe('HTTP: webhooks (docs/webhooks.md)', function () {
  this.timeout(60_000);

  describe('delivering to a local receiver', () => {
    let server: TestServer;
    let receiver: WebhookReceiver;
    before(async () => {
      server = await startTestServer({ ...LOCAL, WEBHOOKS_PER_ACCOUNT: '3' }, {}, { webhookRetryDelaysMs: QUICK_WEBHOOK_RETRIES });
      receiver = await WebhookReceiver.start();
    });
    after(async () => {
      await server.stop();
      await receiver.stop();
    });
    beforeEach(() => {
      receiver.received.length = 0;
      receiver.script = [];
    });

    it('creates an endpoint with its secret shown once, and delivers signed file events that standardwebhooks verifies', async () => {
      const alice = await signUpWithKey(server, 'hooks-alice@example.com');
      const created = await call(server.api, '/webhooks', {
        method: 'POST',
        token: alice.accessToken,
        json: { url: receiver.url('/alice'), events: ['file.created', 'file.updated', 'file.deleted'], description: 'mine' },
      });
      expect(created.status).to.equal(201);
      const { webhook } = created.body;
      expect(webhook.secret).to.match(/^whsec_[A-Za-z0-9]{44}$/);
      expect(webhook).to.include({ url: receiver.url('/alice'), description: 'mine', enabled: true });
      const listed = await call(server.api, '/webhooks', { token: alice.accessToken });
      expect(listed.body.webhooks.map((w: { id: string }) => w.id)).to.deep.equal([webhook.id]);
      expect(listed.body.webhooks[0]).to.not.have.property('secret');

      const uploaded = await upload(server, alice.apiKey, new TextEncoder().encode('hello hooks'), { contentType: 'text/plain', name: 'a.txt' });
      expect(uploaded.status).to.equal(201);
      const fileId = uploaded.body.file.file_id;
      const [createdEvent] = await receiver.waitFor(1, { type: 'file.created' });
      const verified = WebhookReceiver.verify(createdEvent, webhook.secret) as { type: string; data: Record<string, unknown> };
      expect(verified.type).to.equal('file.created');
      // `data` is the File the API returns.
      const got = await call(server.api, `/files/${fileId}`, { apiKey: alice.apiKey });
      const { view_count: _v, download_count: _d, ...expected } = got.body;
      expect(verified.data).to.deep.include(expected);
      expect(createdEvent.headers['webhook-id']).to.match(/^msg_/);

      expect((await call(server.api, `/files/${fileId}`, { method: 'PATCH', apiKey: alice.apiKey, json: { name: 'b.txt' } })).status).to.equal(200);
      const [updated] = await receiver.waitFor(1, { type: 'file.updated' });
      expect(updated.payload.data.name).to.equal('b.txt');

      expect((await call(server.api, `/files/${fileId}`, { method: 'DELETE', apiKey: alice.apiKey })).status).to.equal(204);
      const [deleted] = await receiver.waitFor(1, { type: 'file.deleted' });
      expect(deleted.payload.data).to.include({ file_id: fileId, reason: 'deleted' });
      WebhookReceiver.verify(deleted, webhook.secret);

      const second = await upload(server, alice.apiKey, new TextEncoder().encode('bulk'), { contentType: 'text/plain' });
      expect(
        (await call(server.api, '/files/bulk-delete', { method: 'POST', apiKey: alice.apiKey, json: { ids: [second.body.file.file_id] } })).body.deleted,
      ).to.equal(1);
      const deletions = await receiver.waitFor(2, { type: 'file.deleted' });
      expect(deletions[1].payload.data).to.include({ file_id: second.body.file.file_id, reason: 'bulk_deleted' });

      const log = await call(server.api, `/webhooks/${webhook.id}/deliveries`, { token: alice.accessToken });
      expect(log.status).to.equal(200);
      expect(log.body.total).to.equal(5);
      expect(log.body.deliveries[0]).to.include({ event_type: 'file.deleted', state: 'delivered', attempts: 1, last_status: 204 });
    });

    it('sends only the events an endpoint subscribed to, a test event on demand, and signs with both secrets for a day after a rotation', async () => {
      const bob = await signUpWithKey(server, 'hooks-bob@example.com');
      const created = await call(server.api, '/webhooks', {
        method: 'POST',
        token: bob.accessToken,
        json: { url: receiver.url('/bob'), events: ['share.created'] },
      });
      const { id, secret: oldSecret } = created.body.webhook;
      const file = await upload(server, bob.apiKey, new TextEncoder().encode('x'), { contentType: 'text/plain' });
      const share = await call(server.api, `/files/${file.body.file.file_id}/shares`, { method: 'POST', apiKey: bob.apiKey, json: {} });
      expect(share.status).to.equal(201);
      const [shared] = await receiver.waitFor(1, { type: 'share.created' });
      expect(shared.payload.data).to.include({ share_id: share.body.share_id, file_id: file.body.file.file_id, has_password: false });
      expect(receiver.received.map((r) => r.payload.type)).to.deep.equal(['share.created']);

      const rotated = await call(server.api, `/webhooks/${id}/rotate-secret`, { method: 'POST', token: bob.accessToken });
      expect(rotated.status).to.equal(200);
      const newSecret = rotated.body.webhook.secret;
      expect(newSecret).to.not.equal(oldSecret);
      const test = await call(server.api, `/webhooks/${id}/test`, { method: 'POST', token: bob.accessToken });
      expect(test.status).to.equal(202);
      const [tested] = await receiver.waitFor(1, { type: 'webhook.test' });
      expect(tested.headers['webhook-id']).to.equal(test.body.delivery_id);
      WebhookReceiver.verify(tested, newSecret);
      WebhookReceiver.verify(tested, oldSecret);
    });

    it('sends share.exhausted at a link’s last allowed download, share.revoked, custom_domain.active, and file.created for a resumable upload', async () => {
      const ivy = await signUpWithKey(server, 'hooks-ivy@example.com');
      const hook = await call(server.api, '/webhooks', {
        method: 'POST',
        token: ivy.accessToken,
        json: { url: receiver.url('/ivy'), events: ['file.created', 'share.revoked', 'share.exhausted', 'custom_domain.active'] },
      });
      expect(hook.status).to.equal(201);
      const file = (await upload(server, ivy.apiKey, new TextEncoder().encode('shared bytes'), { contentType: 'text/plain', name: 's.txt' })).body.file;
      const share = (await call(server.api, `/files/${file.file_id}/shares`, { method: 'POST', apiKey: ivy.apiKey, json: { max_downloads: 1 } })).body;
      const download = await fetch(`${share.url.replace('http://cdn.hangar.test', server.content)}/download`);
      expect(download.status).to.equal(200);
      await download.arrayBuffer();
      const [exhausted] = await receiver.waitFor(1, { type: 'share.exhausted' });
      expect(exhausted.payload.data).to.include({ share_id: share.share_id, downloads: 1, max_downloads: 1 });
      expect((await call(server.api, `/shares/${share.share_id}`, { method: 'DELETE', apiKey: ivy.apiKey })).status).to.equal(204);
      const [revoked] = await receiver.waitFor(1, { type: 'share.revoked' });
      expect(revoked.payload.data.share_id).to.equal(share.share_id);

      expect((await call(server.api, '/settings', { method: 'PATCH', apiKey: ivy.apiKey, json: { custom_domain: 'hooks.example.com' } })).status).to.equal(200);
      expect((await call(server.api, '/settings', { method: 'PATCH', apiKey: ivy.apiKey, json: { refresh_custom_domain: true } })).status).to.equal(200);
      const [active] = await receiver.waitFor(1, { type: 'custom_domain.active' });
      expect(active.payload.data.custom_domain).to.include({ hostname: 'hooks.example.com', verification_status: 'active', ssl_status: 'active' });

      const tus = { 'tus-resumable': '1.0.0' };
      const created = await call(server.api, '/files/resumable', {
        method: 'POST',
        apiKey: ivy.apiKey,
        headers: { ...tus, 'upload-length': '4', 'upload-metadata': `filename ${btoa('r.txt')},filetype ${btoa('text/plain')}` },
      });
      expect(created.status).to.equal(201);
      const uploadId = created.headers.get('location')!.split('/').pop();
      const patched = await call(server.api, `/files/resumable/${uploadId}`, {
        method: 'PATCH',
        apiKey: ivy.apiKey,
        headers: { ...tus, 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' },
        body: 'abcd',
      });
      expect(patched.status).to.equal(204);
      const fileCreated = await receiver.waitFor(2, { type: 'file.created' });
      expect(fileCreated.map((r) => r.payload.data.name)).to.deep.equal(['s.txt', 'r.txt']);
      expect(fileCreated.every((r) => r.path === '/ivy')).to.equal(true);
    });

    it('retries after a 500 with the same webhook-id, and a retry from the log sends it again', async () => {
      const carol = await signUp(server, 'hooks-carol@example.com');
      const { webhook } = (
        await call(server.api, '/webhooks', { method: 'POST', token: carol.accessToken, json: { url: receiver.url('/carol'), events: ['file.created'] } })
      ).body;
      receiver.script = [500];
      const test = await call(server.api, `/webhooks/${webhook.id}/test`, { method: 'POST', token: carol.accessToken });
      // The first retry comes after about 1 s here (QUICK_WEBHOOK_RETRIES; 5 s in production).
      const attempts = await receiver.waitFor(2, { type: 'webhook.test', timeoutMs: 15_000 });
      expect(attempts.map((a) => a.status)).to.deep.equal([500, 204]);
      expect(attempts.map((a) => a.headers['webhook-id'])).to.deep.equal([test.body.delivery_id, test.body.delivery_id]);
      expect(attempts[0].body).to.equal(attempts[1].body);
      const log = await call(server.api, `/webhooks/${webhook.id}/deliveries`, { token: carol.accessToken });
      expect(log.body.deliveries[0]).to.include({ state: 'delivered', attempts: 2, last_status: 204 });

      const retried = await call(server.api, `/webhooks/${webhook.id}/deliveries/${test.body.delivery_id}/retry`, { method: 'POST', token: carol.accessToken });
      expect(retried.status).to.equal(202);
      const again = await receiver.waitFor(3, { type: 'webhook.test' });
      expect(again[2].headers['webhook-id']).to.equal(test.body.delivery_id);
    });

    it('refuses the endpoint beyond WEBHOOKS_PER_ACCOUNT, and one account never sees another’s endpoints', async () => {
      const dave = await signUp(server, 'hooks-dave@example.com');
      const erin = await signUp(server, 'hooks-erin@example.com');
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const created = await call(server.api, '/webhooks', {
          method: 'POST',
          token: dave.accessToken,
          json: { url: receiver.url(`/d${i}`), events: ['file.created'] },
        });
        expect(created.status).to.equal(201);
        ids.push(created.body.webhook.id);
      }
      expectError(
        await call(server.api, '/webhooks', { method: 'POST', token: dave.accessToken, json: { url: receiver.url('/d3'), events: ['file.created'] } }),
        409,
        'WEBHOOK_LIMIT_REACHED',
      );
      expect((await call(server.api, '/webhooks', { token: erin.accessToken })).body.webhooks).to.deep.equal([]);
      expectError(await call(server.api, `/webhooks/${ids[0]}`, { token: erin.accessToken }), 404, 'WEBHOOK_NOT_FOUND');
      expectError(
        await call(server.api, `/webhooks/${ids[0]}`, { method: 'PATCH', token: erin.accessToken, json: { enabled: false } }),
        404,
        'WEBHOOK_NOT_FOUND',
      );
      expectError(await call(server.api, `/webhooks/${ids[0]}`, { method: 'DELETE', token: erin.accessToken }), 404, 'WEBHOOK_NOT_FOUND');
      expectError(await call(server.api, `/webhooks/${ids[0]}/test`, { method: 'POST', token: erin.accessToken }), 404, 'WEBHOOK_NOT_FOUND');
      expectError(await call(server.api, `/webhooks/${ids[0]}/deliveries`, { token: erin.accessToken }), 404, 'WEBHOOK_NOT_FOUND');
      expect((await call(server.api, `/webhooks/${ids[0]}`, { token: dave.accessToken })).status).to.equal(200);
      expect((await call(server.api, `/webhooks/${ids[0]}`, { method: 'DELETE', token: dave.accessToken })).status).to.equal(204);
      expect(
        (await call(server.api, '/webhooks', { method: 'POST', token: dave.accessToken, json: { url: receiver.url('/d4'), events: ['file.created'] } })).status,
      ).to.equal(201);
    });

    it('lets an API key manage webhooks only with the webhooks:manage scope', async () => {
      const frank = await signUp(server, 'hooks-frank@example.com');
      const narrow = await call(server.api, '/auth/api-keys', { method: 'POST', token: frank.accessToken, json: { scopes: ['files:read', 'files:write'] } });
      const manage = await call(server.api, '/auth/api-keys', { method: 'POST', token: frank.accessToken, json: { scopes: ['webhooks:manage'] } });
      const body = { url: receiver.url('/frank'), events: ['file.created'] };
      const refused = await call(server.api, '/webhooks', { method: 'POST', apiKey: narrow.body.key, json: body });
      expectError(refused, 403, 'INSUFFICIENT_SCOPE');
      expect(refused.body.details.missing_scopes).to.deep.equal(['webhooks:manage']);
      expectError(await call(server.api, '/webhooks', { apiKey: narrow.body.key }), 403, 'INSUFFICIENT_SCOPE');
      expect((await call(server.api, '/webhooks', { method: 'POST', apiKey: manage.body.key, json: body })).status).to.equal(201);
      expect((await call(server.api, '/webhooks', { apiKey: manage.body.key })).body.webhooks).to.have.length(1);
    });

    it('refuses unknown events and malformed URLs with 400 and stores nothing', async () => {
      const gina = await signUp(server, 'hooks-gina@example.com');
      expectError(
        await call(server.api, '/webhooks', { method: 'POST', token: gina.accessToken, json: { url: receiver.url(), events: ['file.exploded'] } }),
        400,
        'VALIDATION_FAILED',
      );
      expectError(
        await call(server.api, '/webhooks', { method: 'POST', token: gina.accessToken, json: { url: 'not a url', events: ['file.created'] } }),
        400,
        'VALIDATION_FAILED',
      );
      expectError(
        await call(server.api, '/webhooks', { method: 'POST', token: gina.accessToken, json: { url: 'ftp://example.com/x', events: ['file.created'] } }),
        400,
        'WEBHOOK_URL_REFUSED',
      );
      expect((await call(server.api, '/webhooks', { token: gina.accessToken })).body.webhooks).to.deep.equal([]);
    });
  });

  describe('safe targets (the default: https and public addresses only)', () => {
    let server: TestServer;
    let receiver: WebhookReceiver;
    let token: string;
    before(async () => {
      server = await startTestServer();
      receiver = await WebhookReceiver.start();
      token = (await signUp(server, 'hooks-ssrf@example.com')).accessToken;
    });
    after(async () => {
      await server.stop();
      await receiver.stop();
    });

    const refusedTargets = [
      ['loopback', 'https://127.0.0.1/hook'],
      ['loopback IPv6', 'https://[::1]/hook'],
      ['private 10/8', 'https://10.1.2.3/hook'],
      ['private 172.16/12', 'https://172.20.0.1/hook'],
      ['private 192.168/16', 'https://192.168.1.10/hook'],
      ['link-local and cloud metadata', 'https://169.254.169.254/latest/meta-data'],
      ['unique-local IPv6', 'https://[fd12:3456::1]/hook'],
      ['link-local IPv6', 'https://[fe80::1]/hook'],
      ['multicast', 'https://224.0.0.1/hook'],
      ['multicast IPv6', 'https://[ff02::1]/hook'],
      ['IPv4-mapped loopback', 'https://[::ffff:127.0.0.1]/hook'],
      ['this network', 'https://0.0.0.0/hook'],
      ['a hostname resolving to 127.0.0.1', 'https://localhost/hook'],
    ] as const;
    for (const [kind, url] of refusedTargets) {
      it(`refuses a ${kind} address (${url}) at creation`, async () => {
        const refused = await call(server.api, '/webhooks', { method: 'POST', token, json: { url, events: ['file.created'] } });
        expectError(refused, 400, 'WEBHOOK_URL_REFUSED');
      });
    }

    it('refuses http:// without WEBHOOK_ALLOW_HTTP', async () => {
      expectError(
        await call(server.api, '/webhooks', { method: 'POST', token, json: { url: 'http://93.184.215.14/hook', events: ['file.created'] } }),
        400,
        'WEBHOOK_URL_REFUSED',
      );
    });
  });

  describe('safe targets at delivery', () => {
    let server: TestServer;
    let receiver: WebhookReceiver;
    let redirector: WebhookReceiver;
    before(async () => {
      // Private networks allowed at creation (so an endpoint can be made), then checked again at delivery:
      // the redirecting receiver's 302 to a loopback address is not followed.
      server = await startTestServer(LOCAL);
      receiver = await WebhookReceiver.start();
      redirector = await WebhookReceiver.start();
    });
    after(async () => {
      await server.stop();
      await receiver.stop();
      await redirector.stop();
    });

    it('does not follow a redirect: a 302 answer is a failed attempt, to be retried', async () => {
      const henry = await signUp(server, 'hooks-henry@example.com');
      redirector.script = [302];
      const { webhook } = (
        await call(server.api, '/webhooks', { method: 'POST', token: henry.accessToken, json: { url: redirector.url('/r'), events: ['file.created'] } })
      ).body;
      await call(server.api, `/webhooks/${webhook.id}/test`, { method: 'POST', token: henry.accessToken });
      await redirector.waitFor(1);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(receiver.received).to.have.length(0);
      const log = await call(server.api, `/webhooks/${webhook.id}/deliveries`, { token: henry.accessToken });
      expect(log.body.deliveries[0]).to.include({ state: 'pending', attempts: 1, last_status: 302, last_error: 'HTTP 302' });
    });
  });
});
