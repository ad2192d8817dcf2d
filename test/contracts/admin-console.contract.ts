import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { AccountDirectory } from '../../core/admin/account-directory.js';
import type { AdminAuditEntry } from '../../core/admin/admin-audit.js';
import type { AdminAuditLog } from '../../core/admin/admin-audit-log.js';
import type { OpenedRepositories } from './persistence-fixtures.js';
import { aFile, aRefreshToken, aSession, at, givenUser } from './persistence-fixtures.js';

const MINUTE = 60_000;
const LIMITS = { storageLimitBytes: 10 ** 12, fileCountLimit: 10 ** 6 };
const WINDOW = { offset: 0, limit: 10 };

function anEntry(overrides: Partial<AdminAuditEntry> = {}): AdminAuditEntry {
  return {
    id: randomUUID(),
    createdAt: at(0),
    actor: { id: randomUUID(), email: 'root@example.com', client: '203.0.113.7' },
    action: 'suspend',
    targetId: randomUUID(),
    targetEmail: 'someone@example.com',
    before: { status: 'active' },
    after: { status: 'suspended' },
    ...overrides,
  };
}

/**
 * The behaviour every {@link AdminAuditLog} and {@link AccountDirectory} adapter must have (the
 * operator console's ports, docs/admin.md); `open` gives fresh repositories over an empty store.
 */
