import { expect } from 'chai';
import { makePng, randomBytesOf, randomFileOf } from '../support/bytes.js';
import { call, expectError, signUpWithKey, startTestServer, type TestServer, upload } from '../support/http-harness.js';

/**
 * Polls `GET /logs` until it holds at least `count` entries other than the polling requests
 * themselves (every authenticated request is logged, `GET /logs` too; the log is written in
 * batches every 2 s). Returns those entries, newest first.
 */
async function logsOf(server: TestServer, apiKey: string, count: number): Promise<any[]> {
  const deadline = Date.now() + 8000;
  for (;;) {
    const result = await call(server.api, '/logs?limit=100', { apiKey });
    expect(result.status).to.equal(200);
    const entries = result.body.logs.filter((entry: any) => entry.path !== '/logs');
    if (entries.length >= count || Date.now() > deadline) return entries;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('HTTP: plans, quotas, usage, activity log and profile', function () {
  this.timeout(60_000);

  describe('quotas', () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ FILE_COUNT_LIMIT: '10', STORAGE_LIMIT_BYTES: '10000', MAX_UPLOAD_SIZE_LIMIT_BYTES: '5000' });
    });
    after(async () => {
      await server.stop();
      expect(server.internalErrors).to.deep.equal([]);
    });

    it('lets exactly 10 of 20 simultaneous uploads through when 10 files are left, refusing the rest with 403 FILE_COUNT_LIMIT_REACHED', async () => {
      const { apiKey } = await signUpWithKey(server, 'count@example.com');
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => upload(server, apiKey, randomFileOf(20, 'image/png', i + 1))));
      const created = results.filter((r) => r.status === 201);
      const refused = results.filter((r) => r.status !== 201);
      expect(created).to.have.length(10);
      refused.forEach((r) => expectError(r, 403, 'FILE_COUNT_LIMIT_REACHED'));
      const usage = await call(server.api, '/usage', { apiKey });
      expect(usage.body).to.include({ files_count: 10, storage_bytes: 200 });
      expect((await call(server.api, '/files', { apiKey })).body.total).to.equal(10);
    });

    it('lets exactly 8 of 20 simultaneous 1250-byte uploads through a 10 000-byte storage limit, refusing the rest with 403 STORAGE_LIMIT_REACHED', async () => {
      const { apiKey } = await signUpWithKey(server, 'bytes@example.com');
      await call(server.api, '/settings', { method: 'PATCH', apiKey, json: { max_upload_size_bytes: 5000 } });
      // Chunked bodies (no Content-Length), so the refusal can only come from the atomic insert.
      const chunked = (i: number) =>
        fetch(`${server.api}/files`, {
          method: 'POST',
          headers: { 'x-api-key': apiKey, 'content-type': 'video/mp4' },
          body: ReadableStream.from(
            (async function* () {
              yield randomFileOf(1250, 'video/mp4', i + 1);
            })(),
          ),
          duplex: 'half',
        });
      const responses = await Promise.all(Array.from({ length: 20 }, (_, i) => chunked(i)));
      const bodies = await Promise.all(responses.map((r) => r.json() as Promise<any>));
      expect(responses.filter((r) => r.status === 201)).to.have.length(8);
      bodies.filter((b) => !b.file).forEach((b) => expect(b.code).to.equal('STORAGE_LIMIT_REACHED'));
      const usage = await call(server.api, '/usage', { apiKey });
      expect(usage.body).to.include({ files_count: 8, storage_bytes: 10_000 });
    });

    it('refuses an upload whose Content-Length would cross the storage limit, and frees space on delete', async () => {
      const { apiKey } = await signUpWithKey(server, 'cross@example.com');
      await call(server.api, '/settings', { method: 'PATCH', apiKey, json: { max_upload_size_bytes: 5000 } });
      const first = await upload(server, apiKey, randomFileOf(5000));
      const second = await upload(server, apiKey, randomFileOf(4000));
      expect([first.status, second.status]).to.deep.equal([201, 201]);
      expectError(await upload(server, apiKey, randomBytesOf(1001)), 403, 'STORAGE_LIMIT_REACHED');
      expect((await upload(server, apiKey, randomFileOf(1000))).status).to.equal(201);
      expectError(await upload(server, apiKey, randomBytesOf(1)), 403, 'STORAGE_LIMIT_REACHED');
      expect((await call(server.api, `/files/${first.body.file.file_id}`, { method: 'DELETE', apiKey })).status).to.equal(204);
      expect((await call(server.api, '/usage', { apiKey })).body).to.include({ storage_bytes: 5000, files_count: 2 });
      expect((await upload(server, apiKey, randomFileOf(5000))).status).to.equal(201);
    });

    it('caps max_upload_size_bytes at the plan ceiling: above it is 400', async () => {
      const { apiKey } = await signUpWithKey(server, 'ceiling@example.com');
      expect((await call(server.api, '/settings', { apiKey })).body.max_upload_size_bytes).to.equal(5000);
      expectError(await call(server.api, '/settings', { method: 'PATCH', apiKey, json: { max_upload_size_bytes: 5001 } }), 400, 'INVALID_SETTINGS');
      expect((await call(server.api, '/settings', { method: 'PATCH', apiKey, json: { max_upload_size_bytes: 5000 } })).status).to.equal(200);
    });
  });

  describe('trial', () => {
    it('refuses uploads and deletes with 403 TRIAL_ENDED when the trial ends at sign-up (TRIAL_DAYS=0), while reads go on', async () => {
      const server = await startTestServer({ TRIAL_DAYS: '0' });
      try {
        const { apiKey } = await signUpWithKey(server, 'trial@example.com');
        expectError(await upload(server, apiKey, makePng()), 403, 'TRIAL_ENDED');
        expectError(await call(server.api, '/files/abcdefghij', { method: 'DELETE', apiKey }), 403, 'TRIAL_ENDED');
        expectError(await call(server.api, '/files/bulk-delete', { method: 'POST', apiKey, json: { ids: ['abcdefghij'] } }), 403, 'TRIAL_ENDED');
        expect((await call(server.api, '/files', { apiKey })).status).to.equal(200);
        const profile = await call(server.api, '/profile', { apiKey });
        expect(profile.body.plan.trial_active).to.equal(false);
        expect(profile.body.subscription.status).to.equal('expired');
      } finally {
        await server.stop();
      }
    });

    it('never ends the trial with TRIAL_DAYS=off', async () => {
      const server = await startTestServer({ TRIAL_DAYS: 'off' });
      try {
        const { apiKey } = await signUpWithKey(server, 'free@example.com');
        expect((await upload(server, apiKey, makePng())).status).to.equal(201);
        const profile = await call(server.api, '/profile', { apiKey });
        expect(profile.body.plan).to.include({ trial_ends_at: null, trial_active: false });
        expect(profile.body.subscription.status).to.equal('free');
      } finally {
        await server.stop();
      }
    });
  });

  describe('usage, logs and profile', () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer();
    });
    after(async () => {
      await server.stop();
      expect(server.internalErrors).to.deep.equal([]);
    });

    it('reports storage, file count and origin reads of /m and /d (GET, HEAD, 304 and ranges once each) in a period around now', async () => {
      const { apiKey } = await signUpWithKey(server, 'usage@example.com');
      const empty = await call(server.api, '/usage', { apiKey });
      expect(empty.status).to.equal(200);
      expect(empty.body).to.have.keys('storage_bytes', 'files_count', 'origin_reads', 'image_ops', 'period_start', 'period_end');
      expect(empty.body).to.include({ storage_bytes: 0, files_count: 0, origin_reads: 0, image_ops: 0 });
      const now = Date.now();
      expect(Date.parse(empty.body.period_start)).to.be.at.most(now);
      expect(Date.parse(empty.body.period_end)).to.be.greaterThan(now);
      expect(empty.body.period_start).to.match(/T00:00:00\.000Z$/);

      const png = makePng();
      const a = (await upload(server, apiKey, png)).body.file;
      const b = (await upload(server, apiKey, randomFileOf(300, 'video/mp4'), { contentType: 'video/mp4' })).body.file;
      const view = await fetch(`${server.content}/m/${a.file_id}`);
      const etag = view.headers.get('etag')!;
      await view.arrayBuffer();
      await (await fetch(`${server.content}/d/${a.file_id}`)).arrayBuffer();
      await (await fetch(`${server.content}/m/${a.file_id}`, { method: 'HEAD' })).arrayBuffer();
      await (await fetch(`${server.content}/m/${a.file_id}`, { headers: { 'if-none-match': etag } })).arrayBuffer();
      await (await fetch(`${server.content}/m/${b.file_id}`, { headers: { range: 'bytes=0-9' } })).arrayBuffer();
      await (await fetch(`${server.content}/m/missing000`)).arrayBuffer();

      const usage = await call(server.api, '/usage', { apiKey });
      expect(usage.body).to.include({ storage_bytes: png.length + 300, files_count: 2, origin_reads: 5, image_ops: 0 });
      await call(server.api, `/files/${b.file_id}`, { method: 'DELETE', apiKey });
      expect((await call(server.api, '/usage', { apiKey })).body).to.include({ storage_bytes: png.length, files_count: 1, origin_reads: 5 });
    });

    it('logs authenticated requests newest first with method, path without query, status, size and metadata; never credentials', async () => {
      const account = await signUpWithKey(server, 'logs@example.com');
      const file = (await upload(server, account.apiKey, makePng(), { name: 'logged.png' })).body.file;
      await call(server.api, `/files?q=secret-query`, { apiKey: account.apiKey });
      await call(server.api, `/files/${file.file_id}`, { token: account.accessToken });
      await call(server.api, '/files/nothere000', { apiKey: account.apiKey });
      // signUpWithKey made two logged requests (the sign-in, creating the key); with the four above: six.
      const entries = await logsOf(server, account.apiKey, 6);
      expect(entries).to.have.length(6);
      const [notFound, get, list, uploaded, createKey, signIn] = entries;
      expect(signIn).to.include({ method: 'POST', path: '/auth/login', status_code: 200 });
      expect(signIn.metadata).to.include({ auth: 'jwt' });
      expect(notFound).to.include({ method: 'GET', path: '/files/nothere000', status_code: 404 });
      expect(get).to.include({ method: 'GET', path: `/files/${file.file_id}`, status_code: 200 });
      expect(get.metadata).to.include({ auth: 'jwt', file_id: file.file_id });
      expect(list).to.include({ method: 'GET', path: '/files', status_code: 200 });
      expect(uploaded).to.include({ method: 'POST', path: '/files', status_code: 201, request_size_bytes: makePng().length });
      expect(uploaded.metadata).to.include({ auth: 'api_key', file_id: file.file_id });
      expect(uploaded.metadata.api_key_id).to.match(/^[0-9a-f-]{36}$/);
      expect(uploaded.metadata.duration_ms).to.be.a('number');
      expect(uploaded.metadata).to.have.property('user_agent');
      expect(uploaded.metadata.ip).to.be.a('string');
      expect(createKey).to.include({ method: 'POST', path: '/auth/api-keys', status_code: 201 });
      expect(entries[0]).to.have.keys('id', 'method', 'path', 'status_code', 'request_size_bytes', 'created_at', 'metadata');
      const text = JSON.stringify(entries);
      expect(text).to.not.include(account.apiKey).and.not.include(account.accessToken).and.not.include('secret-query');
      const all = (await call(server.api, '/logs?limit=100', { apiKey: account.apiKey })).body;
      const page = await call(server.api, '/logs?page=2&limit=2', { apiKey: account.apiKey });
      expect(page.body).to.include({ page: 2, limit: 2 });
      expect(page.body.total).to.be.at.least(all.total);
      expect(page.body.logs.map((l: any) => l.id)).to.deep.equal(all.logs.slice(2, 4).map((l: any) => l.id));
      expect((await call(server.api, '/logs', { apiKey: account.apiKey })).body.limit).to.equal(30);
      expectError(await call(server.api, '/logs?limit=101', { apiKey: account.apiKey }), 400, 'VALIDATION_FAILED');
      const other = await signUpWithKey(server, 'logs-other@example.com');
      const others = await logsOf(server, other.apiKey, 1);
      expect(others.length).to.be.at.least(1);
      expect(others.every((l: any) => !l.path.includes(file.file_id))).to.equal(true);
    });

    it('lists account actions alone with kind=actions (sign-in, key, upload, delete; no reads), and pages by a stable cursor', async () => {
      const account = await signUpWithKey(server, 'actions@example.com');
      const file = (await upload(server, account.apiKey, makePng(), { name: 'a.png' })).body.file;
      for (let i = 0; i < 3; i++) await call(server.api, '/files', { apiKey: account.apiKey });
      await call(server.api, `/files/${file.file_id}`, { method: 'DELETE', apiKey: account.apiKey });
      await logsOf(server, account.apiKey, 7);
      const actions = await call(server.api, '/logs?kind=actions&limit=100', { apiKey: account.apiKey });
      expect(actions.status).to.equal(200);
      expect(actions.body.logs.map((l: any) => `${l.method} ${l.path}`)).to.deep.equal([
        `DELETE /files/${file.file_id}`,
        'POST /files',
        'POST /auth/api-keys',
        'POST /auth/login',
      ]);
      expect(actions.body.total).to.equal(4);
      expect(actions.body.next_cursor).to.equal(null);
      const reads = (await call(server.api, '/logs?kind=reads&limit=100', { apiKey: account.apiKey })).body;
      expect(reads.logs.every((l: any) => l.method === 'GET')).to.equal(true);

      const first = await call(server.api, '/logs?kind=actions&limit=2', { apiKey: account.apiKey });
      expect(first.body.logs.map((l: any) => l.method)).to.deep.equal(['DELETE', 'POST']);
      expect(first.body.next_cursor).to.be.a('string');
      // A new action between the two pages shifts nothing: the next page starts after the cursor.
      await upload(server, account.apiKey, makePng(), { name: 'b.png' });
      await logsOf(server, account.apiKey, 8);
      const second = await call(server.api, `/logs?kind=actions&limit=2&before=${encodeURIComponent(first.body.next_cursor)}`, { apiKey: account.apiKey });
      expect(second.status).to.equal(200);
      expect(second.body.logs.map((l: any) => l.path)).to.deep.equal(['/auth/api-keys', '/auth/login']);
      expect(second.body.next_cursor).to.equal(null);
      expectError(await call(server.api, '/logs?before=not-a-cursor', { apiKey: account.apiKey }), 400, 'INVALID_CURSOR');
      expectError(await call(server.api, '/logs?kind=everything', { apiKey: account.apiKey }), 400, 'VALIDATION_FAILED');
    });

    it('shows the profile: user, plan with trial, subscription, and the billing fields at the top level', async () => {
      const { apiKey, userId } = await signUpWithKey(server, 'profile@example.com');
      const profile = await call(server.api, '/profile', { apiKey });
      expect(profile.status).to.equal(200);
      expect(profile.body.user).to.include({ id: userId, email: 'profile@example.com' });
      expect(profile.body.user.email_confirmed_at).to.match(/Z$/);
      expect(profile.body.plan).to.include({
        name: 'default',
        trial_active: true,
        storage_limit_bytes: 1024 ** 3,
        file_count_limit: 10000,
        max_upload_size_bytes: 1024 ** 3,
      });
      const trialDays = (Date.parse(profile.body.plan.trial_ends_at) - Date.parse(profile.body.user.created_at)) / 86_400_000;
      expect(trialDays).to.equal(14);
      expect(profile.body.subscription).to.deep.equal({ status: 'trialing', subscription_canceled_at: null, access_until: null });
      expect(profile.body).to.include({ subscription_canceled_at: null, access_until: null });
      expectError(await call(server.api, '/profile'), 401, 'UNAUTHORIZED');
      expectError(await call(server.api, '/usage'), 401, 'UNAUTHORIZED');
      expectError(await call(server.api, '/logs'), 401, 'UNAUTHORIZED');
    });
  });
});
