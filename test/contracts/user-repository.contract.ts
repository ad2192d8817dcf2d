import { expect } from 'chai';
import type { UserRepository } from '../../core/accounts/user-repository.js';
import { aUser, at, T0 } from './persistence-fixtures.js';

/** What a {@link describeUserRepositoryContract} factory returns: a repository over an empty store. */
export interface UserRepositorySubject {
  subject: UserRepository;
  close?: () => Promise<void>;
}

const MINUTE = 60_000;

/** The behaviour every {@link UserRepository} adapter must have; `makeSubject` is called once per test. */
export function describeUserRepositoryContract(name: string, makeSubject: () => Promise<UserRepositorySubject>): void {
  describe(`UserRepository contract: ${name}`, () => {
    let users: UserRepository;
    let close: (() => Promise<void>) | undefined;

    beforeEach(async () => {
      ({ subject: users, close } = await makeSubject());
    });
    afterEach(async () => {
      await close?.();
    });

    it('stores a new account and finds it by id and by e-mail, every field intact', async () => {
      const user = aUser({
        email: 'ada@example.com',
        emailConfirmedAt: at(1),
        maxUploadSizeBytes: 10 * 1024 ** 3,
        lastEmailSentAt: at(2),
        createdAt: at(-5),
        updatedAt: at(3),
      });
      expect(await users.create(user)).to.equal(true);
      expect(await users.findById(user.id)).to.deep.equal(user);
      expect(await users.findByEmail('ada@example.com')).to.deep.equal(user);
    });

    it('keeps unset dates and the default upload limit as null', async () => {
      const user = aUser();
      await users.create(user);
      const found = await users.findById(user.id);
      expect(found?.emailConfirmedAt).to.equal(null);
      expect(found?.lastEmailSentAt).to.equal(null);
      expect(found?.maxUploadSizeBytes).to.equal(null);
    });

    it('refuses a second account with the same e-mail and keeps the first', async () => {
      const first = aUser({ email: 'same@example.com', passwordHash: 'first' });
      await users.create(first);
      expect(await users.create(aUser({ email: 'same@example.com', passwordHash: 'second' }))).to.equal(false);
      expect(await users.findByEmail('same@example.com')).to.deep.equal(first);
    });

    it('lets exactly one of several simultaneous registrations of one e-mail through', async () => {
      const results = await Promise.all([1, 2, 3, 4].map(() => users.create(aUser({ email: 'race@example.com' }))));
      expect(results.filter(Boolean)).to.have.length(1);
    });

    it('answers undefined for an unknown id or e-mail', async () => {
      await users.create(aUser({ email: 'known@example.com' }));
      expect(await users.findById('00000000-0000-4000-8000-000000000000')).to.equal(undefined);
      expect(await users.findByEmail('unknown@example.com')).to.equal(undefined);
    });

    it('confirms an e-mail once and keeps the first confirmation time', async () => {
      const user = aUser();
      await users.create(user);
      await users.markEmailConfirmed({ userId: user.id, at: at(MINUTE) });
      await users.markEmailConfirmed({ userId: user.id, at: at(2 * MINUTE) });
      const found = await users.findById(user.id);
      expect(found?.emailConfirmedAt).to.deep.equal(at(MINUTE));
      expect(found?.updatedAt.getTime()).to.be.at.least(at(MINUTE).getTime());
    });

    it('replaces the password hash and records when', async () => {
      const user = aUser({ passwordHash: 'old' });
      await users.create(user);
      await users.setPasswordHash({ userId: user.id, passwordHash: 'new', at: at(MINUTE) });
      const found = await users.findById(user.id);
      expect(found?.passwordHash).to.equal('new');
      expect(found?.updatedAt).to.deep.equal(at(MINUTE));
    });

    it('sets an account upload limit beyond 4 GiB and clears it back to the default', async () => {
      const user = aUser();
      await users.create(user);
      await users.setMaxUploadSize({ userId: user.id, maxUploadSizeBytes: 5 * 1024 ** 3, at: at(MINUTE) });
      expect((await users.findById(user.id))?.maxUploadSizeBytes).to.equal(5 * 1024 ** 3);
      expect((await users.findById(user.id))?.updatedAt).to.deep.equal(at(MINUTE));
      await users.setMaxUploadSize({ userId: user.id, maxUploadSizeBytes: null, at: at(2 * MINUTE) });
      expect((await users.findById(user.id))?.maxUploadSizeBytes).to.equal(null);
    });

    it('changes only the account it is asked to change', async () => {
      const target = aUser({ passwordHash: 'target' });
      const other = aUser({ passwordHash: 'other' });
      await users.create(target);
      await users.create(other);
      await users.setPasswordHash({ userId: target.id, passwordHash: 'changed', at: at(MINUTE) });
      await users.markEmailConfirmed({ userId: target.id, at: at(MINUTE) });
      await users.setMaxUploadSize({ userId: target.id, maxUploadSizeBytes: 1, at: at(MINUTE) });
      expect(await users.findById(other.id)).to.deep.equal(other);
    });

    it('claims an e-mail slot, refuses another within the interval, and allows one once it has passed', async () => {
      const user = aUser();
      await users.create(user);
      expect(await users.claimEmailSlot({ userId: user.id, now: T0, minIntervalMs: MINUTE })).to.equal(true);
      expect((await users.findById(user.id))?.lastEmailSentAt).to.deep.equal(T0);
      expect(await users.claimEmailSlot({ userId: user.id, now: at(MINUTE - 1), minIntervalMs: MINUTE })).to.equal(false);
      expect((await users.findById(user.id))?.lastEmailSentAt).to.deep.equal(T0);
      expect(await users.claimEmailSlot({ userId: user.id, now: at(MINUTE), minIntervalMs: MINUTE })).to.equal(true);
      expect(await users.claimEmailSlot({ userId: user.id, now: at(MINUTE + 1), minIntervalMs: MINUTE })).to.equal(false);
      expect(await users.claimEmailSlot({ userId: user.id, now: at(3 * MINUTE), minIntervalMs: MINUTE })).to.equal(true);
      expect((await users.findById(user.id))?.lastEmailSentAt).to.deep.equal(at(3 * MINUTE));
    });

    it('grants one e-mail slot to several simultaneous claims', async () => {
      const user = aUser();
      await users.create(user);
      const claims = await Promise.all([1, 2, 3, 4, 5].map(() => users.claimEmailSlot({ userId: user.id, now: T0, minIntervalMs: MINUTE })));
      expect(claims.filter(Boolean)).to.have.length(1);
    });

    it('does not claim an e-mail slot for an unknown account', async () => {
      expect(await users.claimEmailSlot({ userId: '00000000-0000-4000-8000-000000000000', now: T0, minIntervalMs: MINUTE })).to.equal(false);
    });

    it('hands out copies: changing a stored or returned user changes nothing stored', async () => {
      const user = aUser({ email: 'copy@example.com' });
      const original = structuredClone(user);
      await users.create(user);
      user.email = 'changed@example.com';
      user.createdAt.setTime(0);
      const found = await users.findById(user.id);
      expect(found).to.deep.equal(original);
      found!.passwordHash = 'mutated';
      found!.updatedAt.setTime(0);
      expect(await users.findById(user.id)).to.deep.equal(original);
      expect(await users.findByEmail('copy@example.com')).to.deep.equal(original);
    });
  });
}
