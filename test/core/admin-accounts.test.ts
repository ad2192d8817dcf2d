import { expect } from 'chai';
import { CLI_ACTOR } from '../../core/admin/admin-audit.js';
import { isDomainError } from '../../core/shared/errors.js';
import { createMemoryHangar, passwordSignIn } from '../support/memory-hangar.js';

/** Expects `promise` to reject with a DomainError of `code`. */
async function rejectsWith(promise: Promise<unknown>, code: string): Promise<void> {
  try {
    await promise;
  } catch (error) {
    expect(isDomainError(error), String(error)).to.equal(true);
    expect((error as { code: string }).code).to.equal(code);
    return;
  }
  expect.fail(`expected ${code}`);
}

// The administration use cases on in-memory adapters (docs/admin.md): what an embedding host gets
// without the HTTP edge.
describe('Administration of accounts (core)', () => {
  it('makes ADMIN_EMAILS accounts administrators when they confirm, and only then', async () => {
    const world = createMemoryHangar({ adminEmails: ['boss@example.com'] });
    const boss = await world.registerConfirmed('Boss@Example.com');
    const other = await world.registerConfirmed('other@example.com');
    expect((await world.repos.users.findById(boss.userId))?.role).to.equal('admin');
    expect((await world.repos.users.findById(other.userId))?.role).to.equal('user');
  });

  it('deletes only one of two administrators deleting each other at the same moment, and applies a refused change not in part', async () => {
    const world = createMemoryHangar({ adminEmails: ['boss@example.com', 'deputy@example.com'] });
    const { hangar } = world;
    await world.registerConfirmed('boss@example.com');
    await world.registerConfirmed('deputy@example.com');
    const results = await Promise.allSettled([
      hangar.removeAccount.execute({ actor: CLI_ACTOR, account: { email: 'boss@example.com' } }),
      hangar.removeAccount.execute({ actor: CLI_ACTOR, account: { email: 'deputy@example.com' } }),
    ]);
    expect(results.map((r) => r.status).sort()).to.deep.equal(['fulfilled', 'rejected']);
    const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason.code).to.equal('LAST_ADMIN');
    const survivor = (await world.repos.users.findByEmail('boss@example.com')) ?? (await world.repos.users.findByEmail('deputy@example.com'));
    expect(survivor).to.deep.include({ role: 'admin', suspendedAt: null });
    await rejectsWith(
      hangar.updateAccount.execute({ actor: CLI_ACTOR, account: { email: survivor!.email }, changes: { fileCountLimit: 3, role: 'user' } }),
      'LAST_ADMIN',
    );
    expect(await world.repos.users.findByEmail(survivor!.email)).to.deep.include({ role: 'admin', fileCountLimit: null });
  });

  it('deletes a large account in the background, stops between steps when the process stops, and resumes when asked again', async () => {
    const world = createMemoryHangar();
    const { hangar } = world;
    const small = await world.registerConfirmed('small@example.com');
    await world.upload(small.userId, { size: 3 });
    expect(await hangar.removeAccount.start({ actor: CLI_ACTOR, account: { email: 'small@example.com' } })).to.deep.equal({
      state: 'deleted',
      deletedFiles: 1,
    });
    const large = await world.registerConfirmed('large@example.com');
    await hangar.changePlan.execute({ email: 'large@example.com', planName: 'pro' });
    for (let i = 0; i < 110; i++) await world.upload(large.userId, { size: 3 });
    expect(await hangar.removeAccount.start({ actor: CLI_ACTOR, account: { email: 'large@example.com' } })).to.deep.equal({
      state: 'deleting',
      filesRemaining: 110,
    });
    await hangar.removeAccount.stop();
    const left = await world.repos.users.findByEmail('large@example.com');
    expect(left?.suspendedAt).to.not.equal(null);
    expect(await world.blobs.liveKeys()).to.have.length.above(0);
    expect((await hangar.listAdminAudit.execute({ page: 1, limit: 10, targetId: large.userId })).items.map((e) => e.action)).to.not.include('delete_account');
    const resumed = await hangar.removeAccount.execute({ actor: CLI_ACTOR, account: { email: 'large@example.com' } });
    expect(resumed.deletedFiles).to.be.above(0);
    expect(await world.repos.users.findByEmail('large@example.com')).to.equal(undefined);
    expect(await world.blobs.liveKeys()).to.deep.equal([]);
  });

  it('resumes a background deletion on another process once the lease of the one that died lapses, and writes one audit entry for every file', async () => {
    const world = createMemoryHangar();
    const { hangar, ports, options } = world;
    const large = await world.registerConfirmed('crashed@example.com');
    await hangar.changePlan.execute({ email: 'crashed@example.com', planName: 'pro' });
    for (let i = 0; i < 110; i++) await world.upload(large.userId, { size: 3 });
    const { ACCOUNT_DELETION_LEASE_MS } = await import('../../core/admin/account-actions.js');
    // A process recorded the deletion, took its lease and died before its first step.
    await ports.accountDeletions.request({ userId: large.userId, email: 'crashed@example.com', requestedAt: world.clock.now(), actor: CLI_ACTOR });
    const now = world.clock.now();
    expect(await ports.accountDeletions.claim({ owner: 'dead process', now, until: new Date(now.getTime() + ACCOUNT_DELETION_LEASE_MS) })).to.include({
      userId: large.userId,
    });
    expect((await hangar.getAccountDetails.execute({ account: { id: large.userId } })).deletion).to.include({ filesDeleted: 0 });

    const { createHangar } = await import('../../core/hangar.js');
    const other = createHangar(ports, options);
    expect(await other.removeAccount.resumePending(), 'while the lease holds').to.equal(0);
    // A second DELETE meanwhile changes nothing.
    expect(await other.removeAccount.start({ actor: CLI_ACTOR, account: { id: large.userId } })).to.deep.equal({ state: 'deleting', filesRemaining: 110 });
    world.clock.advance(ACCOUNT_DELETION_LEASE_MS);
    expect(await other.removeAccount.resumePending()).to.equal(1);
    expect(await other.removeAccount.resumePending(), 'taken once').to.equal(0);
    for (let i = 0; i < 200 && (await world.repos.users.findById(large.userId)); i++) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(await world.repos.users.findById(large.userId)).to.equal(undefined);
    expect(await ports.accountDeletions.find(large.userId)).to.equal(undefined);
    const entries = (await hangar.listAdminAudit.execute({ page: 1, limit: 10, targetId: large.userId })).items.filter((e) => e.action === 'delete_account');
    expect(entries).to.have.length(1);
    expect(entries[0]).to.deep.include({ actor: CLI_ACTOR, before: { files: 110 } });
  });

  it('lets another process take a background deletion at once when the one running it stops', async () => {
    const world = createMemoryHangar();
    const { hangar, ports, options } = world;
    const large = await world.registerConfirmed('moved@example.com');
    await hangar.changePlan.execute({ email: 'moved@example.com', planName: 'pro' });
    for (let i = 0; i < 110; i++) await world.upload(large.userId, { size: 3 });
    expect((await hangar.removeAccount.start({ actor: CLI_ACTOR, account: { id: large.userId } })).state).to.equal('deleting');
    await hangar.removeAccount.stop();
    const { createHangar } = await import('../../core/hangar.js');
    const other = createHangar(ports, options);
    expect(await other.removeAccount.resumePending()).to.equal(1);
    await other.removeAccount.stop().then(() => undefined);
    // Stopped again before it finished, or finished: either way nothing is lost; a third process finishes.
    const third = createHangar(ports, options);
    await third.removeAccount.resumePending();
    for (let i = 0; i < 200 && (await world.repos.users.findById(large.userId)); i++) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(await world.repos.users.findById(large.userId)).to.equal(undefined);
    expect(
      (await hangar.listAdminAudit.execute({ page: 1, limit: 10, targetId: large.userId })).items.filter((e) => e.action === 'delete_account'),
    ).to.have.length(1);
  });

  it('refuses to take away the last active administrator: demotion, suspension, deletion', async () => {
    const world = createMemoryHangar({ adminEmails: ['boss@example.com'] });
    const { hangar } = world;
    await world.registerConfirmed('boss@example.com');
    const account = { email: 'boss@example.com' };
    await rejectsWith(hangar.updateAccount.execute({ actor: CLI_ACTOR, account, changes: { role: 'user' } }), 'LAST_ADMIN');
    await rejectsWith(hangar.updateAccount.execute({ actor: CLI_ACTOR, account, changes: { status: 'suspended' } }), 'LAST_ADMIN');
    await rejectsWith(hangar.removeAccount.execute({ actor: CLI_ACTOR, account }), 'LAST_ADMIN');
    await world.registerConfirmed('deputy@example.com');
    await hangar.updateAccount.execute({ actor: CLI_ACTOR, account: { email: 'deputy@example.com' }, changes: { role: 'admin' } });
    expect((await hangar.updateAccount.execute({ actor: CLI_ACTOR, account, changes: { role: 'user' } })).role).to.equal('user');
    const audit = await hangar.listAdminAudit.execute({ page: 1, limit: 10 });
    // Both within one millisecond of the test clock: their order is by id, so compared as a set.
    expect(audit.items.map((e) => e.action)).to.have.members(['demote', 'promote']);
    expect(audit.items.find((e) => e.action === 'demote')).to.deep.include({ actor: CLI_ACTOR, before: { role: 'admin' }, after: { role: 'user' } });
  });

  it('suspends an account: no sign-in, no credential, its files not served; reinstated, all of it works again', async () => {
    const world = createMemoryHangar();
    const { hangar } = world;
    const owner = await world.registerConfirmed('owner@example.com');
    const { key } = await hangar.createApiKey.execute({ userId: owner.userId });
    const file = await world.upload(owner.userId, { size: 10, contentType: 'text/plain' });
    const read = () => hangar.readPublicFile.execute({ fileId: file.file.fileId });
    expect((await read()).file.fileId).to.equal(file.file.fileId);
    await hangar.updateAccount.execute({ actor: CLI_ACTOR, account: { id: owner.userId }, changes: { status: 'suspended' } });
    await rejectsWith(passwordSignIn(hangar, { email: owner.email, password: owner.password }), 'ACCOUNT_SUSPENDED');
    await rejectsWith(hangar.refreshSession.execute({ refreshToken: owner.session.refreshToken }), 'ACCOUNT_SUSPENDED');
    await rejectsWith(hangar.authenticate.execute({ apiKey: key }), 'ACCOUNT_SUSPENDED');
    await rejectsWith(read(), 'FILE_NOT_FOUND');
    await hangar.updateAccount.execute({ actor: CLI_ACTOR, account: { id: owner.userId }, changes: { status: 'active' } });
    expect((await hangar.authenticate.execute({ apiKey: key })).userId).to.equal(owner.userId);
    expect((await read()).file.fileId).to.equal(file.file.fileId);
    expect((await passwordSignIn(hangar, { email: owner.email, password: owner.password })).session.accessToken).to.be.a('string');
  });

  it('records nothing when a change changes nothing, and refuses bad limits before writing anything', async () => {
    const world = createMemoryHangar();
    const { hangar } = world;
    const user = await world.registerConfirmed('same@example.com');
    await hangar.updateAccount.execute({ actor: CLI_ACTOR, account: { id: user.userId }, changes: { status: 'active', role: 'user' } });
    await rejectsWith(
      hangar.updateAccount.execute({ actor: CLI_ACTOR, account: { id: user.userId }, changes: { fileCountLimit: 1.5, status: 'suspended' } }),
      'VALIDATION_FAILED',
    );
    await rejectsWith(hangar.updateAccount.execute({ actor: CLI_ACTOR, account: { id: user.userId }, changes: { plan: 'nope' } }), 'PLAN_NOT_FOUND');
    expect((await world.repos.users.findById(user.userId))?.suspendedAt).to.equal(null);
    expect((await hangar.listAdminAudit.execute({ page: 1, limit: 10 })).total).to.equal(0);
  });

  it('applies a plan set by an administrator to the accounts on it, and a plan another process set once synced', async () => {
    const world = createMemoryHangar();
    const { hangar, ports, options } = world;
    const user = await world.registerConfirmed('planned@example.com');
    const name = hangar.plans.defaultPlan.name;
    await hangar.setPlan.execute({
      actor: CLI_ACTOR,
      plan: { name, trialDays: null, storageLimitBytes: 100, fileCountLimit: 1, maxUploadSizeBytes: 50, imageOpsLimit: null },
    });
    await world.upload(user.userId, { size: 10, contentType: 'text/plain' });
    await rejectsWith(world.upload(user.userId, { size: 10, contentType: 'text/plain' }), 'FILE_COUNT_LIMIT_REACHED');
    // Another core on the same store (another process) sees the plan once it syncs.
    const { createHangar } = await import('../../core/hangar.js');
    const other = createHangar(ports, options);
    expect(other.plans.defaultPlan.fileCountLimit).to.not.equal(1);
    expect(await other.syncPlans.execute()).to.equal(true);
    expect(other.plans.defaultPlan.fileCountLimit).to.equal(1);
    expect(await other.syncPlans.execute()).to.equal(false);
  });

  it("reloads the plans on another core's runtime as soon as its change feed reports a plans change, without waiting for the poll", async () => {
    const world = createMemoryHangar();
    const { hangar, ports, options } = world;
    const { createHangar } = await import('../../core/hangar.js');
    const { HangarRuntime } = await import('../../core/hangar-runtime.js');
    const { MemoryChangeFeed } = await import('../../adapters/changes/memory-change-feed.js');
    const changes = new MemoryChangeFeed();
    const other = createHangar({ ...ports, changes }, options);
    const runtime = new HangarRuntime(other, { maintenance: false, planSyncIntervalMs: 3_600_000 });
    runtime.start();
    try {
      await new Promise((resolve) => setTimeout(resolve, 20));
      const name = hangar.plans.defaultPlan.name;
      await hangar.setPlan.execute({
        actor: CLI_ACTOR,
        plan: { name, trialDays: null, storageLimitBytes: 100, fileCountLimit: 3, maxUploadSizeBytes: 50, imageOpsLimit: null },
      });
      await new Promise((resolve) => setTimeout(resolve, 120));
      expect(other.plans.defaultPlan.fileCountLimit, 'no change reported: the hourly poll has not run').to.not.equal(3);
      changes.publish({ kind: 'plans' });
      const start = Date.now();
      while (other.plans.defaultPlan.fileCountLimit !== 3 && Date.now() - start < 1_000) await new Promise((resolve) => setTimeout(resolve, 5));
      expect(other.plans.defaultPlan.fileCountLimit).to.equal(3);
      expect(Date.now() - start).to.be.below(500);
    } finally {
      await runtime.stop();
    }
  });

  it('answers USER_NOT_FOUND, not UNAUTHORIZED, for an account deleted while an administrator reads it, and leaves it out of a page of accounts', async () => {
    const world = createMemoryHangar();
    const { hangar, repos } = world;
    const leaving = await world.registerConfirmed('leaving@example.com');
    await world.registerConfirmed('staying@example.com');
    const before = (await repos.users.findById(leaving.userId))!;
    const page = await repos.users.list({ window: { offset: 0, limit: 10 } });
    await hangar.removeAccount.execute({ actor: CLI_ACTOR, account: { id: leaving.userId } });
    // The first read of the account (the route's) still saw it; every read after it finds it gone.
    const findById = repos.users.findById.bind(repos.users);
    const list = repos.users.list.bind(repos.users);
    let firstRead = true;
    repos.users.findById = (id) => {
      if (id === leaving.userId && firstRead) {
        firstRead = false;
        return Promise.resolve(before);
      }
      return findById(id);
    };
    repos.users.list = () => Promise.resolve(page);
    try {
      await rejectsWith(hangar.getAccountDetails.execute({ account: { id: leaving.userId } }), 'USER_NOT_FOUND');
      const listed = await hangar.listAccounts.execute({ page: 1, limit: 10 });
      expect(listed.items.map((view) => view.user.email)).to.deep.equal(['staying@example.com']);
    } finally {
      repos.users.findById = findById;
      repos.users.list = list;
    }
  });
});
