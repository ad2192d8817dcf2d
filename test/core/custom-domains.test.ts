import { expect } from 'chai';
import { type CustomDomain, DomainError, normaliseHostname } from '../../core/index.js';
import { createDomainsWorld, RESERVED_HOSTS, until } from '../support/custom-domain-doubles.js';
import { expectDomainError, gate, settle } from '../support/memory-hangar.js';

const START = new Date('2025-03-01T12:00:00.000Z');

/** A valid-looking hostname of exactly `length` characters: labels of 63 letters, then the rest. */
function hostnameOfLength(length: number): string {
  const labels: string[] = [];
  let left = length;
  while (left > 0) {
    if (labels.length > 0) left -= 1; // the dot before this label
    const size = Math.min(63, left);
    labels.push('a'.repeat(size));
    left -= size;
  }
  const hostname = labels.join('.');
  if (hostname.length !== length || labels.length < 2 || labels.includes('')) throw new Error(`cannot build a ${length}-character hostname`);
  return hostname;
}

function refusal(run: () => unknown): DomainError {
  try {
    run();
  } catch (error) {
    expect(error).to.be.instanceOf(DomainError);
    return error as DomainError;
  }
  throw new Error('expected a DomainError, but it returned');
}

describe('normaliseHostname', () => {
  const accepted: [string, string][] = [
    ['files.example.com', 'files.example.com'],
    ['Files.EXAMPLE.Com', 'files.example.com'],
    ['files.example.com.', 'files.example.com'],
    ['xn--bcher-kva.example', 'xn--bcher-kva.example'],
    ['files.xn--p1ai', 'files.xn--p1ai'],
    [`${'a'.repeat(63)}.example.com`, `${'a'.repeat(63)}.example.com`],
    ['3d-files.example.io', '3d-files.example.io'],
    [hostnameOfLength(253), hostnameOfLength(253)],
    [`${hostnameOfLength(253)}.`, hostnameOfLength(253)],
  ];
  for (const [input, expected] of accepted) {
    it(`accepts ${JSON.stringify(input.length > 70 ? `${input.slice(0, 30)}… (${input.length} chars)` : input)} as ${expected.length > 70 ? `${expected.length} chars` : expected}`, () => {
      expect(normaliseHostname(input, RESERVED_HOSTS)).to.equal(expected);
    });
  }

  const refused: [string, string][] = [
    ['a scheme', 'https://files.example.com'],
    ['a port', 'files.example.com:8443'],
    ['a path', 'files.example.com/files'],
    ['a wildcard', '*.example.com'],
    ['an IPv4 address', '192.168.10.20'],
    ['an IPv4 address with a trailing dot', '10.0.0.1.'],
    ['an IPv6 address', '2001:db8::1'],
    ['a bracketed IPv6 address', '[::1]'],
    ['a single label', 'localhost'],
    ['an empty string', ''],
    ['blanks', '   '],
    ['a 64-character label', `${'a'.repeat(64)}.example.com`],
    ['a leading hyphen', '-files.example.com'],
    ['a trailing hyphen', 'files-.example.com'],
    ['an underscore', 'my_files.example.com'],
    ['an empty label', 'files..example.com'],
    ['a leading dot', '.example.com'],
    ['254 characters', hostnameOfLength(254)],
    ['300 characters', hostnameOfLength(300)],
    ['a numeric top-level label', 'files.example.123'],
    ['non-ASCII letters (not punycode)', 'bücher.example'],
    ['the service’s API host', 'api.test'],
    ['the service’s content host', 'cdn.test'],
    ['the service’s content host in upper case with a trailing dot', 'CDN.Test.'],
  ];
  for (const [what, input] of refused) {
    it(`refuses ${what} with INVALID_HOSTNAME`, () => {
      expect(refusal(() => normaliseHostname(input, RESERVED_HOSTS)).code).to.equal('INVALID_HOSTNAME');
    });
  }
});

