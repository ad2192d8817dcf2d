import { expect } from 'chai';
import type { OneTimeTokenRepository } from '../../core/accounts/one-time-token-repository.js';
import type { SessionRepository } from '../../core/accounts/session-repository.js';
import type { User } from '../../core/accounts/user.js';
import type { UserRepository } from '../../core/accounts/user-repository.js';
import type { ActivityLogRepository } from '../../core/activity/activity-log-repository.js';
import type { ApiKeyRepository } from '../../core/api-keys/api-key-repository.js';
import type { FileRepository } from '../../core/files/file-repository.js';
import type { UsageRepository } from '../../core/plans/usage-repository.js';
import { aFile, aHash, aLogEntry, anApiKey, aRefreshToken, aSession, aToken, aUser, at, givenUser, T0 } from './persistence-fixtures.js';

/** What a {@link describeUserRepositoryContract} factory returns: a repository over an empty store. */
export interface UserRepositorySubject {
  subject: UserRepository;
  /** The other repositories over the same store, to see what `delete` takes with the account. */
  related: {
    tokens: OneTimeTokenRepository;
    sessions: SessionRepository;
    apiKeys: ApiKeyRepository;
    files: FileRepository;
    usage: UsageRepository;
    logs: ActivityLogRepository;
  };
  close?: () => Promise<void>;
}

const MINUTE = 60_000;
const DAY = 24 * 3600_000;

