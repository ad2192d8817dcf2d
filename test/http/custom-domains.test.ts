import { expect } from 'chai';
import http from 'node:http';
import { makePng } from '../support/bytes.js';
import { call, expectError, signUpWithKey, startTestServer, type TestServer, upload } from '../support/http-harness.js';
import { checkResponse } from '../support/openapi-check.js';

/** GET on the content server with a chosen Host header (fetch may not override Host). */
function getWithHost(base: string, path: string, host: string): Promise<{ status: number; body: Buffer }> {
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    const request = http.get({ hostname: url.hostname, port: url.port, path: url.pathname, headers: { host } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const body = Buffer.concat(chunks);
        const type = response.headers['content-type'] ?? null;
        checkResponse(base, 'GET', path, response.statusCode!, type, type?.startsWith('application/json') ? JSON.parse(body.toString()) : undefined);
        resolve({ status: response.statusCode!, body });
      });
    });
    request.on('error', reject);
  });
}

describe('HTTP: custom domains (mock edge provider)', function () {
  this.timeout(30_000);
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => {
    await server.stop();
    expect(server.internalErrors).to.deep.equal([]);
  });

  it('sets a hostname, shows the DNS records, refreshes to active, and from then on serves files at https://<hostname>', async () => {
    const { apiKey } = await signUpWithKey(server, 'domain-owner@example.com');
    const before = (await upload(server, apiKey, makePng(), { name: 'before.png' })).body.file;

    const set = await call(server.api, '/settings', { method: 'PATCH', apiKey, json: { custom_domain: 'Files.Example.com' } });
    expect(set.status).to.equal(200);
    expect(set.body.public_url_base).to.equal('http://cdn.hangar.test');
    const domain = set.body.custom_domain;
    expect(domain).to.include({ hostname: 'files.example.com', verification_status: 'pending', ssl_status: 'initializing' });
    expect(domain.dns_records[0]).to.deep.equal({ type: 'CNAME', name: 'files.example.com', value: 'cdn.hangar.test', purpose: 'routing' });
    expect(domain.dns_records.some((r: any) => r.type === 'TXT' && r.purpose === 'ownership')).to.equal(true);
    expect(domain.updated_at).to.match(/Z$/);
    expect((await getWithHost(server.content, `/m/${before.file_id}`, 'files.example.com')).status).to.equal(404);

    const refreshed = await call(server.api, '/settings', { method: 'PATCH', apiKey, json: { refresh_custom_domain: true } });
    expect(refreshed.body.custom_domain).to.include({ verification_status: 'active', ssl_status: 'active' });
    expect(refreshed.body.public_url_base).to.equal('https://files.example.com');
    expect((await call(server.api, '/settings', { apiKey })).body.public_url_base).to.equal('https://files.example.com');

    const after = (await upload(server, apiKey, makePng(), { name: 'after.png' })).body.file;
    expect(after.public_url).to.equal(`https://files.example.com/m/${after.file_id}`);
    expect(after.public_download_url).to.equal(`https://files.example.com/d/${after.file_id}`);
    expect(after.default_url).to.equal(`http://cdn.hangar.test/m/${after.file_id}`);
    expect((await call(server.api, `/files/${before.file_id}`, { apiKey })).body.public_url).to.equal(`https://files.example.com/m/${before.file_id}`);

    const served = await getWithHost(server.content, `/m/${after.file_id}`, 'files.example.com');
    expect(served.status).to.equal(200);
    expect(served.body.equals(Buffer.from(makePng()))).to.equal(true);
    expect((await getWithHost(server.content, `/d/${before.file_id}`, 'files.example.com:443')).status).to.equal(200);

    const stranger = await signUpWithKey(server, 'stranger@example.com');
    const theirs = (await upload(server, stranger.apiKey, makePng())).body.file;
    expect((await getWithHost(server.content, `/m/${theirs.file_id}`, 'files.example.com')).status).to.equal(404);
    expect((await getWithHost(server.content, `/m/${theirs.file_id}`, 'cdn.hangar.test')).status).to.equal(200);
    expect((await getWithHost(server.content, `/m/${theirs.file_id}`, 'unregistered.example.net')).status).to.equal(404);

    const removed = await call(server.api, '/settings', { method: 'PATCH', apiKey, json: { custom_domain: null } });
    expect(removed.body).to.include({ custom_domain: null, public_url_base: 'http://cdn.hangar.test' });
    expect((await call(server.api, `/files/${after.file_id}`, { apiKey })).body.public_url).to.equal(`http://cdn.hangar.test/m/${after.file_id}`);
    expect((await getWithHost(server.content, `/m/${after.file_id}`, 'files.example.com')).status).to.equal(404);
  });

  it('refuses invalid hostnames (also longer than 253 characters) with 400 INVALID_HOSTNAME and changes nothing', async () => {
    const { apiKey } = await signUpWithKey(server, 'invalid-host@example.com');
    for (const hostname of [
      'http://files.example.com',
      'files.example.com:8080',
      'localhost',
      '10.0.0.1',
      '*.example.com',
      'files_example.com',
      '-bad.example.com',
      'cdn.hangar.test',
      'api.hangar.test',
      'a'.repeat(64) + '.com',
      `${'abcdefghi.'.repeat(30)}com`,
      'x'.repeat(5000),
    ]) {
      expectError(await call(server.api, '/settings', { method: 'PATCH', apiKey, json: { custom_domain: hostname } }), 400, 'INVALID_HOSTNAME');
    }
    expect((await call(server.api, '/settings', { apiKey })).body.custom_domain).to.equal(null);
    expectError(await call(server.api, '/settings', { method: 'PATCH', apiKey, json: { refresh_custom_domain: true } }), 400, 'NO_CUSTOM_DOMAIN');
  });

  it('answers 409 HOSTNAME_TAKEN when another account holds the hostname', async () => {
    const first = await signUpWithKey(server, 'first-host@example.com');
    const second = await signUpWithKey(server, 'second-host@example.com');
    expect((await call(server.api, '/settings', { method: 'PATCH', apiKey: first.apiKey, json: { custom_domain: 'shared.example.org' } })).status).to.equal(
      200,
    );
    expectError(
      await call(server.api, '/settings', { method: 'PATCH', apiKey: second.apiKey, json: { custom_domain: 'shared.example.org' } }),
      409,
      'HOSTNAME_TAKEN',
    );
    expect((await call(server.api, '/settings', { apiKey: second.apiKey })).body.custom_domain).to.equal(null);
  });

  it('lets exactly one of two accounts racing for one hostname win', async () => {
    const a = await signUpWithKey(server, 'race-a@example.com');
    const b = await signUpWithKey(server, 'race-b@example.com');
    const results = await Promise.all(
      [a, b].map((account) => call(server.api, '/settings', { method: 'PATCH', apiKey: account.apiKey, json: { custom_domain: 'race.example.net' } })),
    );
    expect(results.map((r) => r.status).sort()).to.deep.equal([200, 409]);
  });

  it('answers 502 EDGE_PROVIDER_ERROR when the provider fails, and keeps the previous domain', async () => {
    const { apiKey } = await signUpWithKey(server, 'outage@example.com');
    await call(server.api, '/settings', { method: 'PATCH', apiKey, json: { custom_domain: 'keep.example.com' } });
    expectError(
      await call(server.api, '/settings', { method: 'PATCH', apiKey, json: { custom_domain: 'edge-error.example.com', max_upload_size_bytes: 1234 } }),
      502,
      'EDGE_PROVIDER_ERROR',
    );
    const settings = (await call(server.api, '/settings', { apiKey })).body;
    expect(settings.custom_domain.hostname).to.equal('keep.example.com');
    expect(settings.max_upload_size_bytes).to.not.equal(1234);
  });

  it('moves to a new hostname, releasing the old one for others', async () => {
    const mover = await signUpWithKey(server, 'mover@example.com');
    const other = await signUpWithKey(server, 'after-mover@example.com');
    await call(server.api, '/settings', { method: 'PATCH', apiKey: mover.apiKey, json: { custom_domain: 'old.example.com' } });
    const moved = await call(server.api, '/settings', { method: 'PATCH', apiKey: mover.apiKey, json: { custom_domain: 'new.example.com' } });
    expect(moved.body.custom_domain.hostname).to.equal('new.example.com');
    expect((await call(server.api, '/settings', { method: 'PATCH', apiKey: other.apiKey, json: { custom_domain: 'old.example.com' } })).status).to.equal(200);
  });

  it('asks for an A record, not a CNAME, when the configured target is an IP address', async () => {
    const byIp = await startTestServer({ CUSTOM_DOMAIN_CNAME_TARGET: '203.0.113.7' });
    try {
      const { apiKey } = await signUpWithKey(byIp, 'ip-target@example.com');
      const set = await call(byIp.api, '/settings', { method: 'PATCH', apiKey, json: { custom_domain: 'files.example.org' } });
      expect(set.status).to.equal(200);
      expect(set.body.custom_domain.dns_records[0]).to.deep.equal({ type: 'A', name: 'files.example.org', value: '203.0.113.7', purpose: 'routing' });
      expect(set.body.custom_domain.dns_records.filter((r: { type: string }) => r.type === 'CNAME')).to.deep.equal([]);
    } finally {
      await byIp.stop();
    }
  });
});
