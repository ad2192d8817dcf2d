import { expect } from 'chai';
import { call, expectError, signUp, signUpWithKey, startTestServer, type TestServer, upload } from '../support/http-harness.js';

/**
 * The operator console's API (docs/admin.md) on the composed app: who may call it, suspension,
 * the last-admin rule, the promise that administrators never see content, and the audit trail.
 */
describe('HTTP: the admin API', function () {
  this.timeout(120_000);
  let server: TestServer;
  /** The first administrator (ADMIN_EMAILS), its session and an admin-scoped key. */
  let root: { userId: string; accessToken: string; adminKey: string; plainKey: string };
  /** An ordinary account with a key of every default scope. */
  let user: { userId: string; accessToken: string; apiKey: string };
  /** An ordinary account holding a private file (the no-content promise). */
  let owner: { userId: string; accessToken: string; apiKey: string; fileId: string; fileName: string; fileText: string };

  const local = (url: string) => url.replace('http://cdn.hangar.test', server.content);

  before(async () => {
    server = await startTestServer({ ADMIN_EMAILS: 'root@example.com' });
    const signedIn = await signUp(server, 'root@example.com');
    const adminKey = await call(server.api, '/auth/api-keys', { method: 'POST', token: signedIn.accessToken, json: { name: 'console', scopes: ['admin'] } });
    expect(adminKey.status, JSON.stringify(adminKey.body)).to.equal(201);
    expect(adminKey.body.scopes).to.deep.equal(['admin']);
    const plainKey = await call(server.api, '/auth/api-keys', { method: 'POST', token: signedIn.accessToken, json: { name: 'scripts' } });
    expect(plainKey.body.scopes).to.not.include('admin');
    root = { ...signedIn, adminKey: adminKey.body.key, plainKey: plainKey.body.key };
    user = await signUpWithKey(server, 'user@example.com');
    const o = await signUpWithKey(server, 'owner@example.com');
    const fileText = 'the owner and nobody else reads this sentence';
    const fileName = 'diary-of-the-owner.txt';
    const uploaded = await upload(server, o.apiKey, new TextEncoder().encode(fileText), {
      contentType: 'text/plain',
      name: fileName,
      query: '?isPublic=false',
    });
    expect(uploaded.status, JSON.stringify(uploaded.body)).to.equal(201);
    owner = { ...o, fileId: uploaded.body.file.file_id, fileName, fileText };
  });
  after(async () => {
    await server.stop();
    expect(server.internalErrors).to.deep.equal([]);
  });

  /** Every admin route with a request that is valid but for the credential; destructive ones act on a fresh account. */
  const ROUTES: { route: string; request: () => Promise<{ method: string; path: string; json?: unknown }> }[] = [
    { route: 'GET /admin/users', request: async () => ({ method: 'GET', path: '/admin/users' }) },
    { route: 'GET /admin/users/:id', request: async () => ({ method: 'GET', path: `/admin/users/${owner.userId}` }) },
    { route: 'PATCH /admin/users/:id', request: async () => ({ method: 'PATCH', path: `/admin/users/${owner.userId}`, json: { file_count_limit: 50 } }) },
    {
      route: 'POST /admin/users/:id/revoke-sessions',
      request: async () => ({ method: 'POST', path: `/admin/users/${(await fresh()).userId}/revoke-sessions` }),
    },
    { route: 'POST /admin/users/:id/reset-mfa', request: async () => ({ method: 'POST', path: `/admin/users/${(await fresh()).userId}/reset-mfa` }) },
    { route: 'POST /admin/users/:id/resend-confirmation', request: async () => ({ method: 'POST', path: `/admin/users/${owner.userId}/resend-confirmation` }) },
    { route: 'DELETE /admin/users/:id', request: async () => ({ method: 'DELETE', path: `/admin/users/${(await fresh()).userId}` }) },
    { route: 'GET /admin/audit', request: async () => ({ method: 'GET', path: '/admin/audit' }) },
    { route: 'GET /admin/invites', request: async () => ({ method: 'GET', path: '/admin/invites' }) },
    { route: 'POST /admin/invites', request: async () => ({ method: 'POST', path: '/admin/invites', json: {} }) },
    { route: 'DELETE /admin/invites/:id', request: async () => ({ method: 'DELETE', path: `/admin/invites/${await freshInvite()}` }) },
    { route: 'GET /admin/stats', request: async () => ({ method: 'GET', path: '/admin/stats' }) },
    { route: 'GET /admin/plans', request: async () => ({ method: 'GET', path: '/admin/plans' }) },
    {
      route: 'PUT /admin/plans/:name',
      request: async () => ({
        method: 'PUT',
        path: '/admin/plans/scratch',
        json: { trial_days: null, storage_limit_bytes: 10, file_count_limit: 1, max_upload_size_bytes: 10 },
      }),
    },
  ];
  const freshInvite = async () => (await call(server.api, '/admin/invites', { method: 'POST', token: root.accessToken, json: {} })).body.id as string;
  let freshCount = 0;
  const fresh = () => signUp(server, `fresh${++freshCount}@example.com`);

  it('lists every admin route of the OpenAPI document under the tag admin, and each is in this test', async () => {
    const openapi = (await call(server.api, '/reference/openapi.json')).body;
    const documented: string[] = [];
    for (const [path, operations] of Object.entries<Record<string, { tags?: string[] }>>(openapi.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        if (path.startsWith('/admin')) {
          expect(operation.tags, `${method} ${path}`).to.deep.equal(['admin']);
          documented.push(`${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`);
        }
      }
    }
    expect(documented.sort()).to.deep.equal(ROUTES.map((r) => r.route).sort());
  });

  it("refuses every admin route to a user's session, a user's key, an admin's key without the admin scope and no credential", async () => {
    for (const { route, request } of ROUTES) {
      const r = await request();
      expectError(await call(server.api, r.path, { method: r.method, json: r.json }), 401, 'UNAUTHORIZED');
      expectError(await call(server.api, r.path, { method: r.method, json: r.json, token: user.accessToken }), 403, 'ADMIN_REQUIRED');
      const byUserKey = await call(server.api, r.path, { method: r.method, json: r.json, apiKey: user.apiKey });
      expectError(byUserKey, 403, 'INSUFFICIENT_SCOPE');
      expect(byUserKey.body.details.missing_scopes, route).to.deep.equal(['admin']);
      expectError(await call(server.api, r.path, { method: r.method, json: r.json, apiKey: root.plainKey }), 403, 'INSUFFICIENT_SCOPE');
    }
  });

  it("answers every admin route to an admin's session and to an admin's key with the admin scope", async () => {
    for (const { route, request } of ROUTES) {
      for (const credential of [{ token: root.accessToken }, { apiKey: root.adminKey }]) {
        const r = await request();
        const answer = await call(server.api, r.path, { method: r.method, json: r.json, ...credential });
        expect(answer.status, `${route}: ${JSON.stringify(answer.body)}`).to.be.oneOf([200, 201, 204]);
      }
    }
  });

  it('refuses the admin scope to a key of an ordinary account', async () => {
    expectError(await call(server.api, '/auth/api-keys', { method: 'POST', token: user.accessToken, json: { scopes: ['admin'] } }), 403, 'ADMIN_REQUIRED');
  });

  it('refuses a suspended administrator, and the last active administrator cannot demote, suspend or delete themself', async () => {
    const patch = (id: string, json: unknown, token = root.accessToken) => call(server.api, `/admin/users/${id}`, { method: 'PATCH', token, json });
    expectError(await patch(root.userId, { role: 'user' }), 409, 'LAST_ADMIN');
    expectError(await patch(root.userId, { status: 'suspended' }), 409, 'LAST_ADMIN');
    expectError(await call(server.api, `/admin/users/${root.userId}`, { method: 'DELETE', token: root.accessToken }), 409, 'LAST_ADMIN');
    // A refused change is refused whole: its other fields are not applied either.
    expectError(await patch(root.userId, { file_count_limit: 3, storage_limit_bytes: 5, role: 'user' }), 409, 'LAST_ADMIN');
    expect((await call(server.api, `/admin/users/${root.userId}`, { token: root.accessToken })).body).to.include({
      role: 'admin',
      status: 'active',
      file_count_limit: null,
      storage_limit_bytes: null,
    });

    const second = await fresh();
    expect((await patch(second.userId, { role: 'admin' })).body).to.include({ role: 'admin' });
    expect((await call(server.api, '/admin/users', { token: second.accessToken })).status).to.equal(200);
    expect((await patch(second.userId, { status: 'suspended' })).body).to.include({ status: 'suspended' });
    for (const { request } of ROUTES) {
      const r = await request();
      expectError(await call(server.api, r.path, { method: r.method, json: r.json, token: second.accessToken }), 403, 'ACCOUNT_SUSPENDED');
    }
    // With a suspended second admin, root is still the last active one.
    expectError(await patch(root.userId, { role: 'user' }), 409, 'LAST_ADMIN');
    await patch(second.userId, { status: 'active' });
    expect((await patch(root.userId, { role: 'user' }, second.accessToken)).body).to.include({ role: 'user' });
    expectError(await call(server.api, '/admin/users', { token: root.accessToken }), 403, 'ADMIN_REQUIRED');
    expectError(await call(server.api, '/admin/users', { apiKey: root.adminKey }), 403, 'ADMIN_REQUIRED');
    expect((await patch(root.userId, { role: 'admin' }, second.accessToken)).body).to.include({ role: 'admin' });
    await call(server.api, `/admin/users/${second.userId}`, { method: 'DELETE', token: root.accessToken });
  });

  it('suspends an account: sign-in, refresh, keys and tokens answer 403 and its files are not served; reinstated, everything works again', async () => {
    const email = 'suspended@example.com';
    const account = await signUpWithKey(server, email);
    const login = await call(server.api, '/auth/login', { method: 'POST', json: { email, password: 'correct horse' } });
    const refreshToken = login.body.session.refresh_token;
    const file = (await upload(server, account.apiKey, new TextEncoder().encode('public words'), { contentType: 'text/plain', name: 'p.txt' })).body.file;
    const signed = (await call(server.api, `/files/${file.file_id}/signed-url`, { method: 'POST', apiKey: account.apiKey, json: { expires_in: 600 } })).body
      .signed_url;
    const share = (await call(server.api, `/files/${file.file_id}/shares`, { method: 'POST', apiKey: account.apiKey, json: {} })).body.url;
    const uploadUrl = (
      await call(server.api, '/files/upload-url', { method: 'POST', token: account.accessToken, json: { expires_in: 600 } })
    ).body.upload_url.replace('http://api.hangar.test', server.api);
    const served = async () => [
      (await fetch(local(file.public_url))).status,
      (await fetch(local(signed))).status,
      (await fetch(`${local(share)}/download`)).status,
      (await fetch(local(file.view_url))).status,
    ];
    expect(await served()).to.deep.equal([200, 200, 200, 200]);

    const suspended = await call(server.api, `/admin/users/${account.userId}`, { method: 'PATCH', apiKey: root.adminKey, json: { status: 'suspended' } });
    expect(suspended.body).to.include({ status: 'suspended' });
    expect(suspended.body.suspended_at).to.be.a('string');
    expectError(await call(server.api, '/auth/login', { method: 'POST', json: { email, password: 'correct horse' } }), 403, 'ACCOUNT_SUSPENDED');
    expectError(await call(server.api, '/auth/refresh', { method: 'POST', json: { refresh_token: refreshToken } }), 403, 'ACCOUNT_SUSPENDED');
    expectError(await call(server.api, '/files', { apiKey: account.apiKey }), 403, 'ACCOUNT_SUSPENDED');
    expectError(await call(server.api, '/profile', { token: account.accessToken }), 403, 'ACCOUNT_SUSPENDED');
    expect(await served()).to.deep.equal([404, 404, 404, 404]);
    // An upload URL the account minted before takes nothing while it is suspended.
    expectError(
      await call(uploadUrl, '', { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: 'uploaded while suspended' }),
      403,
      'ACCOUNT_SUSPENDED',
    );
    // A wrong password still answers as a wrong password: suspension is told only to the owner.
    expectError(await call(server.api, '/auth/login', { method: 'POST', json: { email, password: 'wrong horse' } }), 401, 'INVALID_CREDENTIALS');

    await call(server.api, `/admin/users/${account.userId}`, { method: 'PATCH', apiKey: root.adminKey, json: { status: 'active' } });
    expect((await call(server.api, '/auth/login', { method: 'POST', json: { email, password: 'correct horse' } })).status).to.equal(200);
    expect((await call(server.api, '/files', { apiKey: account.apiKey })).status).to.equal(200);
    expect((await call(server.api, '/profile', { token: account.accessToken })).status).to.equal(200);
    expect(await served()).to.deep.equal([200, 200, 200, 200]);
    expect((await call(uploadUrl, '', { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: 'uploaded when reinstated' })).status).to.equal(201);
  });

  it("never answers a private file's name, id or bytes on any admin route (the no-content promise)", async () => {
    await call(server.api, `/files/${owner.fileId}/signed-url`, { method: 'POST', apiKey: owner.apiKey, json: { expires_in: 600 } });
    for (const { route, request } of ROUTES) {
      const r = await request();
      const response = await fetch(server.api + r.path, {
        method: r.method,
        headers: { authorization: `Bearer ${root.accessToken}`, ...(r.json === undefined ? {} : { 'content-type': 'application/json' }) },
        body: r.json === undefined ? undefined : JSON.stringify(r.json),
      });
      const text = await response.text();
      expect(response.status, route).to.be.oneOf([200, 201, 204]);
      for (const secret of [owner.fileName, owner.fileId, owner.fileText]) expect(text, route).to.not.include(secret);
    }
    const details = (await call(server.api, `/admin/users/${owner.userId}`, { token: root.accessToken })).body;
    expect(details).to.include({ files_count: 1, storage_bytes: owner.fileText.length });
  });

  it('lists accounts by e-mail part, status and order, with counts', async () => {
    const list = (query: string) => call(server.api, `/admin/users?${query}`, { token: root.accessToken });
    const found = await list('q=OWNER@');
    expect(found.body.users.map((u: { email: string }) => u.email)).to.deep.equal(['owner@example.com']);
    expect(found.body.users[0]).to.include({ role: 'user', status: 'active', files_count: 1, mfa_enabled: false });
    expect(found.body.users[0].last_seen_at).to.be.a('string');
    expect((await list('q=%25')).body.total).to.equal(0);
    const byStorage = (await list('sort=-storage&limit=1')).body;
    expect(byStorage.users[0].email).to.equal('owner@example.com');
    expect(byStorage.total).to.be.greaterThan(3);
    expect((await list('role=admin')).body.users.map((u: { email: string }) => u.email)).to.deep.equal(['root@example.com']);
    expectError(await list('sort=size'), 400, 'VALIDATION_FAILED');
  });

  it('changes limits and plan with a clear refusal of bad values, and each change applies to the account at once', async () => {
    const account = await signUpWithKey(server, 'limited@example.com');
    const patch = (json: unknown) => call(server.api, `/admin/users/${account.userId}`, { method: 'PATCH', token: root.accessToken, json });
    expectError(await patch({ plan: 'no-such-plan' }), 400, 'PLAN_NOT_FOUND');
    expectError(await patch({ file_count_limit: -1 }), 400, 'VALIDATION_FAILED');
    expectError(await patch({ role: 'owner' }), 400, 'VALIDATION_FAILED');
    const limited = await patch({ file_count_limit: 1, storage_limit_bytes: 1000 });
    expect(limited.body).to.include({ file_count_limit: 1, storage_limit_bytes: 1000 });
    expect(limited.body.limits).to.include({ file_count_limit: 1, storage_limit_bytes: 1000 });
    expect((await upload(server, account.apiKey, new TextEncoder().encode('one'), { contentType: 'text/plain' })).status).to.equal(201);
    expectError(await upload(server, account.apiKey, new TextEncoder().encode('two'), { contentType: 'text/plain' }), 403, 'FILE_COUNT_LIMIT_REACHED');
    const lifted = await patch({ file_count_limit: null });
    expect(lifted.body.file_count_limit).to.equal(null);
    expect((await upload(server, account.apiKey, new TextEncoder().encode('two'), { contentType: 'text/plain' })).status).to.equal(201);
  });

  it('records who did what to which account, from where, before and after, and tells the account in its own activity log', async () => {
    const account = await signUpWithKey(server, 'audited@example.com');
    await call(server.api, `/admin/users/${account.userId}`, { method: 'PATCH', token: root.accessToken, json: { status: 'suspended' } });
    await call(server.api, `/admin/users/${account.userId}`, { method: 'PATCH', apiKey: root.adminKey, json: { status: 'active', file_count_limit: 9 } });
    await call(server.api, `/admin/users/${account.userId}/revoke-sessions`, { method: 'POST', token: root.accessToken });
    await call(server.api, `/admin/users/${account.userId}/reset-mfa`, { method: 'POST', token: root.accessToken });
    const audit = (await call(server.api, `/admin/audit?user_id=${account.userId}`, { token: root.accessToken })).body;
    expect(audit.entries.map((e: { action: string }) => e.action)).to.deep.equal(['reset_mfa', 'revoke_sessions', 'update_account', 'suspend']);
    const [reset, revoked, updated, suspend] = audit.entries;
    for (const entry of audit.entries) {
      expect(entry.actor).to.deep.equal({ id: root.userId, email: 'root@example.com' });
      expect(entry.target).to.deep.equal({ id: account.userId, email: 'audited@example.com' });
      expect(entry.client).to.be.a('string').and.not.equal('');
    }
    expect(suspend).to.deep.include({ before: { status: 'active' }, after: { status: 'suspended' } });
    expect(updated).to.deep.include({ before: { status: 'suspended', file_count_limit: null }, after: { status: 'active', file_count_limit: 9 } });
    expect(revoked).to.include({ before: null, after: null });
    expect(reset.after).to.deep.equal({ totp: false, passkeys: 0 });
    const details = (await call(server.api, `/admin/users/${account.userId}`, { token: root.accessToken })).body;
    expect(details.recent_actions.map((e: { action: string }) => e.action)).to.deep.equal(['reset_mfa', 'revoke_sessions', 'update_account', 'suspend']);
    // The owner's sessions ended; the key still reads the activity log.
    expectError(await call(server.api, '/profile', { token: account.accessToken }), 401, 'UNAUTHORIZED');
    const deadline = Date.now() + 5000;
    let byAdmin: { path: string; metadata: Record<string, unknown> }[] = [];
    while (Date.now() < deadline) {
      const logs = (await call(server.api, '/logs?limit=100', { apiKey: account.apiKey })).body.logs as {
        method: string;
        path: string;
        metadata: Record<string, unknown>;
      }[];
      byAdmin = logs.filter((entry) => entry.method === 'ADMIN');
      if (byAdmin.length === 4) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(byAdmin.map((entry) => entry.path)).to.have.members(['/admin/suspend', '/admin/update_account', '/admin/revoke_sessions', '/admin/reset_mfa']);
    for (const entry of byAdmin) expect(entry.metadata).to.include({ by: 'administrator' }).and.not.have.property('actor');

    const mail = await call(server.api, '/admin/audit', { token: root.accessToken });
    expect(mail.body.total).to.be.greaterThan(4);
  });

  it('creates, lists and revokes invites, audited, and the link is shown only at creation', async () => {
    const created = await call(server.api, '/admin/invites', { method: 'POST', apiKey: root.adminKey, json: { plan: 'default', expires_in: 3600 } });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    expect(created.body).to.include({ state: 'usable', plan: 'default' });
    expect(created.body.link).to.match(/^http:\/\/api\.hangar\.test\/#\/register\?invite=/);
    const listed = (await call(server.api, '/admin/invites', { token: root.accessToken })).body.invites;
    expect(listed[0]).to.deep.include({ id: created.body.id, state: 'usable' }).and.not.have.property('link');
    expectError(await call(server.api, '/admin/invites', { method: 'POST', token: root.accessToken, json: { plan: 'nope' } }), 400, 'PLAN_NOT_FOUND');
    expect((await call(server.api, `/admin/invites/${created.body.id}`, { method: 'DELETE', token: root.accessToken })).status).to.equal(204);
    expectError(await call(server.api, `/admin/invites/${created.body.id}`, { method: 'DELETE', token: root.accessToken }), 404, 'INVITE_NOT_FOUND');
    const audit = (await call(server.api, '/admin/audit?limit=2', { token: root.accessToken })).body.entries;
    expect(audit.map((e: { action: string }) => e.action)).to.deep.equal(['revoke_invite', 'create_invite']);
    expect(audit[1].after).to.include({ invite_id: created.body.id, plan: 'default' });
    expect(JSON.stringify(audit)).to.not.include(created.body.link.split('invite=')[1]);
  });

  it('sets a plan: every account on it gets the new limits at once, and the change is audited with the plan before and after', async () => {
    const plans = (await call(server.api, '/admin/plans', { token: root.accessToken })).body.plans as {
      name: string;
      default: boolean;
      file_count_limit: number;
    }[];
    const original = plans.find((p) => p.default)!;
    const account = await signUpWithKey(server, 'planned@example.com');
    const body = { trial_days: null, storage_limit_bytes: 10_000, file_count_limit: 1, max_upload_size_bytes: 5_000, image_ops_limit: null };
    const set = await call(server.api, `/admin/plans/${original.name}`, { method: 'PUT', apiKey: root.adminKey, json: body });
    expect(set.status, JSON.stringify(set.body)).to.equal(200);
    expect(set.body).to.deep.equal({ name: original.name, ...body, default: true });
    expect((await upload(server, account.apiKey, new TextEncoder().encode('one'), { contentType: 'text/plain' })).status).to.equal(201);
    expectError(await upload(server, account.apiKey, new TextEncoder().encode('two'), { contentType: 'text/plain' }), 403, 'FILE_COUNT_LIMIT_REACHED');
    expect((await call(server.api, '/profile', { apiKey: account.apiKey })).body.plan).to.include({ file_count_limit: 1, storage_limit_bytes: 10_000 });
    const entry = (await call(server.api, '/admin/audit?limit=1', { token: root.accessToken })).body.entries[0];
    expect(entry).to.deep.include({ action: 'update_plan', target: null });
    expect(entry.before).to.include({ name: original.name, file_count_limit: original.file_count_limit });
    expect(entry.after).to.include({ name: original.name, file_count_limit: 1 });
    expectError(
      await call(server.api, '/admin/plans/x', { method: 'PUT', token: root.accessToken, json: { ...body, file_count_limit: -1 } }),
      400,
      'VALIDATION_FAILED',
    );
    // Put back as it was, for the other tests.
    const restored = { ...(original as unknown as Record<string, unknown>) };
    delete restored.name;
    delete restored.default;
    expect((await call(server.api, `/admin/plans/${original.name}`, { method: 'PUT', token: root.accessToken, json: restored })).status).to.equal(200);
  });

  it('counts the instance: accounts by status, files and bytes, uploads per day for 30 days and the largest accounts', async () => {
    const asked = new Date().toISOString().slice(0, 10);
    const stats = (await call(server.api, '/admin/stats', { token: root.accessToken })).body;
    const answered = new Date().toISOString().slice(0, 10);
    const accounts = (await call(server.api, '/admin/users?limit=100', { token: root.accessToken })).body.users as {
      status: string;
      files_count: number;
      storage_bytes: number;
      email: string;
    }[];
    expect(stats.accounts.total).to.equal(accounts.length);
    expect(stats.accounts.active + stats.accounts.suspended).to.equal(accounts.length);
    expect(stats.accounts.admins).to.equal(1);
    expect(stats.files).to.equal(accounts.reduce((sum, a) => sum + a.files_count, 0));
    expect(stats.bytes).to.equal(accounts.reduce((sum, a) => sum + a.storage_bytes, 0));
    expect(stats.uploads_per_day).to.have.length(30);
    // Every file of this server was uploaded during this run: all of them on its last day or days
    // (a run can span midnight UTC), which end with the day of the answer.
    expect([asked, answered]).to.include(stats.uploads_per_day.at(-1).day);
    const sum = (key: 'files' | 'bytes') => (stats.uploads_per_day as { files: number; bytes: number }[]).reduce((total, day) => total + day[key], 0);
    expect({ files: sum('files'), bytes: sum('bytes') }).to.deep.equal({ files: stats.files, bytes: stats.bytes });
    expect(stats.uploads_per_day.slice(0, -2).every((day: { files: number }) => day.files === 0)).to.equal(true);
    expect(stats.uploads_per_day[0]).to.deep.include({ files: 0, bytes: 0 });
    expect(stats.top_accounts[0].storage_bytes).to.equal(Math.max(...accounts.map((a) => a.storage_bytes)));
    expect(stats.instance).to.include({ database: process.env.HANGAR_TEST_DB === 'postgres' ? 'postgres' : 'sqlite', registration: 'open' });
    expect(stats.version).to.be.a('string');
  });

  it('deletes an account with its files, keeps its e-mail in the audit log, and answers 404 for it afterwards', async () => {
    const account = await signUpWithKey(server, 'leaving@example.com');
    await upload(server, account.apiKey, new TextEncoder().encode('bye'), { contentType: 'text/plain' });
    const deleted = await call(server.api, `/admin/users/${account.userId}`, { method: 'DELETE', token: root.accessToken });
    expect(deleted.body).to.deep.equal({ deleted_files: 1 });
    expectError(await call(server.api, `/admin/users/${account.userId}`, { token: root.accessToken }), 404, 'USER_NOT_FOUND');
    expectError(await call(server.api, '/files', { apiKey: account.apiKey }), 401, 'UNAUTHORIZED');
    const audit = (await call(server.api, `/admin/audit?user_id=${account.userId}`, { token: root.accessToken })).body;
    expect(audit.entries[0]).to.deep.include({ action: 'delete_account', target: { id: account.userId, email: 'leaving@example.com' } });
  });

  it('deletes an account of more than 100 files in the background: 202, suspended at once, its file count falling until 404', async () => {
    const account = await signUpWithKey(server, 'large@example.com');
    expect(
      (await call(server.api, `/admin/users/${account.userId}`, { method: 'PATCH', token: root.accessToken, json: { file_count_limit: 1000 } })).status,
    ).to.equal(200);
    const files = 130;
    for (let i = 0; i < files; i++) {
      const uploaded = await upload(server, account.apiKey, new TextEncoder().encode(`file ${i}`), { contentType: 'text/plain' });
      expect(uploaded.status, JSON.stringify(uploaded.body)).to.equal(201);
    }
    const started = await call(server.api, `/admin/users/${account.userId}`, { method: 'DELETE', token: root.accessToken });
    expect(started.status, JSON.stringify(started.body)).to.equal(202);
    expect(started.body).to.deep.equal({ state: 'deleting', files_remaining: files });
    expect(started.headers.get('location')).to.equal(`/admin/users/${account.userId}`);
    expectError(await call(server.api, '/files', { apiKey: account.apiKey }), 403, 'ACCOUNT_SUSPENDED');
    const seen: number[] = [];
    for (let polls = 0; ; polls++) {
      const page = await call(server.api, `/admin/users/${account.userId}`, { token: root.accessToken });
      if (page.status === 404) break;
      expect(page.body).to.include({ status: 'suspended' });
      seen.push(page.body.files_count);
      expect(polls, 'still there after 20 s').to.be.below(1000);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(
      [...seen].sort((a, b) => b - a),
      'the file count only falls',
    ).to.deep.equal(seen);
    // The entry is written just after the account is gone: within moments of the 404.
    let audit = (await call(server.api, `/admin/audit?user_id=${account.userId}`, { token: root.accessToken })).body;
    for (let polls = 0; audit.entries[0]?.action !== 'delete_account' && polls < 100; polls++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      audit = (await call(server.api, `/admin/audit?user_id=${account.userId}`, { token: root.accessToken })).body;
    }
    expect(audit.entries[0]).to.deep.include({ action: 'delete_account', before: { files: files } });
  });
});
