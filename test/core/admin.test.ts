import { expect } from 'chai';
import { DAY_MS, MINUTE_MS } from '../../core/index.js';
import { collect, createMemoryHangar, DEFAULT_PASSWORD, expectDomainError, pattern, PRO_PLAN, START, TRIAL_PLAN } from '../support/memory-hangar.js';

const UNKNOWN = 'nobody@example.com';

/** Alice, Bob and Carol, registered a minute apart; Alice with two files. */
async function withAccounts() {
  const world = createMemoryHangar();
  const alice = await world.registerConfirmed('alice@example.com');
  world.clock.advance(MINUTE_MS);
  const bob = await world.registerConfirmed('bob@example.com');
  world.clock.advance(MINUTE_MS);
  const carol = await world.registerConfirmed('carol@example.com');
  await world.upload(alice.userId, { size: 100 });
  await world.upload(alice.userId, { size: 23 });
  return { ...world, alice, bob, carol };
}

describe('Administration', () => {
  describe('ListAccounts', () => {
    it('lists every account oldest first, paged, with the total, plan, standing and totals', async () => {
      const { hangar } = await withAccounts();
      const first = await hangar.listAccounts.execute({ page: 1, limit: 2 });
      expect(first.total).to.equal(3);
      expect(first.items.map((a) => a.user.email)).to.deep.equal(['alice@example.com', 'bob@example.com']);
      expect(first.items[0].totals).to.deep.equal({ storageBytes: 123, filesCount: 2 });
      expect(first.items[0].standing.plan).to.deep.equal(TRIAL_PLAN);
      expect(first.items[0].standing.status).to.equal('trialing');
      expect(first.items[1].totals).to.deep.equal({ storageBytes: 0, filesCount: 0 });
      const second = await hangar.listAccounts.execute({ page: 2, limit: 2 });
      expect(second.total).to.equal(3);
      expect(second.items.map((a) => a.user.email)).to.deep.equal(['carol@example.com']);
    });

    it('answers an empty service with no accounts', async () => {
      const { hangar } = createMemoryHangar();
      expect(await hangar.listAccounts.execute({ page: 1, limit: 30 })).to.deep.equal({ items: [], total: 0 });
    });
  });

  describe('ShowAccount', () => {
    it('shows one account by e-mail, whatever its case and surrounding spaces', async () => {
      const { hangar, alice } = await withAccounts();
      const shown = await hangar.showAccount.execute({ email: '  Alice@Example.COM ' });
      expect(shown.user.id).to.equal(alice.userId);
      expect(shown.totals).to.deep.equal({ storageBytes: 123, filesCount: 2 });
      expect(shown.standing.trialEndsAt).to.deep.equal(new Date(START.getTime() + 14 * DAY_MS));
    });

    it('answers an unknown address with USER_NOT_FOUND', async () => {
      const { hangar } = await withAccounts();
      await expectDomainError(hangar.showAccount.execute({ email: UNKNOWN }), 'USER_NOT_FOUND');
    });
  });

  describe('ConfirmAccount', () => {
    it('confirms an address without the e-mail link, after which login works', async () => {
      const world = createMemoryHangar();
      await world.hangar.registerAccount.execute({ email: 'dave@example.com', password: DEFAULT_PASSWORD });
      await expectDomainError(world.hangar.logIn.execute({ email: 'dave@example.com', password: DEFAULT_PASSWORD }), 'EMAIL_NOT_VERIFIED');
      world.clock.advance(MINUTE_MS);
      const shown = await world.hangar.confirmAccount.execute({ email: 'dave@example.com' });
      expect(shown.user.emailConfirmedAt).to.deep.equal(new Date(START.getTime() + MINUTE_MS));
      const { user } = await world.hangar.logIn.execute({ email: 'dave@example.com', password: DEFAULT_PASSWORD });
      expect(user.id).to.equal(shown.user.id);
    });

    it('is idempotent: a second confirmation keeps the first time', async () => {
      const { hangar, clock, bob } = await withAccounts();
      const before = (await hangar.showAccount.execute({ email: bob.email })).user.emailConfirmedAt;
      clock.advance(DAY_MS);
      const after = await hangar.confirmAccount.execute({ email: bob.email });
      expect(after.user.emailConfirmedAt).to.deep.equal(before);
    });

    it('answers an unknown address with USER_NOT_FOUND', async () => {
      const { hangar } = await withAccounts();
      await expectDomainError(hangar.confirmAccount.execute({ email: UNKNOWN }), 'USER_NOT_FOUND');
    });
  });

  describe('ChangePlan', () => {
    it('moves the account to the plan, lifts its trial end, and the new limits apply at once', async () => {
      const { hangar, alice, upload, clock } = await withAccounts();
      for (let i = 0; i < 8; i++) await upload(alice.userId, { size: 1 });
      await expectDomainError(upload(alice.userId, { size: 1 }), 'FILE_COUNT_LIMIT_REACHED');
      const changed = await hangar.changePlan.execute({ email: alice.email, planName: 'pro' });
      expect(changed.standing.plan).to.deep.equal(PRO_PLAN);
      expect(changed.standing.trialEndsAt).to.equal(null);
      expect(changed.user.planName).to.equal('pro');
      expect(changed.totals).to.deep.equal({ storageBytes: 131, filesCount: 10 });
      await upload(alice.userId, { size: 1 });
      clock.advance(365 * DAY_MS);
      await upload(alice.userId, { size: 1 });
      expect((await hangar.showAccount.execute({ email: alice.email })).totals.filesCount).to.equal(12);
    });

    it('applies a lower plan’s limits too: a full account is refused after moving back', async () => {
      const { hangar, alice, upload } = await withAccounts();
      await hangar.changePlan.execute({ email: alice.email, planName: 'pro' });
      await upload(alice.userId, { size: 1000 });
      for (let i = 0; i < 9; i++) await upload(alice.userId, { size: 1000 });
      await hangar.changePlan.execute({ email: alice.email, planName: 'trial' });
      await expectDomainError(upload(alice.userId, { size: 1 }), 'FILE_COUNT_LIMIT_REACHED');
    });

    it('refuses an unknown plan with PLAN_NOT_FOUND and leaves the account as it was', async () => {
      const { hangar, alice } = await withAccounts();
      const error = await expectDomainError(hangar.changePlan.execute({ email: alice.email, planName: 'enterprise' }), 'PLAN_NOT_FOUND');
      expect(error.message).to.include('trial').and.include('pro');
      const shown = await hangar.showAccount.execute({ email: alice.email });
      expect(shown.user.planName).to.equal('trial');
      expect(shown.standing.trialEndsAt).to.deep.equal(new Date(START.getTime() + 14 * DAY_MS));
    });

    it('answers an unknown address with USER_NOT_FOUND', async () => {
      const { hangar } = await withAccounts();
      await expectDomainError(hangar.changePlan.execute({ email: UNKNOWN, planName: 'pro' }), 'USER_NOT_FOUND');
    });
  });

  describe('SetSubscription', () => {
    it('sets access_until and the cancel time, keeps absent fields, and clears with null', async () => {
      const { hangar, bob } = await withAccounts();
      const accessUntil = new Date(START.getTime() + 40 * DAY_MS);
      const canceledAt = new Date(START.getTime() + 2 * DAY_MS);
      let shown = await hangar.setSubscription.execute({ email: bob.email, accessUntil });
      expect([shown.standing.accessUntil, shown.standing.subscriptionCanceledAt, shown.standing.status]).to.deep.equal([accessUntil, null, 'active']);
      shown = await hangar.setSubscription.execute({ email: bob.email, subscriptionCanceledAt: canceledAt });
      expect([shown.standing.accessUntil, shown.standing.subscriptionCanceledAt, shown.standing.status]).to.deep.equal([accessUntil, canceledAt, 'canceled']);
      shown = await hangar.setSubscription.execute({ email: bob.email, accessUntil: null });
      expect([shown.standing.accessUntil, shown.standing.subscriptionCanceledAt, shown.standing.status]).to.deep.equal([null, canceledAt, 'trialing']);
      const stored = await hangar.showAccount.execute({ email: bob.email });
      expect([stored.user.accessUntil, stored.user.subscriptionCanceledAt]).to.deep.equal([null, canceledAt]);
    });

    it('changes only that account', async () => {
      const { hangar, alice, bob } = await withAccounts();
      await hangar.setSubscription.execute({ email: bob.email, accessUntil: new Date(START.getTime() + 40 * DAY_MS) });
      expect((await hangar.showAccount.execute({ email: alice.email })).standing.accessUntil).to.equal(null);
    });

    it('answers an unknown address with USER_NOT_FOUND', async () => {
      const { hangar } = await withAccounts();
      await expectDomainError(hangar.setSubscription.execute({ email: UNKNOWN, accessUntil: null }), 'USER_NOT_FOUND');
    });
  });

  describe('DeleteAccount', () => {
    async function withAliceToDelete() {
      const world = await withAccounts();
      const { hangar, alice, bob } = world;
      const alicesFiles = (await hangar.listFiles.execute({ userId: alice.userId, filter: {}, page: 1, limit: 30 })).items.map((v) => v.file);
      const alicesKey = await hangar.createApiKey.execute({ userId: alice.userId, name: 'ci' });
      const bobsKey = await hangar.createApiKey.execute({ userId: bob.userId, name: 'ci' });
      const bobsFile = (await world.upload(bob.userId, { size: 45 })).file;
      hangar.activity.record({ userId: alice.userId, method: 'GET', path: '/files', statusCode: 200, requestSizeBytes: null, metadata: { auth: 'jwt' } });
      hangar.activity.record({ userId: bob.userId, method: 'GET', path: '/files', statusCode: 200, requestSizeBytes: null, metadata: { auth: 'jwt' } });
      await hangar.activity.flush();
      await hangar.readPublicFile.execute({ fileId: alicesFiles[0].fileId });
      await hangar.usageMeter.flush();
      return { ...world, alicesFiles, alicesKey, bobsKey, bobsFile };
    }

    it('removes the account’s files, records and blobs, and reports how many', async () => {
      const { hangar, alice, alicesFiles, repos, blobs } = await withAliceToDelete();
      expect(await hangar.deleteAccount.execute({ email: alice.email })).to.deep.equal({ deletedFiles: 2, finished: true });
      for (const file of alicesFiles) {
        expect(await repos.files.findByFileId(file.fileId)).to.equal(undefined);
        expect(await blobs.get(file.blobKey)).to.equal(undefined);
        await expectDomainError(hangar.readPublicFile.execute({ fileId: file.fileId }), 'FILE_NOT_FOUND');
      }
      expect(await repos.files.totals(alice.userId)).to.deep.equal({ storageBytes: 0, filesCount: 0 });
    });

    it('removes the account: its API key and session no longer authenticate, login fails, the address is unknown', async () => {
      const { hangar, alice, alicesKey } = await withAliceToDelete();
      await hangar.deleteAccount.execute({ email: alice.email });
      await expectDomainError(hangar.authenticate.execute({ apiKey: alicesKey.key }), 'UNAUTHORIZED');
      await expectDomainError(hangar.authenticate.execute({ authorization: `Bearer ${alicesKey.key}` }), 'UNAUTHORIZED');
      await expectDomainError(hangar.authenticate.execute({ authorization: `Bearer ${alice.session.accessToken}` }), 'UNAUTHORIZED');
      await expectDomainError(hangar.refreshSession.execute({ refreshToken: alice.session.refreshToken }), 'INVALID_REFRESH_TOKEN');
      await expectDomainError(hangar.logIn.execute({ email: alice.email, password: alice.password }), 'INVALID_CREDENTIALS');
      await expectDomainError(hangar.showAccount.execute({ email: alice.email }), 'USER_NOT_FOUND');
      await expectDomainError(hangar.getProfile.execute({ userId: alice.userId }), 'UNAUTHORIZED');
      expect((await hangar.listAccounts.execute({ page: 1, limit: 30 })).items.map((a) => a.user.email)).to.deep.equal([
        'bob@example.com',
        'carol@example.com',
      ]);
    });

    it('removes the account’s activity log and usage rows', async () => {
      const { hangar, alice, repos } = await withAliceToDelete();
      const periodStart = new Date('2025-03-01T00:00:00.000Z');
      expect((await repos.usage.get({ userId: alice.userId, periodStart })).originReads).to.equal(1);
      await hangar.deleteAccount.execute({ email: alice.email });
      expect((await hangar.listLogs.execute({ userId: alice.userId, page: 1, limit: 30 })).total).to.equal(0);
      expect(await repos.usage.get({ userId: alice.userId, periodStart })).to.deep.equal({ originReads: 0, imageOps: 0 });
    });

    it('empties the account’s activity log before it deletes the account, so that no long cascade deletes it', async () => {
      const seen: number[] = [];
      const world = createMemoryHangar({}, (defaults) => ({
        users: Object.assign(Object.create(defaults.users) as typeof defaults.users, {
          delete: async (id: string) => {
            seen.push((await defaults.logs.list({ userId: id, window: { offset: 0, limit: 1 } })).total);
            return defaults.users.delete(id);
          },
        }),
      }));
      const alice = await world.registerConfirmed('alice@example.com');
      for (let i = 0; i < 3; i++)
        world.hangar.activity.record({
          userId: alice.userId,
          method: 'GET',
          path: '/files',
          statusCode: 200,
          requestSizeBytes: null,
          metadata: { auth: 'jwt' },
        });
      await world.hangar.activity.flush();
      expect((await world.hangar.listLogs.execute({ userId: alice.userId, page: 1, limit: 30 })).total).to.equal(3);
      await world.hangar.deleteAccount.execute({ email: alice.email });
      expect(seen).to.deep.equal([0]);
    });

    it('leaves other accounts untouched: files, bytes, keys, sessions, logs', async () => {
      const { hangar, alice, bob, bobsKey, bobsFile } = await withAliceToDelete();
      await hangar.deleteAccount.execute({ email: alice.email });
      expect(await hangar.authenticate.execute({ apiKey: bobsKey.key })).to.include({ kind: 'api_key', userId: bob.userId });
      expect(await hangar.authenticate.execute({ authorization: `Bearer ${bob.session.accessToken}` })).to.include({ kind: 'session', userId: bob.userId });
      const publicFile = await hangar.readPublicFile.execute({ fileId: bobsFile.fileId });
      expect(await collect(await publicFile.open())).to.deep.equal(Buffer.from(pattern(45)));
      expect((await hangar.showAccount.execute({ email: bob.email })).totals).to.deep.equal({ storageBytes: 45, filesCount: 1 });
      expect((await hangar.listLogs.execute({ userId: bob.userId, page: 1, limit: 30 })).total).to.equal(1);
      await hangar.logIn.execute({ email: bob.email, password: bob.password });
    });

    it('deletes more files than one batch (105), blobs included', async () => {
      const world = createMemoryHangar();
      const alice = await world.registerConfirmed('alice@example.com');
      await world.hangar.changePlan.execute({ email: alice.email, planName: 'pro' });
      for (let i = 0; i < 105; i++) await world.upload(alice.userId, { size: 3 });
      expect(await world.blobs.liveKeys()).to.have.length(105);
      expect(await world.hangar.deleteAccount.execute({ email: alice.email })).to.deep.equal({ deletedFiles: 105, finished: true });
      expect(await world.blobs.liveKeys()).to.deep.equal([]);
    });

    it('deletes an account whose trial has ended (administration is not a user write)', async () => {
      const { hangar, alice, clock, blobs } = await withAliceToDelete();
      clock.advance(30 * DAY_MS);
      expect(await hangar.deleteAccount.execute({ email: alice.email })).to.deep.equal({ deletedFiles: 2, finished: true });
      expect((await blobs.liveKeys()).filter((key) => key.startsWith(`${alice.userId}/`))).to.deep.equal([]);
    });

    it('lets the address register again as a new account', async () => {
      const { hangar, alice, registerConfirmed } = await withAliceToDelete();
      await hangar.deleteAccount.execute({ email: alice.email });
      const again = await registerConfirmed(alice.email);
      expect(again.userId).to.not.equal(alice.userId);
      expect((await hangar.showAccount.execute({ email: alice.email })).totals).to.deep.equal({ storageBytes: 0, filesCount: 0 });
    });

    it('answers an unknown address with USER_NOT_FOUND and deletes nothing', async () => {
      const { hangar } = await withAccounts();
      await expectDomainError(hangar.deleteAccount.execute({ email: UNKNOWN }), 'USER_NOT_FOUND');
      expect((await hangar.listAccounts.execute({ page: 1, limit: 30 })).total).to.equal(3);
    });
  });
});
