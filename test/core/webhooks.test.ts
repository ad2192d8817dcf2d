import { expect } from 'chai';
import { createMemoryHangar, expectDomainError, START } from '../support/memory-hangar.js';

// IP literals: the address check needs no DNS. 93.184.215.14 is public; the rest are not.
const PUBLIC_URL = 'https://93.184.215.14/hooks';

async function world(options: { maxPerAccount?: number; allowHttp?: boolean } = {}) {
  const made = createMemoryHangar({ webhooks: options });
  const alice = await made.registerConfirmed('alice@example.com');
  const bob = await made.registerConfirmed('bob@example.com');
  return { ...made, alice, bob };
}

describe('Webhooks (core use cases)', () => {
  it('shows a file event’s read counts as the snapshot taken when it happened, not the reads made since', async () => {
    const { hangar, alice, upload } = await world();
    const { file } = await upload(alice.userId, { fileName: 'a.txt', size: 12 });
    // A read this process has not written yet: GET /files/:id shows it, the earlier event does not.
    await hangar.readPublicFile.execute({ fileId: file.fileId });
    expect((await hangar.getFile.execute({ userId: alice.userId, fileId: file.fileId })).file.viewCount).to.equal(1);
    const view = await hangar.viewWebhookEvent.execute({ type: 'file.created', userId: alice.userId, occurredAt: new Date(), file });
    expect(view.kind === 'file' && view.file.file.viewCount).to.equal(0);
    const later = await hangar.viewWebhookEvent.execute({
      type: 'file.updated',
      userId: alice.userId,
      occurredAt: new Date(),
      file: { ...file, viewCount: 5 },
    });
    expect(later.kind === 'file' && later.file.file.viewCount).to.equal(5);
  });

  it('creates an enabled endpoint with its events in the canonical order and a whsec_ secret', async () => {
    const { hangar, alice } = await world();
    const { webhook, secret } = await hangar.createWebhook.execute({
      userId: alice.userId,
      url: PUBLIC_URL,
      events: ['file.deleted', 'file.created', 'file.created'],
      description: '  mine  ',
    });
    expect(secret).to.match(/^whsec_[0-9A-Za-z]{44}$/);
    expect(Buffer.from(secret.slice(6), 'base64')).to.have.length(33);
    expect(webhook).to.deep.include({
      userId: alice.userId,
      url: PUBLIC_URL,
      events: ['file.created', 'file.deleted'],
      description: 'mine',
      enabled: true,
      disabledReason: null,
      createdAt: START,
    });
    expect(await hangar.listWebhooks.execute({ userId: alice.userId })).to.deep.equal([webhook]);
  });

  it('refuses a non-https URL, credentials, a fragment, a private address, unknown or no events, and a long description, storing nothing', async () => {
    const { hangar, alice } = await world();
    const attempt = (input: { url?: string; events?: string[]; description?: string }) =>
      hangar.createWebhook.execute({
        userId: alice.userId,
        url: input.url ?? PUBLIC_URL,
        events: input.events ?? ['file.created'],
        description: input.description,
      });
    await expectDomainError(attempt({ url: 'http://93.184.215.14/hooks' }), 'WEBHOOK_URL_REFUSED');
    await expectDomainError(attempt({ url: 'https://user:pw@93.184.215.14/' }), 'VALIDATION_FAILED');
    await expectDomainError(attempt({ url: 'https://93.184.215.14/#x' }), 'VALIDATION_FAILED');
    await expectDomainError(attempt({ url: 'https://192.168.1.1/' }), 'WEBHOOK_URL_REFUSED');
    await expectDomainError(attempt({ url: 'https://[::1]/' }), 'WEBHOOK_URL_REFUSED');
    await expectDomainError(attempt({ url: `https://93.184.215.14/${'a'.repeat(2048)}` }), 'VALIDATION_FAILED');
    await expectDomainError(attempt({ events: ['file.exploded'] }), 'VALIDATION_FAILED');
    await expectDomainError(attempt({ events: [] }), 'VALIDATION_FAILED');
    await expectDomainError(attempt({ description: 'd'.repeat(257) }), 'VALIDATION_FAILED');
    expect(await hangar.listWebhooks.execute({ userId: alice.userId })).to.deep.equal([]);
  });

  it('accepts http:// when the service allows it', async () => {
    const { hangar, alice } = await world({ allowHttp: true });
    expect((await hangar.createWebhook.execute({ userId: alice.userId, url: 'http://93.184.215.14/hooks', events: ['file.created'] })).webhook.url).to.equal(
      'http://93.184.215.14/hooks',
    );
  });

  it('refuses the endpoint past the account’s cap with WEBHOOK_LIMIT_REACHED; another account is not counted', async () => {
    const { hangar, alice, bob } = await world({ maxPerAccount: 2 });
    for (let i = 0; i < 2; i++) await hangar.createWebhook.execute({ userId: alice.userId, url: `${PUBLIC_URL}/${i}`, events: ['file.created'] });
    await expectDomainError(hangar.createWebhook.execute({ userId: alice.userId, url: PUBLIC_URL, events: ['file.created'] }), 'WEBHOOK_LIMIT_REACHED');
    await hangar.createWebhook.execute({ userId: bob.userId, url: PUBLIC_URL, events: ['file.created'] });
  });

  it('answers WEBHOOK_NOT_FOUND for another account’s endpoint on every operation, changing nothing', async () => {
    const { hangar, alice, bob } = await world();
    const { webhook } = await hangar.createWebhook.execute({ userId: alice.userId, url: PUBLIC_URL, events: ['file.created'] });
    const input = { userId: bob.userId, id: webhook.id };
    await expectDomainError(hangar.getWebhook.execute(input), 'WEBHOOK_NOT_FOUND');
    await expectDomainError(hangar.updateWebhook.execute({ ...input, enabled: false }), 'WEBHOOK_NOT_FOUND');
    await expectDomainError(hangar.rotateWebhookSecret.execute(input), 'WEBHOOK_NOT_FOUND');
    await expectDomainError(hangar.sendTestWebhook.execute(input), 'WEBHOOK_NOT_FOUND');
    await expectDomainError(hangar.listWebhookDeliveries.execute({ ...input, page: 1, limit: 10 }), 'WEBHOOK_NOT_FOUND');
    await expectDomainError(hangar.retryWebhookDelivery.execute({ ...input, deliveryId: 'msg_x' }), 'WEBHOOK_NOT_FOUND');
    await expectDomainError(hangar.deleteWebhook.execute(input), 'WEBHOOK_NOT_FOUND');
    expect(await hangar.getWebhook.execute({ userId: alice.userId, id: webhook.id })).to.deep.equal(webhook);
  });

  it('changes URL, events and state, rotates the secret, and queues a test delivery that shows in the log', async () => {
    const { hangar, alice } = await world();
    const { webhook, secret } = await hangar.createWebhook.execute({ userId: alice.userId, url: PUBLIC_URL, events: ['file.created'] });
    const changed = await hangar.updateWebhook.execute({
      userId: alice.userId,
      id: webhook.id,
      url: 'https://1.1.1.1/h',
      events: ['share.created'],
      enabled: false,
    });
    expect(changed).to.deep.include({ url: 'https://1.1.1.1/h', events: ['share.created'], enabled: false });
    await expectDomainError(hangar.updateWebhook.execute({ userId: alice.userId, id: webhook.id, url: 'https://10.0.0.1/' }), 'WEBHOOK_URL_REFUSED');
    const rotated = await hangar.rotateWebhookSecret.execute({ userId: alice.userId, id: webhook.id });
    expect(rotated.secret)
      .to.match(/^whsec_/)
      .and.not.equal(secret);
    const { deliveryId } = await hangar.sendTestWebhook.execute({ userId: alice.userId, id: webhook.id });
    const log = await hangar.listWebhookDeliveries.execute({ userId: alice.userId, id: webhook.id, page: 1, limit: 10 });
    expect(log.items.map((d) => [d.id, d.eventType, d.state])).to.deep.equal([[deliveryId, 'webhook.test', 'pending']]);
    await expectDomainError(
      hangar.retryWebhookDelivery.execute({ userId: alice.userId, id: webhook.id, deliveryId: 'msg_unknown' }),
      'WEBHOOK_DELIVERY_NOT_FOUND',
    );
  });
});
