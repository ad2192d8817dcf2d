import { expect } from 'chai';
import type { UserRepository } from '../../core/accounts/user-repository.js';
import type { OidcFlowRepository } from '../../core/sso/oidc-flow-repository.js';
import type { OidcIdentityRepository } from '../../core/sso/oidc-identity-repository.js';
import { aHash, at, givenUser } from './persistence-fixtures.js';

/** What a {@link describeOidcRepositoriesContract} factory returns: the repositories over one empty store. */
export interface OidcRepositoriesSubject {
  identities: OidcIdentityRepository;
  flows: OidcFlowRepository;
  /** Creates the accounts links and codes refer to (a database checks the foreign key), and deletes them. */
  users: UserRepository;
  close?: () => Promise<void>;
}

const MINUTE = 60_000;

/** The behaviour every OidcIdentityRepository and OidcFlowRepository adapter must have; `makeSubject` is called once per test. */
export function describeOidcRepositoriesContract(name: string, makeSubject: () => Promise<OidcRepositoriesSubject>): void {
  describe(`OidcIdentityRepository and OidcFlowRepository contract: ${name}`, () => {
    let subject: OidcRepositoriesSubject;
    let userId: string;

    beforeEach(async () => {
      subject = await makeSubject();
      userId = (await givenUser(subject.users)).id;
    });
    afterEach(async () => {
      await subject.close?.();
    });

    it('links (issuer, subject) to one account, once', async () => {
      const link = { issuer: 'https://idp.example', subject: 'abc', userId, email: 'a@example.com', createdAt: at(0) };
      expect(await subject.identities.create(link)).to.equal(true);
      const other = (await givenUser(subject.users)).id;
      expect(await subject.identities.create({ ...link, userId: other })).to.equal(false);
      expect(await subject.identities.find({ issuer: 'https://idp.example', subject: 'abc' })).to.deep.equal(link);
      expect(await subject.identities.find({ issuer: 'https://other.example', subject: 'abc' })).to.equal(undefined);
    });

    it('forgets the links and codes of a deleted account', async () => {
      await subject.identities.create({ issuer: 'https://idp.example', subject: 'gone', userId, email: null, createdAt: at(0) });
      const codeHash = aHash();
      await subject.flows.createCode({ codeHash, userId, expiresAt: at(MINUTE) });
      await subject.users.delete(userId);
      expect(await subject.identities.find({ issuer: 'https://idp.example', subject: 'gone' })).to.equal(undefined);
      expect(await subject.flows.consumeCode({ codeHash, now: at(0) })).to.equal(undefined);
    });

    it('gives a flow back once, before it expires', async () => {
      const flow = { stateHash: aHash(), nonce: 'n', codeVerifier: 'v', inviteHash: aHash(), expiresAt: at(10 * MINUTE) };
      await subject.flows.createFlow(flow);
      expect(await subject.flows.consumeFlow({ stateHash: flow.stateHash, now: at(0) })).to.deep.equal(flow);
      expect(await subject.flows.consumeFlow({ stateHash: flow.stateHash, now: at(0) })).to.equal(undefined);
      const late = { ...flow, stateHash: aHash() };
      await subject.flows.createFlow(late);
      expect(await subject.flows.consumeFlow({ stateHash: late.stateHash, now: at(10 * MINUTE) })).to.equal(undefined);
    });

    it('lets only one of simultaneous takes of a code through', async () => {
      const codeHash = aHash();
      await subject.flows.createCode({ codeHash, userId, expiresAt: at(MINUTE) });
      const results = await Promise.all(Array.from({ length: 5 }, () => subject.flows.consumeCode({ codeHash, now: at(0) })));
      expect(results.filter((r) => r !== undefined)).to.deep.equal([{ userId }]);
    });

    it('purges expired flows and codes only', async () => {
      await subject.flows.createFlow({ stateHash: aHash(), nonce: 'n', codeVerifier: 'v', inviteHash: null, expiresAt: at(MINUTE) });
      const live = { stateHash: aHash(), nonce: 'n', codeVerifier: 'v', inviteHash: null, expiresAt: at(20 * MINUTE) };
      await subject.flows.createFlow(live);
      await subject.flows.createCode({ codeHash: aHash(), userId, expiresAt: at(MINUTE) });
      expect(await subject.flows.deleteExpired({ now: at(MINUTE) })).to.equal(2);
      expect(await subject.flows.consumeFlow({ stateHash: live.stateHash, now: at(MINUTE) })).to.deep.equal(live);
    });
  });
}
