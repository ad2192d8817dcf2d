import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { UserRepository } from '../../core/accounts/user-repository.js';
import type { Passkey } from '../../core/passkeys/passkey.js';
import type { PasskeyRepository } from '../../core/passkeys/passkey-repository.js';
import type { PasskeyChallengeRepository } from '../../core/passkeys/passkey-challenge-repository.js';
import { at, givenUser, T0 } from './persistence-fixtures.js';

/** What a {@link describePasskeyRepositoryContract} factory returns: repositories over one empty store. */
export interface PasskeyRepositorySubject {
  subject: PasskeyRepository;
  challenges: PasskeyChallengeRepository;
  /** Creates the owners (a database checks the foreign key) and deletes them (the cascade). */
  users: UserRepository;
  close?: () => Promise<void>;
}

function aPasskey(userId: string, overrides: Partial<Passkey> = {}): Passkey {
  return {
    id: randomUUID(),
    userId,
    name: 'Laptop',
    credentialId: randomUUID().replaceAll('-', ''),
    publicKey: 'pQECAyYgASFYIPmRr3MfXjvHvUx0lH',
    counter: 0,
    transports: ['internal', 'hybrid'],
    createdAt: T0,
    lastUsedAt: null,
    ...overrides,
  };
}

/** The behaviour every {@link PasskeyRepository} and {@link PasskeyChallengeRepository} adapter must have; `makeSubject` is called once per test. */
export function describePasskeyRepositoryContract(name: string, makeSubject: () => Promise<PasskeyRepositorySubject>): void {
  describe(`PasskeyRepository and PasskeyChallengeRepository contract: ${name}`, () => {
    let passkeys: PasskeyRepository;
    let challenges: PasskeyChallengeRepository;
    let users: UserRepository;
    let close: (() => Promise<void>) | undefined;
    let userId: string;

    beforeEach(async () => {
      ({ subject: passkeys, challenges, users, close } = await makeSubject());
      userId = (await givenUser(users)).id;
    });
    afterEach(async () => {
      await close?.();
    });

    it('stores a passkey and finds it by credential id, with every field', async () => {
      const passkey = aPasskey(userId, { counter: 4_294_967_295 });
      expect(await passkeys.insert(passkey)).to.equal(true);
      expect(await passkeys.findByCredentialId(passkey.credentialId)).to.deep.equal(passkey);
      expect(await passkeys.findByCredentialId('unknown')).to.equal(undefined);
    });

    it('refuses a second passkey with the same credential id, of any account', async () => {
      const other = (await givenUser(users)).id;
      const passkey = aPasskey(userId);
      await passkeys.insert(passkey);
      expect(await passkeys.insert(aPasskey(other, { credentialId: passkey.credentialId }))).to.equal(false);
      expect(await passkeys.listForUser(other)).to.deep.equal([]);
    });

    it("lists an account's passkeys oldest first, and only its own", async () => {
      const other = (await givenUser(users)).id;
      const second = aPasskey(userId, { name: 'Phone', createdAt: at(2000) });
      const first = aPasskey(userId, { name: 'Laptop', createdAt: at(1000) });
      await passkeys.insert(second);
      await passkeys.insert(first);
      await passkeys.insert(aPasskey(other));
      expect((await passkeys.listForUser(userId)).map((p) => p.name)).to.deep.equal(['Laptop', 'Phone']);
    });

    it('renames and deletes only for the owner', async () => {
      const other = (await givenUser(users)).id;
      const passkey = aPasskey(userId);
      await passkeys.insert(passkey);
      expect(await passkeys.rename({ userId: other, id: passkey.id, name: 'Mine' })).to.equal(undefined);
      expect(await passkeys.rename({ userId, id: passkey.id, name: 'Work' })).to.deep.equal({ ...passkey, name: 'Work' });
      expect(await passkeys.delete({ userId: other, id: passkey.id })).to.equal(false);
      expect(await passkeys.delete({ userId, id: passkey.id })).to.equal(true);
      expect(await passkeys.delete({ userId, id: passkey.id })).to.equal(false);
      expect(await passkeys.findByCredentialId(passkey.credentialId)).to.equal(undefined);
    });

    it('records a use only while the counter is the one read (compare-and-set)', async () => {
      const passkey = aPasskey(userId, { counter: 5 });
      await passkeys.insert(passkey);
      expect(await passkeys.recordUse({ id: passkey.id, previousCounter: 5, counter: 6, at: at(1000) })).to.equal(true);
      expect(await passkeys.recordUse({ id: passkey.id, previousCounter: 5, counter: 7, at: at(2000) })).to.equal(false);
      expect(await passkeys.findByCredentialId(passkey.credentialId)).to.deep.include({ counter: 6, lastUsedAt: at(1000) });
      expect(await passkeys.recordUse({ id: randomUUID(), previousCounter: 0, counter: 1, at: at(3000) })).to.equal(false);
    });

    it("removes an account's passkeys and challenges with the account", async () => {
      const passkey = aPasskey(userId);
      await passkeys.insert(passkey);
      await challenges.create({ challenge: 'c-user', ceremony: 'registration', userId, expiresAt: at(60_000), createdAt: T0 });
      expect(await users.delete(userId)).to.equal(true);
      expect(await passkeys.findByCredentialId(passkey.credentialId)).to.equal(undefined);
      expect(await challenges.take({ challenge: 'c-user', ceremony: 'registration', now: T0 })).to.equal(undefined);
    });

    it('takes a challenge once, for its ceremony and before it expires', async () => {
      await challenges.create({ challenge: 'c-1', ceremony: 'registration', userId, expiresAt: at(60_000), createdAt: T0 });
      await challenges.create({ challenge: 'c-2', ceremony: 'authentication', userId: null, expiresAt: at(60_000), createdAt: T0 });
      expect(await challenges.take({ challenge: 'c-1', ceremony: 'authentication', now: T0 }), 'another ceremony').to.equal(undefined);
      expect(await challenges.take({ challenge: 'c-1', ceremony: 'registration', now: T0 })).to.deep.equal({ userId });
      expect(await challenges.take({ challenge: 'c-1', ceremony: 'registration', now: T0 }), 'used').to.equal(undefined);
      expect(await challenges.take({ challenge: 'c-2', ceremony: 'authentication', now: at(60_000) }), 'expired').to.equal(undefined);
      expect(await challenges.take({ challenge: 'unknown', ceremony: 'authentication', now: T0 })).to.equal(undefined);
    });

    it('lets only one of simultaneous takes of a challenge succeed', async () => {
      await challenges.create({ challenge: 'c-race', ceremony: 'authentication', userId: null, expiresAt: at(60_000), createdAt: T0 });
      const results = await Promise.all(Array.from({ length: 5 }, () => challenges.take({ challenge: 'c-race', ceremony: 'authentication', now: T0 })));
      expect(results.filter((r) => r !== undefined)).to.have.length(1);
    });

    it('deletes expired challenges and keeps the others', async () => {
      await challenges.create({ challenge: 'old', ceremony: 'authentication', userId: null, expiresAt: at(1000), createdAt: T0 });
      await challenges.create({ challenge: 'new', ceremony: 'authentication', userId: null, expiresAt: at(5000), createdAt: T0 });
      expect(await challenges.deleteExpired({ now: at(1000) })).to.equal(1);
      expect(await challenges.take({ challenge: 'new', ceremony: 'authentication', now: at(1000) })).to.deep.equal({ userId: null });
    });
  });
}