/** The behaviour every {@link UserRepository} adapter must have; `makeSubject` is called once per test. */
export function describeUserRepositoryContract(name: string, makeSubject: () => Promise<UserRepositorySubject>): void {
  describe(`UserRepository contract: ${name}`, () => {
    let users: UserRepository;
    let related: UserRepositorySubject['related'];
    let close: (() => Promise<void>) | undefined;

    beforeEach(async () => {
      ({ subject: users, related, close } = await makeSubject());
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
        lastResetEmailSentAt: at(3),
        planName: 'pro',
        trialEndsAt: at(14 * 24 * 3600_000),
        accessUntil: at(30 * 24 * 3600_000),
        subscriptionCanceledAt: at(4),
        role: 'admin',
        suspendedAt: at(5),
        storageLimitBytes: 5 * 1024 ** 4,
        fileCountLimit: 123_456,
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
      expect(found?.lastResetEmailSentAt).to.equal(null);
      expect(found?.maxUploadSizeBytes).to.equal(null);
      expect(found?.trialEndsAt).to.equal(null);
      expect(found?.accessUntil).to.equal(null);
      expect(found?.subscriptionCanceledAt).to.equal(null);
    });

    it('keeps an empty plan name as it is (the default plan)', async () => {
      const user = aUser({ planName: '' });
      await users.create(user);
      expect((await users.findById(user.id))?.planName).to.equal('');
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

    it('keeps the image metadata setting: strip_location by default, then as set', async () => {
      const user = aUser();
      await users.create(user);
      expect((await users.findById(user.id))?.imageMetadata).to.equal('strip_location');
      await users.setImageMetadata({ userId: user.id, mode: 'keep', at: at(MINUTE) });
      expect((await users.findById(user.id))?.imageMetadata).to.equal('keep');
      expect((await users.findById(user.id))?.updatedAt).to.deep.equal(at(MINUTE));
      await users.setImageMetadata({ userId: user.id, mode: 'strip_all', at: at(2 * MINUTE) });
      expect((await users.findById(user.id))?.imageMetadata).to.equal('strip_all');
      const chosen = aUser({ imageMetadata: 'strip_all' });
      await users.create(chosen);
      expect((await users.findById(chosen.id))?.imageMetadata).to.equal('strip_all');
    });

    it('moves an account to another plan with a new trial end, and lifts the trial with null', async () => {
      const user = aUser({ planName: 'default', trialEndsAt: at(DAY) });
      await users.create(user);
      await users.setPlan({ userId: user.id, planName: 'pro', trialEndsAt: at(30 * DAY), at: at(MINUTE) });
      expect(await users.findById(user.id)).to.deep.equal({ ...user, planName: 'pro', trialEndsAt: at(30 * DAY), updatedAt: at(MINUTE) });
      await users.setPlan({ userId: user.id, planName: 'unlimited', trialEndsAt: null, at: at(2 * MINUTE) });
      expect(await users.findById(user.id)).to.deep.equal({ ...user, planName: 'unlimited', trialEndsAt: null, updatedAt: at(2 * MINUTE) });
    });

    it('sets the paid-access fields it is given and leaves the absent ones as they are', async () => {
      const user = aUser();
      await users.create(user);
      await users.setSubscription({ userId: user.id, accessUntil: at(30 * DAY), at: at(MINUTE) });
      expect(await users.findById(user.id)).to.deep.equal({ ...user, accessUntil: at(30 * DAY), updatedAt: at(MINUTE) });
      await users.setSubscription({ userId: user.id, subscriptionCanceledAt: at(2 * DAY), at: at(2 * MINUTE) });
      expect(await users.findById(user.id)).to.deep.equal({
        ...user,
        accessUntil: at(30 * DAY),
        subscriptionCanceledAt: at(2 * DAY),
        updatedAt: at(2 * MINUTE),
      });
      await users.setSubscription({ userId: user.id, at: at(3 * MINUTE) });
      expect((await users.findById(user.id))?.accessUntil).to.deep.equal(at(30 * DAY));
      expect((await users.findById(user.id))?.subscriptionCanceledAt).to.deep.equal(at(2 * DAY));
    });

    it('clears paid-access fields given as null', async () => {
      const user = aUser({ accessUntil: at(DAY), subscriptionCanceledAt: at(2) });
      await users.create(user);
      await users.setSubscription({ userId: user.id, subscriptionCanceledAt: null, at: at(MINUTE) });
      expect(await users.findById(user.id)).to.deep.equal({ ...user, subscriptionCanceledAt: null, updatedAt: at(MINUTE) });
      await users.setSubscription({ userId: user.id, accessUntil: null, subscriptionCanceledAt: null, at: at(2 * MINUTE) });
      expect(await users.findById(user.id)).to.deep.equal({ ...user, accessUntil: null, subscriptionCanceledAt: null, updatedAt: at(2 * MINUTE) });
    });

    it('makes an account an administrator and back, and counts the active administrators', async () => {
      const ada = aUser();
      const bob = aUser();
      await users.create(ada);
      await users.create(bob);
      expect(await users.countActiveAdmins()).to.equal(0);
      await users.setRole({ userId: ada.id, role: 'admin', at: at(MINUTE) });
      await users.setRole({ userId: bob.id, role: 'admin', at: at(MINUTE) });
      expect(await users.findById(ada.id)).to.deep.equal({ ...ada, role: 'admin', updatedAt: at(MINUTE) });
      expect(await users.countActiveAdmins()).to.equal(2);
      await users.setSuspended({ userId: bob.id, suspendedAt: at(2 * MINUTE), at: at(2 * MINUTE) });
      expect(await users.countActiveAdmins()).to.equal(1);
      await users.setRole({ userId: ada.id, role: 'user', at: at(3 * MINUTE) });
      expect(await users.countActiveAdmins()).to.equal(0);
      expect((await users.findById(ada.id))?.role).to.equal('user');
    });

    it('applies every administrator change at once, and answers not_found for an unknown account', async () => {
      const user = aUser({ trialEndsAt: at(DAY) });
      await users.create(user);
      const changes = {
        planName: 'pro',
        trialEndsAt: null,
        role: 'admin' as const,
        suspendedAt: at(MINUTE),
        maxUploadSizeBytes: 2 ** 33,
        storageLimitBytes: 2 ** 40,
        fileCountLimit: 9,
      };
      expect(await users.applyAdminChanges({ userId: user.id, changes, keepAnAdmin: true, at: at(MINUTE) })).to.equal('applied');
      expect(await users.findById(user.id)).to.deep.equal({ ...user, ...changes, updatedAt: at(MINUTE) });
      expect(await users.applyAdminChanges({ userId: user.id, changes: { storageLimitBytes: null }, keepAnAdmin: false, at: at(2 * MINUTE) })).to.equal(
        'applied',
      );
      expect(await users.findById(user.id)).to.deep.equal({ ...user, ...changes, storageLimitBytes: null, updatedAt: at(2 * MINUTE) });
      const unknown = '00000000-0000-4000-8000-000000000000';
      expect(await users.applyAdminChanges({ userId: unknown, changes: { role: 'admin' }, keepAnAdmin: false, at: at(MINUTE) })).to.equal('not_found');
      expect(await users.findById(unknown)).to.equal(undefined);
    });

    it('refuses, writing nothing, to take the last active administrator out, and lets a non-admin or another admin go', async () => {
      const ada = aUser();
      const bob = aUser();
      await users.create(ada);
      await users.create(bob);
      await users.setRole({ userId: ada.id, role: 'admin', at: at(MINUTE) });
      expect(await users.applyAdminChanges({ userId: ada.id, changes: { role: 'user', planName: 'pro' }, keepAnAdmin: true, at: at(2 * MINUTE) })).to.equal(
        'last_admin',
      );
      expect(await users.applyAdminChanges({ userId: ada.id, changes: { suspendedAt: at(2 * MINUTE) }, keepAnAdmin: true, at: at(2 * MINUTE) })).to.equal(
        'last_admin',
      );
      expect(await users.findById(ada.id)).to.deep.equal({ ...ada, role: 'admin', updatedAt: at(MINUTE) });
      expect(await users.applyAdminChanges({ userId: bob.id, changes: { suspendedAt: at(2 * MINUTE) }, keepAnAdmin: true, at: at(2 * MINUTE) })).to.equal(
        'applied',
      );
      await users.setRole({ userId: bob.id, role: 'admin', at: at(3 * MINUTE) });
      // bob is a suspended admin: ada is still the last active one.
      expect(await users.applyAdminChanges({ userId: ada.id, changes: { role: 'user' }, keepAnAdmin: true, at: at(4 * MINUTE) })).to.equal('last_admin');
      await users.setSuspended({ userId: bob.id, suspendedAt: null, at: at(4 * MINUTE) });
      expect(await users.applyAdminChanges({ userId: ada.id, changes: { role: 'user' }, keepAnAdmin: true, at: at(5 * MINUTE) })).to.equal('applied');
      expect(await users.countActiveAdmins()).to.equal(1);
    });

    it('lets exactly one of two administrators demoting or suspending each other at the same moment through', async () => {
      for (let round = 0; round < 5; round++) {
        const ada = aUser();
        const bob = aUser();
        await users.create(ada);
        await users.create(bob);
        await users.setRole({ userId: ada.id, role: 'admin', at: at(MINUTE) });
        await users.setRole({ userId: bob.id, role: 'admin', at: at(MINUTE) });
        const outcomes = await Promise.all([
          users.applyAdminChanges({ userId: ada.id, changes: { role: 'user' }, keepAnAdmin: true, at: at(2 * MINUTE) }),
          users.applyAdminChanges({
            userId: bob.id,
            changes: round % 2 ? { suspendedAt: at(2 * MINUTE) } : { role: 'user' },
            keepAnAdmin: true,
            at: at(2 * MINUTE),
          }),
        ]);
        expect(outcomes.sort()).to.deep.equal(['applied', 'last_admin']);
        expect(await users.countActiveAdmins()).to.equal(1);
        await users.delete(ada.id);
        await users.delete(bob.id);
      }
    });

    it('suspends an account and reinstates it, keeping everything else', async () => {
      const user = aUser();
      await users.create(user);
      await users.setSuspended({ userId: user.id, suspendedAt: at(MINUTE), at: at(MINUTE) });
      expect(await users.findById(user.id)).to.deep.equal({ ...user, suspendedAt: at(MINUTE), updatedAt: at(MINUTE) });
      await users.setSuspended({ userId: user.id, suspendedAt: null, at: at(2 * MINUTE) });
      expect(await users.findById(user.id)).to.deep.equal({ ...user, updatedAt: at(2 * MINUTE) });
    });

    it("sets an account's own limits, keeps the absent one, and clears one given as null", async () => {
      const user = aUser();
      await users.create(user);
      await users.setLimits({ userId: user.id, storageLimitBytes: 2 ** 40, fileCountLimit: 7, at: at(MINUTE) });
      expect(await users.findById(user.id)).to.deep.equal({ ...user, storageLimitBytes: 2 ** 40, fileCountLimit: 7, updatedAt: at(MINUTE) });
      await users.setLimits({ userId: user.id, storageLimitBytes: null, at: at(2 * MINUTE) });
      expect(await users.findById(user.id)).to.deep.equal({ ...user, fileCountLimit: 7, updatedAt: at(2 * MINUTE) });
    });

    it('changes only the account it is asked to change', async () => {
      const target = aUser({ passwordHash: 'target' });
      const other = aUser({ passwordHash: 'other' });
      await users.create(target);
      await users.create(other);
      await users.setPasswordHash({ userId: target.id, passwordHash: 'changed', at: at(MINUTE) });
      await users.markEmailConfirmed({ userId: target.id, at: at(MINUTE) });
      await users.setMaxUploadSize({ userId: target.id, maxUploadSizeBytes: 1, at: at(MINUTE) });
      await users.setPlan({ userId: target.id, planName: 'pro', trialEndsAt: null, at: at(MINUTE) });
      await users.setSubscription({ userId: target.id, accessUntil: at(DAY), subscriptionCanceledAt: at(DAY), at: at(MINUTE) });
      expect(await users.findById(other.id)).to.deep.equal(other);
    });

    it('changes nothing and creates nothing when updating an unknown account', async () => {
      const unknown = '00000000-0000-4000-8000-000000000000';
      await users.setPlan({ userId: unknown, planName: 'pro', trialEndsAt: null, at: at(MINUTE) });
      await users.setSubscription({ userId: unknown, accessUntil: at(DAY), at: at(MINUTE) });
      expect(await users.findById(unknown)).to.equal(undefined);
      expect(await users.list({ window: { offset: 0, limit: 10 } })).to.deep.equal({ items: [], total: 0 });
    });

    it('lists every account oldest first, equal times by id ascending, with the total', async () => {
      const a = aUser({ id: '00000000-0000-4000-8000-00000000000a', createdAt: at(3000) });
      const b = aUser({ id: '00000000-0000-4000-8000-00000000000c', createdAt: at(2000) });
      const c = aUser({ id: '00000000-0000-4000-8000-00000000000b', createdAt: at(2000) });
      const d = aUser({ id: '00000000-0000-4000-8000-000000000001', createdAt: at(1000) });
      for (const user of [a, b, c, d]) await users.create(user);
      expect(await users.list({ window: { offset: 0, limit: 10 } })).to.deep.equal({ items: [d, c, b, a], total: 4 });
    });

    it('pages through the accounts: the window picks the items, the total counts them all', async () => {
      const created: User[] = [];
      for (let i = 0; i < 5; i++) created.push(await givenUser(users, { createdAt: at(i * 1000) }));
      const second = await users.list({ window: { offset: 2, limit: 2 } });
      expect(second).to.deep.equal({ items: created.slice(2, 4), total: 5 });
      expect(await users.list({ window: { offset: 10, limit: 2 } })).to.deep.equal({ items: [], total: 5 });
    });

    it('deletes an account once: it is gone by id and e-mail, and the address is free again', async () => {
      const user = await givenUser(users, { email: 'gone@example.com' });
      const kept = await givenUser(users);
      expect(await users.delete(user.id)).to.equal(true);
      expect(await users.findById(user.id)).to.equal(undefined);
      expect(await users.findByEmail('gone@example.com')).to.equal(undefined);
      expect(await users.delete(user.id)).to.equal(false);
      expect(await users.list({ window: { offset: 0, limit: 10 } })).to.deep.equal({ items: [kept], total: 1 });
      expect(await users.create(aUser({ email: 'gone@example.com' }))).to.equal(true);
    });

    it('answers false when deleting an unknown account', async () => {
      expect(await users.delete('00000000-0000-4000-8000-000000000000')).to.equal(false);
    });

    it("takes the account's keys, sessions, tokens, files, totals, usage and logs with it, and leaves another account's alone", async () => {
      const { tokens, sessions, apiKeys, files, usage, logs } = related;
      const roomy = { storageLimitBytes: 1024 ** 4, fileCountLimit: 1000 };
      async function givenEverything(userId: string) {
        const key = anApiKey(userId);
        await apiKeys.create(key);
        const session = aSession(userId);
        const refreshToken = aRefreshToken(session.id);
        await sessions.create({ session, refreshToken });
        const token = aToken(userId, { purpose: 'password_reset' });
        await tokens.create(token);
        const file = aFile(userId, { size: 321 });
        expect(await files.insert(file, roomy)).to.equal('inserted');
        await usage.add([{ userId, periodStart: T0, originReads: 5, imageOps: 2 }]);
        const entry = aLogEntry(userId);
        await logs.insertMany([entry]);
        return { key, session, refreshToken, token, file, entry };
      }
      const gone = await givenUser(users);
      const kept = await givenUser(users);
      const goneRows = await givenEverything(gone.id);
      const keptRows = await givenEverything(kept.id);

      expect(await users.delete(gone.id)).to.equal(true);

      const window = { offset: 0, limit: 10 };
      const now = at(MINUTE);
      expect(await apiKeys.findByHash(goneRows.key.keyHash)).to.equal(undefined);
      expect(await apiKeys.list({ userId: gone.id, window })).to.deep.equal({ items: [], total: 0 });
      expect(await sessions.findById(goneRows.session.id)).to.equal(undefined);
      expect(
        await sessions.rotate({ tokenHash: goneRows.refreshToken.tokenHash, next: { tokenHash: aHash(), createdAt: now, rotatedAt: null }, now }),
      ).to.deep.equal({ kind: 'invalid' });
      expect(await tokens.consume({ purpose: 'password_reset', tokenHash: goneRows.token.tokenHash, now })).to.equal(undefined);
      expect(await files.findByFileId(goneRows.file.fileId)).to.equal(undefined);
      expect(await files.list({ userId: gone.id, filter: {}, window })).to.deep.equal({ items: [], total: 0 });
      expect(await files.totals(gone.id)).to.deep.equal({ storageBytes: 0, filesCount: 0 });
      expect(await usage.get({ userId: gone.id, periodStart: T0 })).to.deep.equal({ originReads: 0, imageOps: 0 });
      expect(await logs.list({ userId: gone.id, window })).to.deep.equal({ items: [], total: 0 });

      expect(await users.findById(kept.id)).to.deep.equal(kept);
      expect(await apiKeys.findByHash(keptRows.key.keyHash)).to.deep.equal(keptRows.key);
      expect(await sessions.findById(keptRows.session.id)).to.deep.equal(keptRows.session);
      expect(await files.findByFileId(keptRows.file.fileId)).to.deep.equal(keptRows.file);
      expect(await files.totals(kept.id)).to.deep.equal({ storageBytes: 321, filesCount: 1 });
      expect(await usage.get({ userId: kept.id, periodStart: T0 })).to.deep.equal({ originReads: 5, imageOps: 2 });
      expect(await logs.list({ userId: kept.id, window })).to.deep.equal({ items: [keptRows.entry], total: 1 });
      expect(
        (await sessions.rotate({ tokenHash: keptRows.refreshToken.tokenHash, next: { tokenHash: aHash(), createdAt: now, rotatedAt: null }, now })).kind,
      ).to.equal('rotated');
      expect(await tokens.consume({ purpose: 'password_reset', tokenHash: keptRows.token.tokenHash, now })).to.deep.equal({
        userId: kept.id,
        redirectTo: null,
      });
    });

    it('claims an e-mail slot, refuses another within the interval, and allows one once it has passed', async () => {
      const user = aUser();
      await users.create(user);
      const purpose = 'email_confirmation';
      expect(await users.claimEmailSlot({ userId: user.id, purpose, now: T0, minIntervalMs: MINUTE })).to.equal(true);
      expect((await users.findById(user.id))?.lastEmailSentAt).to.deep.equal(T0);
      expect(await users.claimEmailSlot({ userId: user.id, purpose, now: at(MINUTE - 1), minIntervalMs: MINUTE })).to.equal(false);
      expect((await users.findById(user.id))?.lastEmailSentAt).to.deep.equal(T0);
      expect(await users.claimEmailSlot({ userId: user.id, purpose, now: at(MINUTE), minIntervalMs: MINUTE })).to.equal(true);
      expect(await users.claimEmailSlot({ userId: user.id, purpose, now: at(MINUTE + 1), minIntervalMs: MINUTE })).to.equal(false);
      expect(await users.claimEmailSlot({ userId: user.id, purpose, now: at(3 * MINUTE), minIntervalMs: MINUTE })).to.equal(true);
      expect((await users.findById(user.id))?.lastEmailSentAt).to.deep.equal(at(3 * MINUTE));
    });

    it('keeps one slot per purpose: a reset e-mail right after a confirmation e-mail is claimed, and each purpose waits for its own interval', async () => {
      const user = aUser();
      await users.create(user);
      expect(await users.claimEmailSlot({ userId: user.id, purpose: 'email_confirmation', now: T0, minIntervalMs: MINUTE })).to.equal(true);
      expect(await users.claimEmailSlot({ userId: user.id, purpose: 'password_reset', now: at(1), minIntervalMs: MINUTE })).to.equal(true);
      let found = await users.findById(user.id);
      expect(found?.lastEmailSentAt).to.deep.equal(T0);
      expect(found?.lastResetEmailSentAt).to.deep.equal(at(1));
      expect(await users.claimEmailSlot({ userId: user.id, purpose: 'password_reset', now: at(2), minIntervalMs: MINUTE })).to.equal(false);
      expect(await users.claimEmailSlot({ userId: user.id, purpose: 'email_confirmation', now: at(2), minIntervalMs: MINUTE })).to.equal(false);
      expect(await users.claimEmailSlot({ userId: user.id, purpose: 'email_confirmation', now: at(MINUTE), minIntervalMs: MINUTE })).to.equal(true);
      expect(await users.claimEmailSlot({ userId: user.id, purpose: 'password_reset', now: at(MINUTE), minIntervalMs: MINUTE })).to.equal(false);
      found = await users.findById(user.id);
      expect(found?.lastEmailSentAt).to.deep.equal(at(MINUTE));
      expect(found?.lastResetEmailSentAt).to.deep.equal(at(1));
    });

    it('grants one e-mail slot to several simultaneous claims', async () => {
      const user = aUser();
      await users.create(user);
      const claims = await Promise.all(
        [1, 2, 3, 4, 5].map(() => users.claimEmailSlot({ userId: user.id, purpose: 'password_reset', now: T0, minIntervalMs: MINUTE })),
      );
      expect(claims.filter(Boolean)).to.have.length(1);
    });

    it('does not claim an e-mail slot for an unknown account', async () => {
      expect(
        await users.claimEmailSlot({ userId: '00000000-0000-4000-8000-000000000000', purpose: 'email_confirmation', now: T0, minIntervalMs: MINUTE }),
      ).to.equal(false);
    });

    it('hands out copies: changing a stored, returned or listed user changes nothing stored', async () => {
      const user = aUser({ email: 'copy@example.com', trialEndsAt: at(DAY), accessUntil: at(2 * DAY) });
      const original = structuredClone(user);
      await users.create(user);
      user.email = 'changed@example.com';
      user.createdAt.setTime(0);
      user.trialEndsAt!.setTime(0);
      const found = await users.findById(user.id);
      expect(found).to.deep.equal(original);
      found!.passwordHash = 'mutated';
      found!.updatedAt.setTime(0);
      found!.accessUntil!.setTime(0);
      const listed = await users.list({ window: { offset: 0, limit: 10 } });
      listed.items[0].planName = 'mutated';
      listed.items[0].trialEndsAt!.setTime(0);
      expect(await users.findById(user.id)).to.deep.equal(original);
      expect(await users.findByEmail('copy@example.com')).to.deep.equal(original);
    });
  });
}
