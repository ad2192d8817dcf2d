import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { call } from '../support/http-harness.js';
import { type ServerProcess, startServerProcesses } from '../support/server-process.js';
import { createTestSchema, type TestSchema, testDatabaseUrl } from '../support/test-database.js';

const url = testDatabaseUrl();

// With Postgres the counters live in the database (table rate_limits), so a client cannot
// multiply its allowance by spreading attempts over the processes behind a load balancer.
(url === undefined ? describe.skip : describe)('Security: rate limits across two server processes on one Postgres (TEST_DATABASE_URL)', function () {
  this.timeout(60_000);
  let shared: string;
  let schema: TestSchema;
  let servers: ServerProcess[] = [];
  before(async () => {
    shared = await mkdtemp(path.join(tmpdir(), 'hangar-limits-pg-'));
    schema = await createTestSchema(url!);
    const env = (name: string) => ({
      HOST: '127.0.0.1',
      PORT: '0',
      CONTENT_PORT: '0',
      DATA_DIR: path.join(shared, name),
      DATABASE_URL: schema.url,
      BLOB_STORE_URL: `file:${path.join(shared, 'blobs')}`,
      JWT_SECRET: 'a shared secret of at least thirty-two bytes',
      PASSWORD_HASH_MEMORY_KIB: '1024',
      RATE_LIMIT_LOGIN_FREE_FAILURES: '2',
      RATE_LIMIT_LOGIN_CLIENT_FREE_FAILURES: '2',
      RATE_LIMIT_REGISTER_PER_HOUR: '3',
    });
    servers = await startServerProcesses([env('a'), env('b')]);
  });
  after(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await schema?.drop();
    if (shared) await rm(shared, { recursive: true, force: true });
  });

  it('counts failed logins made on either process together', async () => {
    const [a, b] = servers;
    const statuses: number[] = [];
    for (const server of [a, b, a, b])
      statuses.push((await call(server.api, '/auth/login', { method: 'POST', json: { email: 'target@example.com', password: 'guess' } })).status);
    expect(statuses).to.deep.equal([401, 401, 429, 429]);
  });

  it('counts unknown API keys sent to either process together', async () => {
    const [a, b] = servers;
    const statuses: number[] = [];
    for (const [n, server] of [a, b, a, b].entries())
      statuses.push((await call(server.api, '/files', { apiKey: `hgr_${String(n).padStart(32, '7')}` })).status);
    expect(statuses).to.deep.equal([401, 401, 429, 429]);
  });

  it('counts registrations made on either process together', async () => {
    const [a, b] = servers;
    const statuses: number[] = [];
    for (const [i, server] of [a, b, a, b].entries())
      statuses.push((await call(server.api, '/auth/register', { method: 'POST', json: { email: `r${i}@example.com`, password: 'secret1' } })).status);
    expect(statuses).to.deep.equal([201, 201, 201, 429]);
  });
});
