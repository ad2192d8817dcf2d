import { expect } from 'chai';
import { connect } from 'node:net';
import { once } from 'node:events';
import { makePng } from '../support/bytes.js';
import { call, mailedToken, signUpWithKey, startTestServer, type TestServer } from '../support/http-harness.js';

/** The JSON lines written so far, parsed (every line must be one JSON object). */
function entries(lines: string[]): Record<string, any>[] {
  return lines.map((line) => {
    expect(line.endsWith('\n'), line).to.equal(true);
    return JSON.parse(line) as Record<string, any>;
  });
}

async function until(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('HTTP: the log (pino JSON lines)', () => {
  let server: TestServer;
  const lines: string[] = [];
  before(async () => {
    server = await startTestServer({}, {}, { logLines: lines });
  });
  after(() => server.stop());

  it('writes one line per request with time, level, request id, method, route template, status, duration, bytes and account, and never a credential', async () => {
    const email = 'logs@example.com';
    const password = 'correct horse battery';
    expect((await call(server.api, '/auth/register', { method: 'POST', json: { email, password } })).status).to.equal(201);
    const confirmToken = await mailedToken(server, email, '/auth/confirm');
    expect((await call(server.api, `/auth/confirm?token=${confirmToken}`, { headers: { 'x-request-id': 'log-confirm' } })).status).to.equal(302);
    const login = await call(server.api, '/auth/login', { method: 'POST', json: { email, password }, headers: { 'x-request-id': 'log-login' } });
    const { access_token: accessToken, refresh_token: refreshToken } = login.body.session;
    const userId = login.body.user.id;
    const key = await call(server.api, '/auth/api-keys', { method: 'POST', token: accessToken, json: { name: 'logs' } });
    const apiKey = key.body.key as string;
    const png = makePng(32, 32);
    const uploaded = await call(server.api, '/files', {
      method: 'POST',
      apiKey,
      headers: { 'content-type': 'image/png', 'x-request-id': 'log-upload' },
      body: png,
    });
    expect(uploaded.status).to.equal(201);
    const fileId = uploaded.body.file.file_id as string;
    expect((await call(server.api, `/files/${fileId}`, { token: accessToken, headers: { 'x-request-id': 'log-get' } })).status).to.equal(200);
    const signature = 'c2lnbmF0dXJlLXRoYXQtbXVzdC1ub3QtbGVhaw';
    const viewed = await fetch(`${server.content}/m/${fileId}?expires=9999999999&sig=${signature}`, { headers: { 'x-request-id': 'log-view' } });
    const served = new Uint8Array(await viewed.arrayBuffer());
    expect(viewed.status).to.equal(200);
    expect(
      (await call(server.api, '/auth/login', { method: 'POST', json: { email, password: 'wrong password' }, headers: { 'x-request-id': 'log-refused' } }))
        .status,
    ).to.equal(401);
    await until(() => entries(lines).some((entry) => entry.request_id === 'log-refused'));

    const all = entries(lines);
    for (const entry of all) {
      expect(entry.time, JSON.stringify(entry)).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(entry.level).to.be.oneOf(['debug', 'info', 'warn', 'error']);
      expect(entry.event).to.be.a('string');
    }
    const request = (id: string) => {
      const found = all.filter((entry) => entry.event === 'request' && entry.request_id === id);
      expect(found, id).to.have.length(1);
      return found[0];
    };
    expect(request('log-upload')).to.deep.include({
      level: 'info',
      method: 'POST',
      route: '/files',
      status: 201,
      bytes_in: png.length,
      account_id: userId,
      credential: 'api_key',
    });
    expect(request('log-upload').duration_ms).to.be.a('number').and.at.least(0);
    expect(request('log-upload').bytes_out).to.be.above(200);
    expect(request('log-get')).to.deep.include({ method: 'GET', route: '/files/:id', status: 200, account_id: userId, credential: 'jwt' });
    expect(request('log-view')).to.deep.include({ method: 'GET', route: '/m/:id', status: 200, account_id: null, credential: null });
    expect(request('log-view').bytes_out).to.be.above(served.length);
    expect(request('log-confirm')).to.deep.include({ route: '/auth/confirm', status: 302 });
    expect(request('log-refused')).to.deep.include({ route: '/auth/login', status: 401, account_id: null });

    const text = lines.join('');
    for (const secret of [password, confirmToken, accessToken, refreshToken, apiKey, signature]) {
      expect(text.includes(secret), `the log holds a secret (${secret.slice(0, 12)}…)`).to.equal(false);
    }
  });

  it('logs a client that closes the connection mid-body as one info line without a stack, not as an error', async () => {
    const { apiKey } = await signUpWithKey(server, 'aborts@example.com');
    const from = lines.length;
    const { port } = new URL(server.api);
    for (const [pathname, headers] of [
      ['/auth/login', 'content-type: application/json\r\n'],
      ['/files', `content-type: image/png\r\nx-api-key: ${apiKey}\r\n`],
    ] as const) {
      const socket = connect(Number(port), '127.0.0.1');
      await once(socket, 'connect');
      socket.write(
        `POST ${pathname} HTTP/1.1\r\nhost: api.hangar.test\r\n${headers}content-length: ${pathname === '/files' ? 100_000 : 1000}\r\nx-request-id: abort-${pathname.slice(1).replace('/', '-')}\r\n\r\n`,
      );
      socket.write(pathname === '/files' ? makePng(64, 64) : '{"email":"a@example.com","password":"');
      await new Promise((resolve) => setTimeout(resolve, 150));
      socket.destroy();
    }
    await until(() => entries(lines.slice(from)).filter((entry) => entry.event === 'request').length >= 2);
    const written = entries(lines.slice(from));
    expect(
      written.filter((entry) => entry.level === 'error'),
      JSON.stringify(written),
    ).to.deep.equal([]);
    expect(lines.slice(from).join('')).not.to.include('"stack"');
    expect(server.internalErrors).to.deep.equal([]);
    const aborted = written.filter((entry) => entry.event === 'request_aborted');
    expect(
      aborted.map((entry) => [entry.level, entry.route]),
      JSON.stringify(written),
    ).to.deep.include(['info', '/files']);
  });
});
