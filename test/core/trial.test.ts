import { expect } from 'chai';
import { DAY_MS } from '../../core/index.js';
import { collect, createMemoryHangar, expectDomainError, pattern, START, untouchableBody, withTrialPlan } from '../support/memory-hangar.js';

/** START + 14 days: when the default test plan's trial ends for an account registered at START. */
const TRIAL_END = new Date(START.getTime() + 14 * DAY_MS);

/** Alice, registered at START on the 14-day trial plan, with two files (one public, one private). */
async function withAlice(...args: Parameters<typeof createMemoryHangar>) {
  const world = createMemoryHangar(...args);
  const alice = await world.registerConfirmed('alice@example.com');
  const kept = (await world.upload(alice.userId, { size: 40 })).file;
  const hidden = (await world.upload(alice.userId, { size: 30, isPublic: false })).file;
  /** Every kind of write, each of which must be refused (or allowed) together. */
  return { ...world, alice, kept, hidden };
}

describe('Trial', () => {
  describe('during the trial', () => {
    it('allows upload, delete and bulk delete until the last millisecond of the trial', async () => {
      const { hangar, clock, alice, kept, hidden, upload, repos } = await withAlice();
      clock.set(new Date(TRIAL_END.getTime() - 1));
      const uploaded = (await upload(alice.userId, { size: 20 })).file;
      await hangar.deleteFile.execute({ userId: alice.userId, fileId: kept.fileId });
      expect(await hangar.bulkDeleteFiles.execute({ userId: alice.userId, ids: [hidden.fileId, uploaded.fileId] })).to.deep.equal({ deleted: 2, errors: [] });
      expect((await repos.files.list({ userId: alice.userId, filter: {}, window: { offset: 0, limit: 10 } })).total).to.equal(0);
    });
  });

  describe('after the trial', () => {
    it('refuses an upload with TRIAL_ENDED exactly at the trial end, before reading the body, storing nothing', async () => {
      const { hangar, clock, alice, blobs, totals } = await withAlice();
      const putsBefore = blobs.putKeys.length;
      clock.set(TRIAL_END);
      const body = untouchableBody();
      const error = await expectDomainError(
        hangar.uploadFile.execute({ userId: alice.userId, contentType: 'text/plain', fileName: 'late.txt', contentLength: 10, body }),
        'TRIAL_ENDED',
      );
      expect(error.details).to.deep.equal({ trial_ends_at: TRIAL_END.toISOString() });
      expect(body.touched).to.equal(false);
      expect(blobs.putKeys).to.have.length(putsBefore);
      expect(await totals(alice.userId)).to.deep.equal({ storageBytes: 70, filesCount: 2 });
    });

    it('refuses an upload without Content-Length too, and still long after the trial end', async () => {
      const { clock, alice, upload, totals } = await withAlice();
      clock.set(new Date(TRIAL_END.getTime() + 365 * DAY_MS));
      await expectDomainError(upload(alice.userId, { size: 10 }), 'TRIAL_ENDED');
      expect(await totals(alice.userId)).to.deep.equal({ storageBytes: 70, filesCount: 2 });
    });

    it('refuses a delete with TRIAL_ENDED and keeps the file, record and bytes', async () => {
      const { hangar, clock, alice, kept, repos, blobs } = await withAlice();
      clock.set(TRIAL_END);
      await expectDomainError(hangar.deleteFile.execute({ userId: alice.userId, fileId: kept.fileId }), 'TRIAL_ENDED');
      expect(await repos.files.findByFileId(kept.fileId)).to.deep.equal(kept);
      expect(await blobs.get(kept.blobKey)).to.not.equal(undefined);
    });

    it('refuses a bulk delete as a whole with TRIAL_ENDED and keeps every file', async () => {
      const { hangar, clock, alice, kept, hidden, repos, totals } = await withAlice();
      clock.set(TRIAL_END);
      await expectDomainError(hangar.bulkDeleteFiles.execute({ userId: alice.userId, ids: [kept.fileId, hidden.fileId] }), 'TRIAL_ENDED');
      expect(await repos.files.findByFileId(kept.fileId)).to.deep.equal(kept);
      expect(await repos.files.findByFileId(hidden.fileId)).to.deep.equal(hidden);
      expect(await totals(alice.userId)).to.deep.equal({ storageBytes: 70, filesCount: 2 });
    });

    it('still serves reads: list, get, public read with its bytes, usage and settings', async () => {
      const { hangar, clock, alice, kept, hidden } = await withAlice();
      clock.set(new Date(TRIAL_END.getTime() + DAY_MS));
      const listed = await hangar.listFiles.execute({ userId: alice.userId, filter: {}, page: 1, limit: 30 });
      expect(listed.items.map((v) => v.file.fileId)).to.have.members([kept.fileId, hidden.fileId]);
      expect((await hangar.getFile.execute({ userId: alice.userId, fileId: hidden.fileId })).file).to.deep.equal(hidden);
      const publicFile = await hangar.readPublicFile.execute({ fileId: kept.fileId });
      expect(await collect(await publicFile.open())).to.deep.equal(Buffer.from(pattern(40)));
      expect((await hangar.getUsage.execute({ userId: alice.userId })).filesCount).to.equal(2);
      expect((await hangar.getSettings.execute({ userId: alice.userId })).maxUploadSizeBytes).to.equal(1024);
    });

    it('ends each account’s trial from its own sign-up: a later account can still write', async () => {
      const world = await withAlice();
      world.clock.advance(DAY_MS);
      const bob = await world.registerConfirmed('bob@example.com');
      world.clock.set(TRIAL_END);
      await expectDomainError(world.upload(world.alice.userId), 'TRIAL_ENDED');
      expect((await world.upload(bob.userId, { size: 5 })).file.size).to.equal(5);
      world.clock.advance(DAY_MS);
      await expectDomainError(world.upload(bob.userId), 'TRIAL_ENDED');
    });
  });

  describe('trial length from the plan', () => {
    it('trialDays 0 ends the trial at sign-up: the first upload is refused', async () => {
      const world = createMemoryHangar(withTrialPlan({ trialDays: 0 }));
      const alice = await world.registerConfirmed('alice@example.com');
      await expectDomainError(world.upload(alice.userId), 'TRIAL_ENDED');
      expect(await world.totals(alice.userId)).to.deep.equal({ storageBytes: 0, filesCount: 0 });
    });

    it('trialDays 1 ends the trial exactly one day after sign-up', async () => {
      const world = createMemoryHangar(withTrialPlan({ trialDays: 1 }));
      const alice = await world.registerConfirmed('alice@example.com');
      world.clock.set(new Date(START.getTime() + DAY_MS - 1));
      await world.upload(alice.userId);
      world.clock.set(new Date(START.getTime() + DAY_MS));
      await expectDomainError(world.upload(alice.userId), 'TRIAL_ENDED');
    });

    it('trialDays null never ends: uploads and deletes work ten years on', async () => {
      const world = createMemoryHangar(withTrialPlan({ trialDays: null }));
      const alice = await world.registerConfirmed('alice@example.com');
      world.clock.set(new Date(START.getTime() + 3650 * DAY_MS));
      const { file } = await world.upload(alice.userId);
      await world.hangar.deleteFile.execute({ userId: alice.userId, fileId: file.fileId });
      expect(await world.totals(alice.userId)).to.deep.equal({ storageBytes: 0, filesCount: 0 });
    });
  });

  describe('lifting the trial end', () => {
    it('a plan change lifts it: uploads and deletes work again after the trial ended', async () => {
      const { hangar, clock, alice, kept, upload, totals } = await withAlice();
      clock.set(TRIAL_END);
      await expectDomainError(upload(alice.userId), 'TRIAL_ENDED');
      await hangar.changePlan.execute({ email: alice.email, planName: 'pro' });
      await upload(alice.userId, { size: 11 });
      await hangar.deleteFile.execute({ userId: alice.userId, fileId: kept.fileId });
      clock.advance(3650 * DAY_MS);
      await upload(alice.userId, { size: 12 });
      expect(await totals(alice.userId)).to.deep.equal({ storageBytes: 30 + 11 + 12, filesCount: 3 });
    });

    it('paid access (access_until in the future) lifts it until access_until, then writes are refused again', async () => {
      const { hangar, clock, alice, kept, hidden, upload } = await withAlice();
      const accessUntil = new Date(TRIAL_END.getTime() + 30 * DAY_MS);
      clock.set(TRIAL_END);
      await hangar.setSubscription.execute({ email: alice.email, accessUntil });
      await upload(alice.userId);
      clock.set(new Date(accessUntil.getTime() - 1));
      await hangar.deleteFile.execute({ userId: alice.userId, fileId: kept.fileId });
      clock.set(accessUntil);
      await expectDomainError(upload(alice.userId), 'TRIAL_ENDED');
      await expectDomainError(hangar.deleteFile.execute({ userId: alice.userId, fileId: hidden.fileId }), 'TRIAL_ENDED');
      await expectDomainError(hangar.bulkDeleteFiles.execute({ userId: alice.userId, ids: [hidden.fileId] }), 'TRIAL_ENDED');
    });

    it('access_until in the past does not lift it', async () => {
      const { hangar, clock, alice, upload } = await withAlice();
      clock.set(TRIAL_END);
      await hangar.setSubscription.execute({ email: alice.email, accessUntil: new Date(TRIAL_END.getTime() - DAY_MS) });
      await expectDomainError(upload(alice.userId), 'TRIAL_ENDED');
    });

    it('paid access keeps a canceled subscription writable until access_until', async () => {
      const { hangar, clock, alice, upload } = await withAlice();
      clock.set(TRIAL_END);
      await hangar.setSubscription.execute({ email: alice.email, accessUntil: new Date(TRIAL_END.getTime() + DAY_MS), subscriptionCanceledAt: TRIAL_END });
      await upload(alice.userId);
      clock.advance(DAY_MS);
      await expectDomainError(upload(alice.userId), 'TRIAL_ENDED');
    });

    it('clearing access_until with null ends paid access at once', async () => {
      const { hangar, clock, alice, upload } = await withAlice();
      clock.set(TRIAL_END);
      await hangar.setSubscription.execute({ email: alice.email, accessUntil: new Date(TRIAL_END.getTime() + DAY_MS) });
      await upload(alice.userId);
      await hangar.setSubscription.execute({ email: alice.email, accessUntil: null });
      await expectDomainError(upload(alice.userId), 'TRIAL_ENDED');
    });
  });
});
