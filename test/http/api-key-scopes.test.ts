import { expect } from 'chai';
import { call, expectError, signUp, startTestServer, type TestServer } from '../support/http-harness.js';
import { solidPng } from '../support/images.js';

type Scope = 'files:read' | 'files:write' | 'files:delete' | 'account:read' | 'webhooks:manage';
const SCOPES: readonly Scope[] = ['files:read', 'files:write', 'files:delete', 'account:read', 'webhooks:manage'];
const EVERY_SCOPE = 'every scope' as const;

/** What a route needs from an API key: one scope, or every scope ("full access"). */
type Needs = Scope | typeof EVERY_SCOPE;

/** A request of the route, built against the account's fixtures (a file of its own for routes that destroy it). */
type RequestOf = (f: Fixtures) => Promise<{ path: string; method: string; json?: unknown; headers?: Record<string, string>; body?: string }>;

interface Fixtures {
  /** A file of the account that outlives the table (public id). */
  fileId: string;
  /** Uploads a fresh file and answers its public id. */
  freshFile(): Promise<string>;
  /** Creates a fresh share link and answers its id. */
  freshShare(): Promise<string>;
  /** Creates a fresh resumable (tus) upload of 4 bytes, none sent yet, and answers its id. */
  freshUpload(): Promise<string>;
  /** A webhook endpoint of the account that outlives the table, and one of its deliveries. */
  webhookId: string;
  deliveryId: string;
  /** Creates a fresh webhook endpoint and answers its id. */
  freshWebhook(): Promise<string>;
}

/** A webhook target on the loopback interface (the server of this test allows private networks). */
const HOOK = { url: 'http://127.0.0.1:9/hook', events: ['file.created'] };

/** The headers of a tus creation of 4 bytes of text/plain named t.txt (tus 1.0.0). */
const TUS_CREATION = { 'tus-resumable': '1.0.0', 'upload-length': '4', 'upload-metadata': `filename ${btoa('t.txt')},filetype ${btoa('text/plain')}` };

/**
 * Every route an API key may call, the scope it needs, and a request that is valid but for the
 * credential. This table is the documented contract (docs/api-keys.md); the test also checks that
 * the OpenAPI document lists no key-accessible route missing here.
 */