export function describeAdminConsoleContract(name: string, open: () => Promise<OpenedRepositories>): void {
  describe(`AdminAuditLog contract: ${name}`, () => {
    let repos: OpenedRepositories;
    let audit: AdminAuditLog;
    beforeEach(async () => {
      repos = await open();
      audit = repos.adminAudit;
    });
    afterEach(async () => repos.close?.());

    it('keeps every field of an entry, the CLI actor and empty changes included', async () => {
      const entry = anEntry({ before: { plan: 'free', limit: null, nested: { a: [1, 2] } }, after: { plan: 'pro', limit: 5, nested: { a: [] } } });
      const cli = anEntry({ actor: { id: null, email: 'cli', client: null }, action: 'revoke_sessions', before: null, after: null, createdAt: at(MINUTE) });
      await audit.record(entry);
      await audit.record(cli);
      expect(await audit.list({ window: WINDOW })).to.deep.equal({ items: [cli, entry], total: 2 });
    });

    it("lists newest first, equal times by id descending, pages with the total, and one account's entries alone", async () => {
      const target = randomUUID();
      const entries = [
        anEntry({ id: '00000000-0000-4000-8000-00000000000a', createdAt: at(2 * MINUTE), targetId: target }),
        anEntry({ id: '00000000-0000-4000-8000-00000000000b', createdAt: at(2 * MINUTE) }),
        anEntry({ id: '00000000-0000-4000-8000-00000000000c', createdAt: at(MINUTE), targetId: target }),
        anEntry({ id: '00000000-0000-4000-8000-00000000000d', createdAt: at(3 * MINUTE), targetId: null, targetEmail: null, action: 'create_invite' }),
      ];
      for (const entry of entries) await audit.record(entry);
      const all = await audit.list({ window: WINDOW });
      expect(all.items.map((e) => e.id.slice(-1))).to.deep.equal(['d', 'b', 'a', 'c']);
      expect(await audit.list({ window: { offset: 1, limit: 2 } })).to.deep.equal({ items: all.items.slice(1, 3), total: 4 });
      const mine = await audit.list({ window: WINDOW, targetId: target });
      expect(mine).to.deep.equal({ items: [entries[0], entries[2]], total: 2 });
    });

    it('deletes the entries older than a time and keeps the rest', async () => {
      const old = anEntry({ createdAt: at(0) });
      const recent = anEntry({ createdAt: at(2 * MINUTE) });
      await audit.record(old);
      await audit.record(recent);
      expect(await audit.deleteBefore(at(MINUTE))).to.equal(1);
      expect(await audit.list({ window: WINDOW })).to.deep.equal({ items: [recent], total: 1 });
    });

    it('outlives the account it is about', async () => {
      const user = await givenUser(repos.users);
      const entry = anEntry({ targetId: user.id, targetEmail: user.email });
      await audit.record(entry);
      await repos.users.delete(user.id);
      expect((await audit.list({ window: WINDOW, targetId: user.id })).items).to.deep.equal([entry]);
    });
  });

  describe(`AccountDirectory contract: ${name}`, () => {
    let repos: OpenedRepositories;
    let directory: AccountDirectory;
    beforeEach(async () => {
      repos = await open();
      directory = repos.accountDirectory;
    });
    afterEach(async () => repos.close?.());

    it('summarises an account: its totals, its last session use and whether a second factor is on', async () => {
      const user = await givenUser(repos.users, { email: 'ada@example.com' });
      expect(await directory.summary(user.id)).to.deep.equal({ user, storageBytes: 0, filesCount: 0, lastSeenAt: null, mfaEnabled: false });
      await repos.files.insert(aFile(user.id, { size: 1000 }), LIMITS);
      await repos.files.insert(aFile(user.id, { size: 24 }), LIMITS);
      const session = aSession(user.id, { lastUsedAt: at(5 * MINUTE) });
      await repos.sessions.create({ session, refreshToken: aRefreshToken(session.id) });
      const older = aSession(user.id, { lastUsedAt: at(MINUTE) });
      await repos.sessions.create({ session: older, refreshToken: aRefreshToken(older.id) });
      await repos.mfa.savePendingTotp({ userId: user.id, sealedSecret: 'sealed', createdAt: at(0) });
      expect((await directory.summary(user.id))?.mfaEnabled, 'an unconfirmed enrolment is no second factor').to.equal(false);
      await repos.mfa.confirmTotp({ userId: user.id, sealedSecret: 'sealed', at: at(MINUTE), timeStep: 1, recoveryCodeHashes: [] });
      expect(await directory.summary(user.id)).to.deep.equal({ user, storageBytes: 1024, filesCount: 2, lastSeenAt: at(5 * MINUTE), mfaEnabled: true });
      expect(await directory.summary(randomUUID())).to.equal(undefined);
    });

    it('finds accounts by part of the e-mail (any case, % and _ as themselves), status, plan and role', async () => {
      const confirmed = { emailConfirmedAt: at(0) };
      const ada = await givenUser(repos.users, { ...confirmed, email: 'ada_l@example.com', planName: 'pro' });
      const bob = await givenUser(repos.users, { ...confirmed, email: 'bob@example.org', suspendedAt: at(MINUTE), role: 'admin' });
      const cy = await givenUser(repos.users, { email: 'cy@example.com', emailConfirmedAt: null });
      await givenUser(repos.users, { ...confirmed, email: 'adaxl@example.com' });
      const emails = async (search: Parameters<AccountDirectory['search']>[0]) => (await directory.search(search)).items.map((s) => s.user.email);
      const sort = 'email' as const;
      expect(await emails({ query: 'ADA_', sort, window: WINDOW })).to.deep.equal([ada.email]);
      expect(await emails({ query: '%', sort, window: WINDOW })).to.deep.equal([]);
      expect(await emails({ status: 'suspended', sort, window: WINDOW })).to.deep.equal([bob.email]);
      expect(await emails({ status: 'unconfirmed', sort, window: WINDOW })).to.deep.equal([cy.email]);
      expect(await emails({ status: 'active', query: 'example.com', sort, window: WINDOW })).to.deep.equal([
        'ada_l@example.com',
        'adaxl@example.com',
        'cy@example.com',
      ]);
      expect(await emails({ plan: 'pro', sort, window: WINDOW })).to.deep.equal([ada.email]);
      expect(await emails({ role: 'admin', sort, window: WINDOW })).to.deep.equal([bob.email]);
      expect((await directory.search({ query: 'example', sort, window: { offset: 1, limit: 2 } })).total).to.equal(4);
    });

    it('orders by creation, e-mail, storage, files and last use, both ways, ties by id, and pages without overlap', async () => {
      const a = await givenUser(repos.users, { id: '00000000-0000-4000-8000-00000000000a', email: 'c@example.com', createdAt: at(0) });
      const b = await givenUser(repos.users, { id: '00000000-0000-4000-8000-00000000000b', email: 'a@example.com', createdAt: at(MINUTE) });
      const c = await givenUser(repos.users, { id: '00000000-0000-4000-8000-00000000000c', email: 'b@example.com', createdAt: at(MINUTE) });
      await repos.files.insert(aFile(a.id, { size: 10 }), LIMITS);
      await repos.files.insert(aFile(a.id, { size: 10 }), LIMITS);
      await repos.files.insert(aFile(c.id, { size: 500 }), LIMITS);
      const session = aSession(b.id, { lastUsedAt: at(9 * MINUTE) });
      await repos.sessions.create({ session, refreshToken: aRefreshToken(session.id) });
      const ids = async (sort: Parameters<AccountDirectory['search']>[0]['sort'], window = WINDOW) =>
        (await directory.search({ sort, window })).items.map((s) => s.user.id.slice(-1));
      expect(await ids('created')).to.deep.equal(['a', 'b', 'c']);
      expect(await ids('-created')).to.deep.equal(['c', 'b', 'a']);
      expect(await ids('email')).to.deep.equal(['b', 'c', 'a']);
      expect(await ids('-storage')).to.deep.equal(['c', 'a', 'b']);
      expect(await ids('storage')).to.deep.equal(['b', 'a', 'c']);
      expect(await ids('-files')).to.deep.equal(['a', 'c', 'b']);
      expect(await ids('-last_seen')).to.deep.equal(['b', 'c', 'a']);
      expect([...(await ids('-created', { offset: 0, limit: 2 })), ...(await ids('-created', { offset: 2, limit: 2 }))]).to.deep.equal(['c', 'b', 'a']);
    });
  });

  describe(`InstanceStatistics contract: ${name}`, () => {
    let repos: OpenedRepositories;
    beforeEach(async () => {
      repos = await open();
    });
    afterEach(async () => repos.close?.());

    it('counts accounts by status, files and bytes, files and their bytes by upload day from a day on, and the largest accounts', async () => {
      const ada = await givenUser(repos.users, { emailConfirmedAt: at(0), role: 'admin' });
      const bob = await givenUser(repos.users, { emailConfirmedAt: at(0), suspendedAt: at(0) });
      await givenUser(repos.users, { emailConfirmedAt: null });
      await repos.files.insert(aFile(ada.id, { size: 100, createdAt: new Date(Date.UTC(2025, 2, 1, 10)) }), LIMITS);
      await repos.files.insert(aFile(ada.id, { size: 50, createdAt: new Date(Date.UTC(2025, 2, 3, 23, 59)) }), LIMITS);
      await repos.files.insert(aFile(bob.id, { size: 500, createdAt: new Date(Date.UTC(2025, 2, 3, 0, 0)) }), LIMITS);
      await repos.files.insert(aFile(bob.id, { size: 1, createdAt: new Date(Date.UTC(2025, 1, 1)) }), LIMITS);
      const counts = await repos.instanceStatistics.counts({ since: new Date(Date.UTC(2025, 2, 1)), top: 2 });
      expect(counts.accounts).to.deep.equal({ total: 3, active: 2, suspended: 1, unconfirmed: 1, admins: 1 });
      expect(counts).to.deep.include({ files: 4, bytes: 651 });
      expect(counts.uploadsPerDay).to.deep.equal([
        { day: '2025-03-01', files: 1, bytes: 100 },
        { day: '2025-03-03', files: 2, bytes: 550 },
      ]);
      expect(counts.topAccounts).to.deep.equal([
        { id: bob.id, email: bob.email, storageBytes: 501, filesCount: 2 },
        { id: ada.id, email: ada.email, storageBytes: 150, filesCount: 2 },
      ]);
    });
  });
}
