import { expect } from 'chai';
import { HttpWebhookSender } from '../../adapters/webhooks/http-webhook-sender.js';
import { isPublicAddress, PublicAddressPolicy } from '../../adapters/webhooks/public-addresses.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

describe('Webhook targets: public addresses only (adapters/webhooks)', () => {
  it('accepts public IPv4 and IPv6 addresses', () => {
    for (const address of ['8.8.8.8', '93.184.215.14', '1.1.1.1', '2606:4700:4700::1111', '2a00:1450:4001:80b::200e'])
      expect(isPublicAddress(address), address).to.equal(true);
  });

  it('refuses loopback, private, shared, link-local, unique-local, multicast, reserved and translated addresses', () => {
    for (const address of [
      '127.0.0.1',
      '127.255.0.9',
      '0.0.0.0',
      '10.0.0.1',
      '100.64.0.1',
      '169.254.169.254',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.0.1',
      '192.0.2.1',
      '198.18.0.1',
      '224.0.0.251',
      '239.1.2.3',
      '240.0.0.1',
      '255.255.255.255',
      '::',
      '::1',
      'fe80::1',
      'fd00::1',
      'fc00::1',
      'ff02::1',
      '2001:db8::1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:10.0.0.1',
      '::ffff:a9fe:a9fe',
      '64:ff9b::7f00:1',
      '2002:7f00:1::',
      'not an address',
    ]) {
      expect(isPublicAddress(address), address).to.equal(false);
    }
  });

  it('refuses a name when any of its addresses is not public, and one that does not resolve', async () => {
    const policy = new PublicAddressPolicy({
      resolve: async () => [
        { address: '93.184.215.14', family: 4 },
        { address: '10.0.0.7', family: 4 },
      ],
    });
    const refused = await policy.resolve('mixed.example').catch((error: unknown) => error);
    expect(refused).to.have.property('code', 'WEBHOOK_URL_REFUSED');
    const nowhere = new PublicAddressPolicy({ resolve: async () => [] });
    expect(await nowhere.resolve('nowhere.example').catch((error: unknown) => error)).to.have.property('code', 'WEBHOOK_URL_REFUSED');
  });

  it('checks again at delivery, after resolving: a name that now resolves to loopback is not contacted', async () => {
    const receiver = await WebhookReceiver.start();
    try {
      const port = new URL(receiver.url()).port;
      const sender = new HttpWebhookSender({
        policy: new PublicAddressPolicy({ resolve: async () => [{ address: '127.0.0.1', family: 4 }] }),
        allowHttp: true,
      });
      const failure = await sender
        .send({ url: `http://rebind.example:${port}/hook`, headers: {}, body: '{}', timeoutMs: 2000 })
        .catch((error: unknown) => error);
      expect(String(failure)).to.match(/refused: .*127\.0\.0\.1.*not a public address/);
      expect(receiver.received).to.deep.equal([]);
    } finally {
      await receiver.stop();
    }
  });

  it('connects to the address it checked, whatever the name would resolve to afterwards', async () => {
    const receiver = await WebhookReceiver.start();
    try {
      const port = new URL(receiver.url()).port;
      // The name does not exist in DNS: the connection can only have gone to the checked address.
      const sender = new HttpWebhookSender({
        policy: new PublicAddressPolicy({ allowPrivateNetworks: true, resolve: async () => [{ address: '127.0.0.1', family: 4 }] }),
        allowHttp: true,
      });
      expect(await sender.send({ url: `http://pinned.invalid:${port}/hook`, headers: {}, body: '{"ok":true}', timeoutMs: 2000 })).to.deep.equal({
        status: 204,
      });
      expect(receiver.received.map((r) => [r.headers.host, r.body])).to.deep.equal([[`pinned.invalid:${port}`, '{"ok":true}']]);
    } finally {
      await receiver.stop();
    }
  });
});
