import { expect } from 'chai';
import type { UserRepository } from '../../core/accounts/user-repository.js';
import type { CustomDomain } from '../../core/domains/custom-domain.js';
import type { CustomDomainRepository } from '../../core/domains/custom-domain-repository.js';
import { at, givenUser } from './persistence-fixtures.js';

/** What a {@link describeCustomDomainRepositoryContract} factory returns: repositories over one empty store. */
export interface CustomDomainRepositorySubject {
  subject: CustomDomainRepository;
  /** Creates and deletes the accounts that own domains (a database checks the foreign key). */
  users: UserRepository;
  close?: () => Promise<void>;
}

/** A pending custom domain of `userId` with its DNS records, `overrides` replacing fields. */
export function aCustomDomain(userId: string, overrides: Partial<CustomDomain> = {}): CustomDomain {
  const hostname = overrides.hostname ?? 'files.example.com';
  return {
    userId,
    hostname,
    providerId: `mock-${hostname}`,
    verificationStatus: 'pending',
    sslStatus: 'initializing',
    dnsRecords: [
      { type: 'CNAME', name: hostname, value: 'customers.hangar.example', purpose: 'routing' },
      { type: 'TXT', name: `_cf-custom-hostname.${hostname}`, value: '5cc07c04-ea62-4a5a-95f0-419334a875a4', purpose: 'ownership' },
      { type: 'TXT', name: `_acme-challenge.${hostname}`, value: '810b7d5f01154524b961ba0cd578acc2', purpose: 'ssl_validation' },
    ],
    errors: ['custom hostname does not CNAME to this zone.'],
    createdAt: at(0),
    updatedAt: at(0),
    ...overrides,
  };
}

/**
 * The behaviour every {@link CustomDomainRepository} adapter must have
 * (core/domains/custom-domain-repository.ts): one domain per account, hostnames unique across
 * accounts (`taken`, also under a race), delete, and removal with the account. `makeSubject` is
 * called once per test.
 */
