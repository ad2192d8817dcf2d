import { expect } from 'chai';
import { readFile, mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { makePng, randomFileOf } from '../support/bytes.js';
import { call, expectError, mailedToken } from '../support/http-harness.js';
import { checkResponse } from '../support/openapi-check.js';
import { type ServerProcess, startServerProcess, until } from '../support/server-process.js';
import { httpTestDatabase } from '../support/test-database.js';

const PASSWORD = 'correct horse';

/** The worker processes of a supervisor (Linux: /proc/<pid>/task/<pid>/children). */
async function workersOf(server: ServerProcess): Promise<number[]> {
  const pid = server.child.pid!;
  const text = await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8');
  return text.trim() === '' ? [] : text.trim().split(/\s+/).map(Number);
}

/**
 * One request on a connection of its own (no keep-alive), so that consecutive requests are handed
 * to the workers in turn, as separate clients' would be.
 */
function callAlone(base: string, pathname: string, json?: unknown): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const body = json === undefined ? '' : JSON.stringify(json);
    const headers = json === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) };
    const request = http.request(base + pathname, { method: json === undefined ? 'GET' : 'POST', agent: false, headers }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode!, body: text ? JSON.parse(text) : undefined }));
    });
    request.on('error', reject);
    request.setTimeout(10_000, () => request.destroy(new Error(`${pathname}: no answer in 10 s`)));
    request.end(body);
  });
}

/** GET on the content server with a chosen Host header, on a connection of its own (see callAlone); the status. */
function getAloneWithHost(base: string, pathname: string, host: string): Promise<number> {
  const url = new URL(pathname, base);
  return new Promise((resolve, reject) => {
    const request = http.get({ hostname: url.hostname, port: url.port, path: url.pathname, agent: false, headers: { host } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const type = response.headers['content-type'] ?? null;
        const body = Buffer.concat(chunks);
        checkResponse(base, 'GET', pathname, response.statusCode!, type, type?.startsWith('application/json') ? JSON.parse(body.toString()) : undefined);
        resolve(response.statusCode!);
      });
    });
    request.on('error', reject);
  });
}