const TABLE: { route: string; needs: Needs; request: RequestOf }[] = [
  { route: 'GET /files', needs: 'files:read', request: async () => ({ method: 'GET', path: '/files' }) },
  { route: 'GET /files/:id', needs: 'files:read', request: async (f) => ({ method: 'GET', path: `/files/${f.fileId}` }) },
  { route: 'GET /files/:id/content', needs: 'files:read', request: async (f) => ({ method: 'GET', path: `/files/${f.fileId}/content` }) },
  { route: 'GET /files/:id/thumbnail', needs: 'files:read', request: async (f) => ({ method: 'GET', path: `/files/${f.fileId}/thumbnail` }) },
  {
    route: 'POST /files/:id/signed-url',
    needs: 'files:read',
    request: async (f) => ({ method: 'POST', path: `/files/${f.fileId}/signed-url`, json: { expires_in: 600 } }),
  },
  { route: 'GET /files/:id/shares', needs: 'files:read', request: async (f) => ({ method: 'GET', path: `/files/${f.fileId}/shares` }) },
  {
    route: 'POST /files',
    needs: 'files:write',
    request: async () => ({ method: 'POST', path: '/files', headers: { 'content-type': 'text/plain' }, body: 'scoped upload' }),
  },
  { route: 'POST /files/resumable', needs: 'files:write', request: async () => ({ method: 'POST', path: '/files/resumable', headers: TUS_CREATION }) },
  { route: 'POST /files/upload-url', needs: 'files:write', request: async () => ({ method: 'POST', path: '/files/upload-url', json: { expires_in: 600 } }) },
  {
    route: 'PATCH /files/resumable/:upload_id',
    needs: 'files:write',
    request: async (f) => ({
      method: 'PATCH',
      path: `/files/resumable/${await f.freshUpload()}`,
      headers: { 'tus-resumable': '1.0.0', 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' },
      body: 'abcd',
    }),
  },
  {
    route: 'GET /files/resumable/:upload_id',
    needs: 'files:write',
    request: async (f) => ({ method: 'GET', path: `/files/resumable/${await f.freshUpload()}`, headers: { 'tus-resumable': '1.0.0' } }),
  },
  {
    route: 'DELETE /files/resumable/:upload_id',
    needs: 'files:write',
    request: async (f) => ({ method: 'DELETE', path: `/files/resumable/${await f.freshUpload()}`, headers: { 'tus-resumable': '1.0.0' } }),
  },
  { route: 'PATCH /files/:id', needs: 'files:write', request: async (f) => ({ method: 'PATCH', path: `/files/${f.fileId}`, json: { name: 'renamed.txt' } }) },
  { route: 'POST /files/:id/shares', needs: 'files:write', request: async (f) => ({ method: 'POST', path: `/files/${f.fileId}/shares`, json: {} }) },
  { route: 'DELETE /shares/:share_id', needs: 'files:write', request: async (f) => ({ method: 'DELETE', path: `/shares/${await f.freshShare()}` }) },
  { route: 'DELETE /files/:id', needs: 'files:delete', request: async (f) => ({ method: 'DELETE', path: `/files/${await f.freshFile()}` }) },
  {
    route: 'POST /files/bulk-delete',
    needs: 'files:delete',
    request: async (f) => ({ method: 'POST', path: '/files/bulk-delete', json: { ids: [await f.freshFile()] } }),
  },
  { route: 'GET /profile', needs: 'account:read', request: async () => ({ method: 'GET', path: '/profile' }) },
  { route: 'GET /usage', needs: 'account:read', request: async () => ({ method: 'GET', path: '/usage' }) },
  { route: 'GET /logs', needs: 'account:read', request: async () => ({ method: 'GET', path: '/logs' }) },
  { route: 'GET /settings', needs: 'account:read', request: async () => ({ method: 'GET', path: '/settings' }) },
  { route: 'POST /webhooks', needs: 'webhooks:manage', request: async () => ({ method: 'POST', path: '/webhooks', json: HOOK }) },
  { route: 'GET /webhooks', needs: 'webhooks:manage', request: async () => ({ method: 'GET', path: '/webhooks' }) },
  { route: 'GET /webhooks/:id', needs: 'webhooks:manage', request: async (f) => ({ method: 'GET', path: `/webhooks/${f.webhookId}` }) },
  {
    route: 'PATCH /webhooks/:id',
    needs: 'webhooks:manage',
    request: async (f) => ({ method: 'PATCH', path: `/webhooks/${f.webhookId}`, json: { description: 'renamed' } }),
  },
  { route: 'DELETE /webhooks/:id', needs: 'webhooks:manage', request: async (f) => ({ method: 'DELETE', path: `/webhooks/${await f.freshWebhook()}` }) },
  {
    route: 'POST /webhooks/:id/rotate-secret',
    needs: 'webhooks:manage',
    request: async (f) => ({ method: 'POST', path: `/webhooks/${f.webhookId}/rotate-secret` }),
  },
  { route: 'POST /webhooks/:id/test', needs: 'webhooks:manage', request: async (f) => ({ method: 'POST', path: `/webhooks/${f.webhookId}/test` }) },
  { route: 'GET /webhooks/:id/deliveries', needs: 'webhooks:manage', request: async (f) => ({ method: 'GET', path: `/webhooks/${f.webhookId}/deliveries` }) },
  {
    route: 'POST /webhooks/:id/deliveries/:delivery_id/retry',
    needs: 'webhooks:manage',
    request: async (f) => ({ method: 'POST', path: `/webhooks/${f.webhookId}/deliveries/${f.deliveryId}/retry` }),
  },
  { route: 'PATCH /settings', needs: EVERY_SCOPE, request: async () => ({ method: 'PATCH', path: '/settings', json: { max_upload_size_bytes: null } }) },
  { route: 'POST /settings/rotate-signing-key', needs: EVERY_SCOPE, request: async () => ({ method: 'POST', path: '/settings/rotate-signing-key' }) },
];

/** Routes that take a session token only, whatever the key's scopes. */
const SESSION_ONLY = ['POST /auth/api-keys', 'GET /auth/api-keys', 'DELETE /auth/api-keys/:id', 'POST /auth/logout'];

describe('HTTP: API key scopes', function () {
  this.timeout(120_000);
  let server: TestServer;
  let token: string;
  let fixtures: Fixtures;
  /** A key per scope, and one with every scope. */
  const keys = new Map<Scope | typeof EVERY_SCOPE, string>();

  async function createKey(json: unknown): ReturnType<typeof call> {
    return call(server.api, '/auth/api-keys', { method: 'POST', token, json });
  }

  before(async () => {
    server = await startTestServer({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_ALLOW_HTTP: 'true' });
    token = (await signUp(server, 'scopes@example.com')).accessToken;
    for (const scope of SCOPES) keys.set(scope, (await createKey({ name: scope, scopes: [scope] })).body.key);
    keys.set(EVERY_SCOPE, (await createKey({ name: 'full' })).body.key);
    const freshFile = async () => {
      const uploaded = await call(server.api, '/files', { method: 'POST', token, headers: { 'content-type': 'text/plain' }, body: 'fixture' });
      expect(uploaded.status).to.equal(201);
      return uploaded.body.file.file_id as string;
    };
    const image = await call(server.api, '/files', {
      method: 'POST',
      token,
      headers: { 'content-type': 'image/png' },
      body: new Uint8Array(await solidPng(8, 8)),
    });
    expect(image.status).to.equal(201);
    const fileId = image.body.file.file_id as string;
    const freshWebhook = async () => {
      const created = await call(server.api, '/webhooks', { method: 'POST', token, json: HOOK });
      expect(created.status).to.equal(201);
      return created.body.webhook.id as string;
    };
    const webhookId = await freshWebhook();
    const deliveryId = (await call(server.api, `/webhooks/${webhookId}/test`, { method: 'POST', token })).body.delivery_id as string;
    fixtures = {
      fileId,
      webhookId,
      deliveryId,
      freshWebhook,
      freshFile,
      freshShare: async () => {
        const share = await call(server.api, `/files/${fileId}/shares`, { method: 'POST', token, json: {} });
        expect(share.status).to.equal(201);
        return share.body.share_id as string;
      },
      freshUpload: async () => {
        const created = await call(server.api, '/files/resumable', { method: 'POST', token, headers: TUS_CREATION });
        expect(created.status).to.equal(201);
        return created.headers.get('location')!.split('/').pop()!;
      },
    };
  });
  after(async () => {
    await server.stop();
    expect(server.internalErrors).to.deep.equal([]);
  });

  it('covers every operation the OpenAPI document offers to API keys, with the scopes it lists', async () => {
    const document = (await call(server.api, '/reference/openapi.json')).body;
    const offered: Record<string, string[]> = {};
    for (const [path, operations] of Object.entries(document.paths as Record<string, Record<string, any>>)) {
      for (const [method, operation] of Object.entries(operations)) {
        if (method === 'head' || method === 'parameters') continue;
        const apiKey = (operation.security ?? []).find((s: Record<string, unknown>) => 'bearerApiKey' in s);
        // The /admin routes need the admin scope and an administrator: test/http/admin.test.ts covers them.
        if (apiKey && !apiKey.bearerApiKey.includes('admin')) offered[`${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`] = apiKey.bearerApiKey;
      }
    }
    const expected = Object.fromEntries(TABLE.map((row) => [row.route, row.needs === EVERY_SCOPE ? [...SCOPES] : [row.needs]]));
    expect(offered).to.deep.equal(expected);
  });

  for (const row of TABLE) {
    describe(row.route, () => {
      for (const holder of [...SCOPES, EVERY_SCOPE] as const) {
        const allowed = holder === EVERY_SCOPE || holder === row.needs;
        it(`${allowed ? 'serves' : 'refuses with 403 INSUFFICIENT_SCOPE'} a key with ${holder === EVERY_SCOPE ? 'every scope' : `only ${holder}`}`, async () => {
          const request = await row.request(fixtures);
          const result = await call(server.api, request.path, {
            method: request.method,
            apiKey: keys.get(holder),
            json: request.json,
            headers: request.headers,
            body: request.body,
          });
          if (allowed) {
            expect(result.status, JSON.stringify(result.body)).to.be.within(200, 299);
          } else {
            expectError(result, 403, 'INSUFFICIENT_SCOPE');
            const needed = row.needs === EVERY_SCOPE ? SCOPES.filter((scope) => scope !== holder) : [row.needs];
            expect(result.body.details.missing_scopes).to.deep.equal(needed);
            for (const scope of needed) expect(result.body.message).to.include(scope);
          }
        });
      }
      it('serves a session token', async () => {
        const request = await row.request(fixtures);
        const result = await call(server.api, request.path, {
          method: request.method,
          token,
          json: request.json,
          headers: request.headers,
          body: request.body,
        });
        expect(result.status, JSON.stringify(result.body)).to.be.within(200, 299);
      });
    });
  }

  it('refuses a refused request without doing it: a files:read key cannot delete, the file stays', async () => {
    const victim = await fixtures.freshFile();
    expectError(await call(server.api, `/files/${victim}`, { method: 'DELETE', apiKey: keys.get('files:read') }), 403, 'INSUFFICIENT_SCOPE');
    expect((await call(server.api, `/files/${victim}`, { token })).status).to.equal(200);
  });

  it('keeps key management and logout to session tokens, whatever the key holds', async () => {
    const listed = await call(server.api, '/auth/api-keys', { token });
    const id = listed.body.api_keys[0].id;
    for (const route of SESSION_ONLY) {
      const [method, path] = route.split(' ');
      const result = await call(server.api, path.replace(':id', id), { method, apiKey: keys.get(EVERY_SCOPE), json: method === 'POST' ? {} : undefined });
      expectError(result, 403, 'JWT_REQUIRED');
    }
  });

  it('creates a key with every scope and no expiry by default, and shows scopes and expiry when created and listed', async () => {
    const full = await createKey({ name: 'default' });
    expect(full.status).to.equal(201);
    expect(full.body).to.deep.include({ scopes: [...SCOPES], expires_at: null, expired: false });
    const expiresAt = new Date(Date.now() + 7 * 24 * 3600_000).toISOString();
    const limited = await createKey({ name: 'limited', scopes: ['account:read', 'files:read'], expires_at: expiresAt });
    expect(limited.status).to.equal(201);
    expect(limited.body).to.deep.include({ scopes: ['files:read', 'account:read'], expires_at: expiresAt, expired: false });
    const listed = (await call(server.api, '/auth/api-keys', { token })).body.api_keys.find((k: any) => k.id === limited.body.id);
    expect(listed).to.deep.include({ scopes: ['files:read', 'account:read'], expires_at: expiresAt, expired: false });
  });

  it('refuses unknown scopes, an empty list, and a past, too distant or malformed expiry with 400, creating nothing', async () => {
    const before = (await call(server.api, '/auth/api-keys', { token })).body.total;
    for (const json of [
      { scopes: ['files:admin'] },
      { scopes: [] },
      { expires_at: '2020-01-01T00:00:00Z' },
      { expires_at: new Date(Date.now() + 400 * 24 * 3600_000).toISOString() },
      { expires_at: 'next tuesday' },
    ]) {
      expectError(await createKey(json), 400, 'VALIDATION_FAILED');
    }
    expect((await call(server.api, '/auth/api-keys', { token })).body.total).to.equal(before);
  });
});

describe('HTTP: expired API keys', function () {
  this.timeout(60_000);
  let server: TestServer;
  let token: string;
  const clock = { now: () => new Date(now) };
  let now = Date.now();
  before(async () => {
    server = await startTestServer({}, {}, { clock });
    token = (await signUp(server, 'expiry@example.com')).accessToken;
  });
  after(async () => {
    await server.stop();
    expect(server.internalErrors).to.deep.equal([]);
  });

  it('answers 401 API_KEY_EXPIRED from expires_at on, on every route, and lists the key as expired', async () => {
    const expiresAt = new Date(now + 60_000);
    const created = await call(server.api, '/auth/api-keys', { method: 'POST', token, json: { name: 'short', expires_at: expiresAt.toISOString() } });
    expect(created.status).to.equal(201);
    expect((await call(server.api, '/files', { apiKey: created.body.key })).status).to.equal(200);
    now = expiresAt.getTime();
    expectError(await call(server.api, '/files', { apiKey: created.body.key }), 401, 'API_KEY_EXPIRED');
    expectError(await call(server.api, '/profile', { headers: { authorization: `Bearer ${created.body.key}` } }), 401, 'API_KEY_EXPIRED');
    const listed = (await call(server.api, '/auth/api-keys', { token })).body.api_keys.find((k: any) => k.id === created.body.id);
    expect(listed).to.deep.include({ expires_at: expiresAt.toISOString(), expired: true });
  });
});
