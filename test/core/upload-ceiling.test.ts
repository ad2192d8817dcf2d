import { expect } from 'chai';
import { createMemoryHangar, expectDomainError, MIB, PRO_PLAN, untouchableBody, withTrialPlan } from '../support/memory-hangar.js';

describe('Upload size ceiling from the plan', () => {
  it('lets an account set up to its plan’s max_upload_size_bytes and refuses one byte more', async () => {
    const world = createMemoryHangar(withTrialPlan({ maxUploadSizeBytes: 3000 }));
    const alice = await world.registerConfirmed('alice@example.com');
    expect((await world.hangar.updateSettings.execute({ userId: alice.userId, maxUploadSizeBytes: 3000 })).maxUploadSizeBytes).to.equal(3000);
    const error = await expectDomainError(world.hangar.updateSettings.execute({ userId: alice.userId, maxUploadSizeBytes: 3001 }), 'INVALID_SETTINGS');
    expect(error.details).to.deep.equal({ max: 3000 });
    expect((await world.hangar.getSettings.execute({ userId: alice.userId })).maxUploadSizeBytes).to.equal(3000);
  });

  it('follows a plan change: the pro ceiling (10 MiB) is allowed after changePlan, not before', async () => {
    const world = createMemoryHangar();
    const alice = await world.registerConfirmed('alice@example.com');
    const before = await expectDomainError(
      world.hangar.updateSettings.execute({ userId: alice.userId, maxUploadSizeBytes: PRO_PLAN.maxUploadSizeBytes }),
      'INVALID_SETTINGS',
    );
    expect(before.details).to.deep.equal({ max: MIB });
    await world.hangar.changePlan.execute({ email: alice.email, planName: 'pro' });
    const settings = await world.hangar.updateSettings.execute({ userId: alice.userId, maxUploadSizeBytes: PRO_PLAN.maxUploadSizeBytes });
    expect(settings.maxUploadSizeBytes).to.equal(10 * MIB);
    const after = await expectDomainError(world.hangar.updateSettings.execute({ userId: alice.userId, maxUploadSizeBytes: 10 * MIB + 1 }), 'INVALID_SETTINGS');
    expect(after.details).to.deep.equal({ max: 10 * MIB });
  });

  it('caps the service default at the plan ceiling: settings and uploads both use the ceiling', async () => {
    const world = createMemoryHangar({ ...withTrialPlan({ maxUploadSizeBytes: 2000, storageLimitBytes: 100_000 }), defaultMaxUploadSizeBytes: 5000 });
    const alice = await world.registerConfirmed('alice@example.com');
    expect((await world.hangar.getSettings.execute({ userId: alice.userId })).maxUploadSizeBytes).to.equal(2000);
    expect((await world.upload(alice.userId, { size: 2000 })).file.size).to.equal(2000);
    const streamed = await expectDomainError(world.upload(alice.userId, { size: 2001 }), 'FILE_TOO_LARGE');
    expect(streamed.details).to.deep.equal({ max_upload_size_bytes: 2000 });
    const body = untouchableBody();
    const declared = await expectDomainError(world.upload(alice.userId, { contentLength: 2001, body }), 'FILE_TOO_LARGE');
    expect(declared.details).to.deep.equal({ max_upload_size_bytes: 2000 });
    expect(body.touched).to.equal(false);
    expect(await world.totals(alice.userId)).to.deep.equal({ storageBytes: 2000, filesCount: 1 });
  });

  it('caps an account’s own setting when it moves to a plan with a lower ceiling', async () => {
    const world = createMemoryHangar();
    const alice = await world.registerConfirmed('alice@example.com');
    await world.hangar.changePlan.execute({ email: alice.email, planName: 'pro' });
    await world.hangar.updateSettings.execute({ userId: alice.userId, maxUploadSizeBytes: 5 * MIB });
    await world.hangar.changePlan.execute({ email: alice.email, planName: 'trial' });
    expect((await world.hangar.getSettings.execute({ userId: alice.userId })).maxUploadSizeBytes).to.equal(MIB);
    const body = untouchableBody();
    const error = await expectDomainError(world.upload(alice.userId, { contentLength: MIB + 1, body }), 'FILE_TOO_LARGE');
    expect(error.details).to.deep.equal({ max_upload_size_bytes: MIB });
    expect(body.touched).to.equal(false);
  });

  it('keeps a setting below the ceiling as it is', async () => {
    const world = createMemoryHangar(withTrialPlan({ maxUploadSizeBytes: 3000 }));
    const alice = await world.registerConfirmed('alice@example.com');
    await world.hangar.updateSettings.execute({ userId: alice.userId, maxUploadSizeBytes: 100 });
    expect((await world.hangar.getSettings.execute({ userId: alice.userId })).maxUploadSizeBytes).to.equal(100);
    await expectDomainError(world.upload(alice.userId, { size: 101 }), 'FILE_TOO_LARGE');
  });
});