export function describeCustomDomainRepositoryContract(name: string, makeSubject: () => Promise<CustomDomainRepositorySubject>): void {
  describe(`CustomDomainRepository contract: ${name}`, () => {
    let domains: CustomDomainRepository;
    let users: UserRepository;
    let close: (() => Promise<void>) | undefined;
    let alice: string;
    let bob: string;

    beforeEach(async () => {
      ({ subject: domains, users, close } = await makeSubject());
      alice = (await givenUser(users)).id;
      bob = (await givenUser(users)).id;
    });
    afterEach(async () => {
      await close?.();
    });

    it('stores a domain and finds it by account and by hostname, every field intact', async () => {
      const domain = aCustomDomain(alice, { createdAt: at(5), updatedAt: at(7) });
      expect(await domains.save(domain)).to.equal('saved');
      expect(await domains.findByUser(alice)).to.deep.equal(domain);
      expect(await domains.findByHostname('files.example.com')).to.deep.equal(domain);
    });

    it('answers undefined for an account without a domain and for an unknown hostname', async () => {
      await domains.save(aCustomDomain(alice));
      expect(await domains.findByUser(bob)).to.equal(undefined);
      expect(await domains.findByHostname('other.example.com')).to.equal(undefined);
    });

    it('keeps empty record and error lists empty', async () => {
      const domain = aCustomDomain(alice, { dnsRecords: [], errors: [], verificationStatus: 'active', sslStatus: 'active' });
      await domains.save(domain);
      expect(await domains.findByUser(alice)).to.deep.equal(domain);
    });

    it("replaces the account's domain on a second save with new statuses", async () => {
      await domains.save(aCustomDomain(alice));
      const refreshed = aCustomDomain(alice, { verificationStatus: 'active', sslStatus: 'active', dnsRecords: [], errors: [], updatedAt: at(60_000) });
      expect(await domains.save(refreshed)).to.equal('saved');
      expect(await domains.findByUser(alice)).to.deep.equal(refreshed);
    });

    it("replaces the account's hostname: the old one is free again", async () => {
      await domains.save(aCustomDomain(alice, { hostname: 'old.example.com' }));
      expect(await domains.save(aCustomDomain(alice, { hostname: 'new.example.com' }))).to.equal('saved');
      expect(await domains.findByHostname('old.example.com')).to.equal(undefined);
      expect((await domains.findByHostname('new.example.com'))?.userId).to.equal(alice);
      expect((await domains.findByUser(alice))?.hostname).to.equal('new.example.com');
      expect(await domains.save(aCustomDomain(bob, { hostname: 'old.example.com' }))).to.equal('saved');
    });

    it('answers taken for a hostname another account holds, and stores nothing', async () => {
      const alices = aCustomDomain(alice);
      await domains.save(alices);
      expect(await domains.save(aCustomDomain(bob, { providerId: 'other-id' }))).to.equal('taken');
      expect(await domains.findByUser(bob)).to.equal(undefined);
      expect(await domains.findByHostname('files.example.com')).to.deep.equal(alices);
    });

    it("keeps an account's existing domain when its change to a taken hostname is refused", async () => {
      await domains.save(aCustomDomain(alice, { hostname: 'alice.example.com' }));
      const bobs = aCustomDomain(bob, { hostname: 'bob.example.com' });
      await domains.save(bobs);
      expect(await domains.save(aCustomDomain(bob, { hostname: 'alice.example.com' }))).to.equal('taken');
      expect(await domains.findByUser(bob)).to.deep.equal(bobs);
      expect((await domains.findByHostname('alice.example.com'))?.userId).to.equal(alice);
    });

    it('saves exactly one of two accounts racing for one hostname', async () => {
      const results = await Promise.all([
        domains.save(aCustomDomain(alice, { hostname: 'race.example.com', providerId: 'a' })),
        domains.save(aCustomDomain(bob, { hostname: 'race.example.com', providerId: 'b' })),
      ]);
      expect([...results].sort()).to.deep.equal(['saved', 'taken']);
      const winner = results[0] === 'saved' ? alice : bob;
      const loser = winner === alice ? bob : alice;
      expect((await domains.findByHostname('race.example.com'))?.userId).to.equal(winner);
      expect(await domains.findByUser(loser)).to.equal(undefined);
    });

    it("deletes the account's domain, freeing its hostname; deleting again is no error", async () => {
      await domains.save(aCustomDomain(alice));
      await domains.save(aCustomDomain(bob, { hostname: 'bob.example.com' }));
      await domains.delete(alice);
      expect(await domains.findByUser(alice)).to.equal(undefined);
      expect(await domains.findByHostname('files.example.com')).to.equal(undefined);
      await domains.delete(alice);
      expect((await domains.findByUser(bob))?.hostname).to.equal('bob.example.com');
      expect(await domains.save(aCustomDomain(bob, { hostname: 'files.example.com' }))).to.equal('saved');
    });

    it('removes the domain with its account, freeing the hostname', async () => {
      await domains.save(aCustomDomain(alice));
      await domains.save(aCustomDomain(bob, { hostname: 'bob.example.com' }));
      expect(await users.delete(alice)).to.equal(true);
      expect(await domains.findByUser(alice)).to.equal(undefined);
      expect(await domains.findByHostname('files.example.com')).to.equal(undefined);
      expect((await domains.findByUser(bob))?.hostname).to.equal('bob.example.com');
      expect(await domains.save(aCustomDomain(bob, { hostname: 'files.example.com' }))).to.equal('saved');
    });

    it('hands out copies: changing a result changes nothing stored', async () => {
      await domains.save(aCustomDomain(alice));
      const read = (await domains.findByUser(alice))!;
      read.dnsRecords[0].value = 'changed';
      read.errors.push('changed');
      read.createdAt.setTime(0);
      expect(await domains.findByUser(alice)).to.deep.equal(aCustomDomain(alice));
    });
  });
}