describe('CustomDomains', () => {
  describe('set', () => {
    it('creates the normalised hostname at the provider and stores it pending with the CNAME, then the provider’s TXT records', async () => {
      const { customDomains, edge, store } = createDomainsWorld(START);
      const returned = await customDomains.set('alice', 'Files.Example.COM.');

      expect(edge.calls).to.deep.equal([{ method: 'create', arg: 'files.example.com' }]);
      const { hostname: created } = edge.created[0];
      expect(created.validationRecords.map((r) => r.type)).to.deep.equal(['TXT', 'TXT']);
      const expected: CustomDomain = {
        userId: 'alice',
        hostname: 'files.example.com',
        providerId: created.providerId,
        verificationStatus: 'pending',
        sslStatus: 'initializing',
        dnsRecords: [{ type: 'CNAME', name: 'files.example.com', value: 'cdn.test', purpose: 'routing' }, ...created.validationRecords],
        errors: [],
        createdAt: START,
        updatedAt: START,
      };
      expect(await store.findByUser('alice')).to.deep.equal(expected);
      expect(await store.findByHostname('files.example.com')).to.deep.equal(expected);
      expect(returned).to.deep.equal(expected);
    });

    for (const [target, type] of [
      ['203.0.113.7', 'A'],
      ['2001:db8::7', 'AAAA'],
    ] as const) {
      it(`asks for an ${type} record to ${target} when that is the edge's target (a CNAME cannot point at an address)`, async () => {
        const { customDomains } = createDomainsWorld(START, target);
        const domain = await customDomains.set('alice', 'files.example.com');
        expect(domain.dnsRecords[0]).to.deep.equal({ type, name: 'files.example.com', value: target, purpose: 'routing' });
        const refreshed = await customDomains.refresh('alice');
        expect(refreshed.dnsRecords[0].type).to.equal(type);
      });
    }

    it('changes nothing and calls no provider when the same hostname is set again (in any case)', async () => {
      const { customDomains, edge, store, clock } = createDomainsWorld(START);
      await customDomains.set('alice', 'files.example.com');
      const before = await store.findByUser('alice');
      edge.reset();
      clock.advance(60_000);
      const again = await customDomains.set('alice', 'FILES.example.com.');
      expect(edge.calls).to.deep.equal([]);
      expect(again).to.deep.equal(before);
      expect(await store.findByUser('alice')).to.deep.equal(before);
    });

    it('replaces the hostname: the new one is created and stored first, then the old one is deleted at the provider', async () => {
      const { customDomains, edge, store, atProvider } = createDomainsWorld(START);
      const old = await customDomains.set('alice', 'old.example.com');
      edge.reset();
      let storedWhenDeleting: CustomDomain | undefined;
      edge.beforeCall = async (call) => {
        if (call.method === 'delete') storedWhenDeleting = await store.findByUser('alice');
      };

      const replaced = await customDomains.set('alice', 'new.example.com');

      expect(edge.calls).to.deep.equal([
        { method: 'create', arg: 'new.example.com' },
        { method: 'delete', arg: old.providerId },
      ]);
      expect(storedWhenDeleting?.hostname, 'the new hostname is stored before the old one is deleted').to.equal('new.example.com');
      expect(await atProvider(old.providerId)).to.equal(false);
      expect(await atProvider(replaced.providerId)).to.equal(true);
      expect((await store.findByUser('alice'))?.hostname).to.equal('new.example.com');
      expect(await store.findByHostname('old.example.com')).to.equal(undefined);
      expect((await store.findByHostname('new.example.com'))?.userId).to.equal('alice');
    });

    it('still replaces the hostname when deleting the old one at the provider fails (it is no longer referenced)', async () => {
      const { customDomains, edge, store } = createDomainsWorld(START);
      await customDomains.set('alice', 'old.example.com');
      edge.failNext('delete');
      await customDomains.set('alice', 'new.example.com');
      expect((await store.findByUser('alice'))?.hostname).to.equal('new.example.com');
    });

    it('answers EDGE_PROVIDER_ERROR and stores nothing when the provider cannot create the hostname', async () => {
      const { customDomains, edge, store, domains } = createDomainsWorld(START);
      edge.failNext('create');
      await expectDomainError(customDomains.set('alice', 'files.example.com'), 'EDGE_PROVIDER_ERROR');
      expect(domains.saves).to.deep.equal([]);
      expect(await store.findByUser('alice')).to.equal(undefined);
      expect(await store.findByHostname('files.example.com')).to.equal(undefined);
    });

    it('keeps the current hostname, here and at the provider, when creating its replacement fails (the mock’s edge-error outage)', async () => {
      const { customDomains, edge, store, atProvider } = createDomainsWorld(START);
      const current = await customDomains.set('alice', 'files.example.com');
      edge.reset();
      await expectDomainError(customDomains.set('alice', 'edge-error.example.com'), 'EDGE_PROVIDER_ERROR');
      expect(edge.argsOf('delete')).to.deep.equal([]);
      expect(await store.findByUser('alice')).to.deep.equal(current);
      expect(await atProvider(current.providerId)).to.equal(true);
    });

    it('deletes the new provider hostname again and passes the error on when storing it throws', async () => {
      const { customDomains, edge, store, domains, atProvider } = createDomainsWorld(START);
      const failure = new Error('database is unreachable');
      domains.throwOnNextSave(failure);

      const outcome = await customDomains.set('alice', 'files.example.com').then(
        () => 'resolved',
        (error: unknown) => error,
      );

      expect(outcome).to.equal(failure);
      const { providerId } = edge.created[0].hostname;
      expect(edge.calls).to.deep.equal([
        { method: 'create', arg: 'files.example.com' },
        { method: 'delete', arg: providerId },
      ]);
      expect(await atProvider(providerId)).to.equal(false);
      expect(await store.findByUser('alice')).to.equal(undefined);
    });

    it('keeps the current hostname, here and at the provider, when storing its replacement throws', async () => {
      const { customDomains, edge, store, domains, atProvider } = createDomainsWorld(START);
      const current = await customDomains.set('alice', 'old.example.com');
      edge.reset();
      domains.throwOnNextSave();
      await customDomains.set('alice', 'new.example.com').then(
        () => expect.fail('set resolved'),
        () => undefined,
      );
      expect(edge.argsOf('delete')).to.deep.equal([edge.created[0].hostname.providerId]);
      expect(await store.findByUser('alice')).to.deep.equal(current);
      expect(await atProvider(current.providerId)).to.equal(true);
    });

    it('deletes the new provider hostname again and answers HOSTNAME_TAKEN when the store answers taken', async () => {
      const { customDomains, edge, store, domains, atProvider } = createDomainsWorld(START);
      domains.answerTakenOnNextSave();
      await expectDomainError(customDomains.set('alice', 'files.example.com'), 'HOSTNAME_TAKEN');
      const { providerId } = edge.created[0].hostname;
      expect(edge.argsOf('delete')).to.deep.equal([providerId]);
      expect(await atProvider(providerId)).to.equal(false);
      expect(await store.findByUser('alice')).to.equal(undefined);
    });

    it('answers HOSTNAME_TAKEN without calling the provider when another account holds the hostname', async () => {
      const { customDomains, edge, store, atProvider } = createDomainsWorld(START);
      const bobs = await customDomains.set('bob', 'files.example.com');
      edge.reset();
      await expectDomainError(customDomains.set('alice', 'Files.Example.com'), 'HOSTNAME_TAKEN');
      expect(edge.calls).to.deep.equal([]);
      expect(await store.findByUser('alice')).to.equal(undefined);
      expect(await store.findByHostname('files.example.com')).to.deep.equal(bobs);
      expect(await atProvider(bobs.providerId)).to.equal(true);
    });

    it('adopts a hostname the provider already has when no account here holds it', async () => {
      const { customDomains, edge, store, mock } = createDomainsWorld(START);
      const leftover = await mock.create({ hostname: 'files.example.com' });
      const adopted = await customDomains.set('alice', 'files.example.com');
      expect(edge.created.map((c) => c.exists)).to.deep.equal([true]);
      expect(edge.argsOf('delete')).to.deep.equal([]);
      expect(adopted.providerId).to.equal(leftover.hostname.providerId);
      expect((await store.findByHostname('files.example.com'))?.userId).to.equal('alice');
    });

    it('does not delete an adopted hostname at the provider when storing it then throws', async () => {
      const { customDomains, edge, store, domains, mock, atProvider } = createDomainsWorld(START);
      const leftover = await mock.create({ hostname: 'files.example.com' });
      domains.throwOnNextSave();
      await customDomains.set('alice', 'files.example.com').then(
        () => expect.fail('set resolved'),
        () => undefined,
      );
      expect(edge.argsOf('delete')).to.deep.equal([]);
      expect(await atProvider(leftover.hostname.providerId)).to.equal(true);
      expect(await store.findByUser('alice')).to.equal(undefined);
    });

    it('does not delete an adopted hostname at the provider when the store answers taken', async () => {
      const { customDomains, edge, domains, mock, atProvider } = createDomainsWorld(START);
      const leftover = await mock.create({ hostname: 'files.example.com' });
      domains.answerTakenOnNextSave();
      await expectDomainError(customDomains.set('alice', 'files.example.com'), 'HOSTNAME_TAKEN');
      expect(edge.argsOf('delete')).to.deep.equal([]);
      expect(await atProvider(leftover.hostname.providerId)).to.equal(true);
    });

    it('lets exactly one of two accounts racing for one hostname win, and the winner’s hostname stays at the provider', async () => {
      const { customDomains, store, atProvider } = createDomainsWorld(START);
      const { values, codes } = await settle([customDomains.set('alice', 'files.example.com'), customDomains.set('bob', 'files.example.com')]);
      expect(values).to.have.length(1);
      expect(codes).to.deep.equal(['HOSTNAME_TAKEN']);
      const winner = values[0];
      expect(await store.findByHostname('files.example.com')).to.deep.equal(winner);
      const loser = winner.userId === 'alice' ? 'bob' : 'alice';
      expect(await store.findByUser(loser)).to.equal(undefined);
      expect(await atProvider(winner.providerId)).to.equal(true);
    });

    it('keeps the winner’s hostname at the provider when the account that created it stores last and loses the race', async () => {
      // Alice creates the hostname at the provider, but her write is slow; meanwhile Bob finds no
      // holder, adopts the provider's hostname (exists: true) and stores it. Alice's write is then
      // refused (taken): her compensation must not delete the hostname Bob now relies on.
      const { customDomains, domains, store, atProvider } = createDomainsWorld(START);
      const slowWrite = gate();
      domains.holdNextSave(slowWrite.promise);
      const alices = customDomains.set('alice', 'files.example.com');
      await until(() => domains.saves.length === 1);
      const bobs = await customDomains.set('bob', 'files.example.com');
      slowWrite.open();
      await expectDomainError(alices, 'HOSTNAME_TAKEN');

      expect(await store.findByHostname('files.example.com')).to.deep.equal(bobs);
      expect(await atProvider(bobs.providerId), 'Bob’s stored hostname still exists at the provider').to.equal(true);
    });

    it('leaves no hostname at the provider that no account holds when one account sets two hostnames at once', async () => {
      const { customDomains, edge, store, atProvider } = createDomainsWorld(START);
      await settle([customDomains.set('alice', 'one.example.com'), customDomains.set('alice', 'two.example.com')]);
      const stored = await store.findByUser('alice');
      expect(stored).to.not.equal(undefined);
      const orphans: string[] = [];
      for (const { hostname } of edge.created) {
        if (hostname.providerId !== stored!.providerId && (await atProvider(hostname.providerId))) orphans.push(hostname.hostname);
      }
      expect(orphans, 'hostnames left at the provider that no account holds').to.deep.equal([]);
    });
  });

  describe('remove', () => {
    it('deletes the hostname at the provider first, then locally', async () => {
      const { customDomains, edge, store, atProvider } = createDomainsWorld(START);
      const domain = await customDomains.set('alice', 'files.example.com');
      edge.reset();
      let storedWhenDeleting: CustomDomain | undefined;
      edge.beforeCall = async () => {
        storedWhenDeleting = await store.findByUser('alice');
      };

      await customDomains.remove('alice');

      expect(edge.calls).to.deep.equal([{ method: 'delete', arg: domain.providerId }]);
      expect(storedWhenDeleting, 'still stored while the provider deletes it').to.deep.equal(domain);
      expect(await atProvider(domain.providerId)).to.equal(false);
      expect(await store.findByUser('alice')).to.equal(undefined);
      expect(await store.findByHostname('files.example.com')).to.equal(undefined);
    });

    it('answers EDGE_PROVIDER_ERROR and keeps the domain when the provider cannot delete it', async () => {
      const { customDomains, edge, store, atProvider } = createDomainsWorld(START);
      const domain = await customDomains.set('alice', 'files.example.com');
      edge.failNext('delete');
      await expectDomainError(customDomains.remove('alice'), 'EDGE_PROVIDER_ERROR');
      expect(await store.findByUser('alice')).to.deep.equal(domain);
      expect(await store.findByHostname('files.example.com')).to.deep.equal(domain);
      expect(await atProvider(domain.providerId)).to.equal(true);
    });

    it('does nothing, and calls no provider, when the account has no custom domain', async () => {
      const { customDomains, edge, store } = createDomainsWorld(START);
      await customDomains.set('bob', 'bob.example.com');
      edge.reset();
      await customDomains.remove('alice');
      expect(edge.calls).to.deep.equal([]);
      expect((await store.findByUser('bob'))?.hostname).to.equal('bob.example.com');
    });

    it('lets the hostname be taken by another account afterwards', async () => {
      const { customDomains, store } = createDomainsWorld(START);
      await customDomains.set('alice', 'files.example.com');
      await customDomains.remove('alice');
      await customDomains.set('bob', 'files.example.com');
      expect((await store.findByHostname('files.example.com'))?.userId).to.equal('bob');
    });
  });

  describe('refresh', () => {
    it('stores the provider’s new statuses (active) and records, keeping createdAt', async () => {
      const { customDomains, edge, store, clock } = createDomainsWorld(START);
      const domain = await customDomains.set('alice', 'files.example.com');
      edge.reset();
      clock.advance(5_000);

      const refreshed = await customDomains.refresh('alice');

      expect(edge.calls).to.deep.equal([{ method: 'refresh', arg: domain.providerId }]);
      const expected: CustomDomain = {
        ...domain,
        verificationStatus: 'active',
        sslStatus: 'active',
        dnsRecords: [{ type: 'CNAME', name: 'files.example.com', value: 'cdn.test', purpose: 'routing' }],
        createdAt: START,
        updatedAt: new Date(START.getTime() + 5_000),
      };
      expect(refreshed).to.deep.equal(expected);
      expect(await store.findByUser('alice')).to.deep.equal(expected);
      expect(await store.findByHostname('files.example.com')).to.deep.equal(expected);
    });

    it('answers NO_CUSTOM_DOMAIN, without calling the provider, when the account has none', async () => {
      const { customDomains, edge } = createDomainsWorld(START);
      await expectDomainError(customDomains.refresh('alice'), 'NO_CUSTOM_DOMAIN');
      expect(edge.calls).to.deep.equal([]);
    });

    it('answers EDGE_PROVIDER_ERROR and keeps the stored statuses when the provider fails', async () => {
      const { customDomains, edge, store, clock } = createDomainsWorld(START);
      const domain = await customDomains.set('alice', 'files.example.com');
      edge.failNext('refresh');
      clock.advance(5_000);
      await expectDomainError(customDomains.refresh('alice'), 'EDGE_PROVIDER_ERROR');
      expect(await store.findByUser('alice')).to.deep.equal(domain);
    });

    it('does not bring back a domain removed while the provider’s answer to a refresh was on its way', async () => {
      const { customDomains, edge, store, atProvider } = createDomainsWorld(START);
      const domain = await customDomains.set('alice', 'files.example.com');
      const inTransit = gate();
      edge.holdAnswerOfNext('refresh', inTransit.promise);
      const refreshing = customDomains.refresh('alice').catch(() => undefined);
      await until(() => edge.argsOf('refresh').length === 1);
      // Removal asked for while the refresh is under way; it must win, whatever order the work runs in.
      const removing = customDomains.remove('alice');
      inTransit.open();
      await Promise.all([refreshing, removing]);

      expect(await atProvider(domain.providerId)).to.equal(false);
      expect(await store.findByUser('alice'), 'removed here as at the provider').to.equal(undefined);
    });
  });
});