/** Polls `probe` every 20 ms until it answers true; fails after 1 s (the scale-out guarantee, docs/scale-out.md). */
async function withinOneSecond(what: string, probe: () => Promise<boolean>): Promise<void> {
  for (const deadline = Date.now() + 1_000; !(await probe());) {
    if (Date.now() > deadline) throw new Error(`${what}: not seen by every worker within 1 s`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** `npm start` with WORKERS=2: a supervisor and two worker processes on the same ports (apps/server/supervisor.ts). */
describe(`HTTP: WORKERS=2, one supervisor and two worker processes (${httpTestDatabase()})`, function () {
  this.timeout(90_000);
  let dataDir: string;
  let server: ServerProcess;

  before(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'hangar-workers-'));
    server = await startServerProcess({
      WORKERS: '2',
      HOST: '127.0.0.1',
      PORT: '0',
      CONTENT_PORT: '0',
      DATA_DIR: dataDir,
      PASSWORD_HASH_MEMORY_KIB: '1024',
      FILE_COUNT_LIMIT: '15',
      RATE_LIMIT_LOGIN_FREE_FAILURES: '2',
      RATE_LIMIT_REGISTER_PER_HOUR: '100',
      SLOW_BODY_AFTER_SECONDS: '1',
      SLOW_BODIES_PER_CLIENT: '2',
    });
  });
  after(async () => {
    if (server && server.child.exitCode === null) await server.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('starts two workers and prints its addresses once', async () => {
    expect(await workersOf(server)).to.have.length(2);
    expect(server.output().match(/hangar: API on /g)).to.have.length(1);
    expect(server.output()).to.include('hangar: 2 worker processes (WORKERS)');
  });

  it('serves a custom hostname through every worker within 1 s of its activation, and none within 1 s of its removal', async () => {
    const email = 'domain-workers@example.com';
    await call(server.api, '/auth/register', { method: 'POST', json: { email, password: PASSWORD } });
    await call(server.api, `/auth/confirm?token=${await mailedToken({ dataDir }, email, '/auth/confirm')}`);
    const login = await call(server.api, '/auth/login', { method: 'POST', json: { email, password: PASSWORD } });
    const apiKey = (await call(server.api, '/auth/api-keys', { method: 'POST', token: login.body.session.access_token, json: {} })).body.key as string;
    const uploaded = await call(server.api, '/files', { method: 'POST', apiKey, headers: { 'content-type': 'image/png' }, body: makePng() });
    const view = `/m/${uploaded.body.file.file_id}`;
    // Four answers, each on its own connection: the supervisor hands them to both workers in turn.
    const statuses = async () => Promise.all([0, 1, 2, 3].map(() => getAloneWithHost(server.content, view, 'workers.example.com')));
    const allAre = (status: number) => async () => (await statuses()).every((answer) => answer === status);
    expect(await statuses()).to.deep.equal([404, 404, 404, 404]); // both workers now hold "unknown"
    await call(server.api, '/settings', { method: 'PATCH', apiKey, json: { custom_domain: 'workers.example.com' } });
    expect(
      (await call(server.api, '/settings', { method: 'PATCH', apiKey, json: { refresh_custom_domain: true } })).body.custom_domain.verification_status,
    ).to.equal('active');
    await withinOneSecond('the activated hostname', allAre(200));
    await call(server.api, '/settings', { method: 'PATCH', apiKey, json: { custom_domain: null } });
    await withinOneSecond('the removed hostname', allAre(404));
  });

  it('counts failed logins made through either worker together', async () => {
    // Each attempt on its own connection: the supervisor hands connections to the workers in turn,
    // so with counters per worker each would allow two free failures (four in all).
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await callAlone(server.api, '/auth/login', { email: 'target@example.com', password: 'guess' })).status);
    expect(statuses).to.deep.equal([401, 401, 429, 429]);
  });

  it('lets exactly 10 of 20 simultaneous uploads through when 10 files are left', async () => {
    const email = 'quota@example.com';
    expect((await call(server.api, '/auth/register', { method: 'POST', json: { email, password: PASSWORD } })).status).to.equal(201);
    const token = await mailedToken({ dataDir }, email, '/auth/confirm');
    expect((await call(server.api, `/auth/confirm?token=${token}`)).status).to.equal(302);
    const login = await call(server.api, '/auth/login', { method: 'POST', json: { email, password: PASSWORD } });
    const apiKey = (await call(server.api, '/auth/api-keys', { method: 'POST', token: login.body.session.access_token, json: {} })).body.key;
    const post = (seed: number) =>
      call(server.api, '/files', { method: 'POST', apiKey, headers: { 'content-type': 'image/png' }, body: randomFileOf(100, 'image/png', seed) });
    for (let i = 0; i < 5; i++) expect((await post(1000 + i)).status).to.equal(201);
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => post(i + 1)));
    expect(
      results.filter((r) => r.status === 201),
      JSON.stringify(results.map((r) => r.status)),
    ).to.have.length(10);
    results.filter((r) => r.status !== 201).forEach((r) => expectError(r, 403, 'FILE_COUNT_LIMIT_REACHED'));
    expect((await call(server.api, '/files?limit=100', { apiKey })).body.total).to.equal(15);
  });

  it('counts tus creations of one account through four API keys and both workers against one upload budget (the probe’s reproduction)', async () => {
    const email = 'four-keys@example.com';
    expect((await call(server.api, '/auth/register', { method: 'POST', json: { email, password: PASSWORD } })).status).to.equal(201);
    expect((await call(server.api, `/auth/confirm?token=${await mailedToken({ dataDir }, email, '/auth/confirm')}`)).status).to.equal(302);
    const token = (await call(server.api, '/auth/login', { method: 'POST', json: { email, password: PASSWORD } })).body.session.access_token;
    const keys: string[] = [];
    for (let i = 0; i < 4; i++) keys.push((await call(server.api, '/auth/api-keys', { method: 'POST', token, json: { name: `k${i}` } })).body.key);
    // Each creation on its own connection, so the supervisor hands them to both workers in turn.
    const create = (apiKey: string) =>
      new Promise<number>((resolve, reject) => {
        const headers = {
          'x-api-key': apiKey,
          'tus-resumable': '1.0.0',
          'upload-length': '10',
          'upload-metadata': `filetype ${Buffer.from('image/png').toString('base64')}`,
        };
        const request = http.request(`${server.api}/files/resumable`, { method: 'POST', agent: false, headers }, (response) => {
          response.resume();
          response.on('end', () => resolve(response.statusCode!));
        });
        request.on('error', reject);
        request.end();
      });
    const statuses: number[] = [];
    for (let round = 0; round < 7; round++) statuses.push(...(await Promise.all(Array.from({ length: 20 }, (_, i) => create(keys[i % 4])))));
    // RATE_LIMIT_UPLOADS_PER_MINUTE (120) for the account in all: past the plan's 15 files the creations are refused by the quota (403), but counted.
    expect(
      statuses.filter((status) => status !== 429),
      JSON.stringify(statuses),
    ).to.have.length(120);
    expect(statuses.filter((status) => status === 201)).to.have.length(15);
  });

  it('lets exactly API_KEYS_PER_ACCOUNT (50) of 60 simultaneous key creations through both workers', async () => {
    const email = 'many-keys@example.com';
    expect((await call(server.api, '/auth/register', { method: 'POST', json: { email, password: PASSWORD } })).status).to.equal(201);
    expect((await call(server.api, `/auth/confirm?token=${await mailedToken({ dataDir }, email, '/auth/confirm')}`)).status).to.equal(302);
    const token = (await call(server.api, '/auth/login', { method: 'POST', json: { email, password: PASSWORD } })).body.session.access_token;
    const create = () =>
      new Promise<number>((resolve, reject) => {
        const body = JSON.stringify({ name: 'many' });
        const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) };
        const request = http.request(`${server.api}/auth/api-keys`, { method: 'POST', agent: false, headers }, (response) => {
          response.resume();
          response.on('end', () => resolve(response.statusCode!));
        });
        request.on('error', reject);
        request.end(body);
      });
    const statuses = await Promise.all(Array.from({ length: 60 }, () => create()));
    expect(
      statuses.filter((status) => status === 201),
      JSON.stringify(statuses),
    ).to.have.length(50);
    expect(statuses.filter((status) => status !== 201)).to.deep.equal(Array(10).fill(403));
    expect((await call(server.api, '/auth/api-keys?limit=100', { token })).body.total).to.equal(50);
  });

  it('counts slow bodies of one client address on both workers together (SLOW_BODIES_PER_CLIENT)', async () => {
    // A login body of 60 bytes sent a byte every 50 ms, each on its own connection (the supervisor
    // hands connections to the workers in turn: the first two land on different workers).
    const slowLogin = () =>
      new Promise<number>((resolve, reject) => {
        const body = Buffer.from(JSON.stringify({ email: 'slow-workers@example.com', password: 'wrong password' }).padEnd(60, ' '));
        const request = http.request(
          `${server.api}/auth/login`,
          { method: 'POST', agent: false, headers: { 'content-type': 'application/json', 'content-length': body.length } },
          (response) => {
            response.resume();
            response.on('end', () => {
              clearInterval(timer);
              resolve(response.statusCode!);
            });
          },
        );
        request.on('error', (error) => {
          clearInterval(timer);
          reject(error);
        });
        let sent = 0;
        const timer = setInterval(() => {
          if (sent < body.length) request.write(body.subarray(sent, ++sent));
          if (sent === body.length) {
            clearInterval(timer);
            request.end();
          }
        }, 50);
      });
    const first = slowLogin();
    const second = slowLogin();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    // With a count per worker, the third would find a place on the worker that holds one.
    expect(await slowLogin()).to.equal(429);
    expect(await Promise.all([first, second])).to.deep.equal([401, 401]);
  });

  it('replaces a worker that dies, and keeps answering meanwhile', async () => {
    const [victim, survivor] = await workersOf(server);
    process.kill(victim, 'SIGKILL');
    // Once the supervisor has seen it die, new connections go to the survivor (the victim's own
    // connections died with it, and one handed to it in the instant before is lost too).
    await until(async () => server.output().includes('"event":"worker_exited"'));
    for (let i = 0; i < 5; i++) expect((await callAlone(server.api, '/reference/allowed-content-types')).status).to.equal(200);
    await until(async () => {
      const workers = await workersOf(server);
      return workers.length === 2 && !workers.includes(victim) && workers.includes(survivor);
    });
    await until(async () => server.output().includes('"event":"worker_restarted"'));
    expect(server.output()).to.match(/"event":"worker_exited","worker":\d,"worker_pid":\d+,"code":null,"signal":"SIGKILL","action":"restart"/);
    for (let i = 0; i < 4; i++)
      expect((await callAlone(server.api, '/auth/login', { email: 'nobody@example.com', password: 'x' })).status).to.be.oneOf([401, 429]);
  });

  it('on SIGTERM stops every worker and exits 0', async () => {
    const workers = await workersOf(server);
    const code = await server.stop();
    expect(code, server.output()).to.equal(0);
    for (const pid of workers) expect(() => process.kill(pid, 0), `worker ${pid} still runs`).to.throw();
    expect(server.output()).to.include('hangar: stopped');
  });
});
