import { expect } from 'chai';
import { CloudflareEdgeProvider, type CloudflareEdgeProviderOptions } from '../../adapters/edge/cloudflare-edge-provider.js';
import { MockEdgeProvider } from '../../adapters/edge/mock-edge-provider.js';
import { FakeCloudflare } from '../support/fake-cloudflare.js';
import { describeEdgeProviderContract, expectDomainError } from './edge-provider.contract.js';

const CNAME_TARGET = 'customers.hangar.example';
/** A custom hostname id of Cloudflare's shape that the fake never issues. */
const UNKNOWN_CLOUDFLARE_ID = '0d89c70d-ad9f-4843-b99f-6cc0252067e9';

describeEdgeProviderContract('mock', async () => ({
  subject: new MockEdgeProvider({ cnameTarget: CNAME_TARGET }),
  cnameTarget: CNAME_TARGET,
  unknownId: 'cf-0d89c70d',
  completeDns: () => {},
}));

describeEdgeProviderContract('Cloudflare (local fake API)', async () => {
  const fake = await FakeCloudflare.start();
  return {
    subject: new CloudflareEdgeProvider({ apiToken: fake.apiToken, zoneId: fake.zoneId, baseUrl: fake.baseUrl, cnameTarget: CNAME_TARGET }),
    cnameTarget: CNAME_TARGET,
    unknownId: UNKNOWN_CLOUDFLARE_ID,
    completeDns: (hostname) => fake.completeDns(hostname),
    close: () => fake.close(),
  };
});

describe('MockEdgeProvider', () => {
  let edge: MockEdgeProvider;

  beforeEach(() => {
    edge = new MockEdgeProvider({ cnameTarget: CNAME_TARGET });
  });

  it('makes a new hostname active on the first refresh, without any DNS', async () => {
    const { hostname } = await edge.create({ hostname: 'files.example.com' });
    expect(hostname).to.include({ providerId: 'mock-files.example.com', status: 'pending', sslStatus: 'initializing' });
    const refreshed = await edge.refresh({ providerId: hostname.providerId });
    expect(refreshed).to.deep.equal({
      providerId: 'mock-files.example.com',
      hostname: 'files.example.com',
      status: 'active',
      sslStatus: 'active',
      validationRecords: [],
      errors: [],
    });
  });

  it('asks for the same records for the same hostname in every process', async () => {
    const one = await edge.create({ hostname: 'files.example.com' });
    const other = await new MockEdgeProvider({ cnameTarget: CNAME_TARGET }).create({ hostname: 'files.example.com' });
    expect(other.hostname).to.deep.equal(one.hostname);
    expect(one.hostname.validationRecords.map((record) => record.name)).to.deep.equal([
      '_cf-custom-hostname.files.example.com',
      '_acme-challenge.files.example.com',
    ]);
  });

  it('takes the hostname from an id of an earlier process: pending on get, active on refresh', async () => {
    const { hostname } = await edge.create({ hostname: 'files.example.com' });
    const restarted = new MockEdgeProvider({ cnameTarget: CNAME_TARGET });
    expect(await restarted.get({ providerId: hostname.providerId })).to.include({ hostname: 'files.example.com', status: 'pending' });
    expect(await restarted.refresh({ providerId: hostname.providerId })).to.include({ hostname: 'files.example.com', status: 'active', sslStatus: 'active' });
  });

  it('fails every call about an edge-error hostname like a provider outage', async () => {
    const outage = await expectDomainError(edge.create({ hostname: 'edge-error.example.com' }), 'EDGE_PROVIDER_ERROR');
    expect(outage.message).to.contain('edge-error.example.com');
    await expectDomainError(edge.get({ providerId: 'mock-edge-error.example.com' }), 'EDGE_PROVIDER_ERROR');
    await expectDomainError(edge.refresh({ providerId: 'mock-edge-error.example.com' }), 'EDGE_PROVIDER_ERROR');
    await expectDomainError(edge.delete({ providerId: 'mock-edge-error.example.com' }), 'EDGE_PROVIDER_ERROR');
  });

  it('fails only for edge-error as the first label', async () => {
    const { hostname } = await edge.create({ hostname: 'files.edge-error.example.com' });
    expect(hostname.status).to.equal('pending');
  });

  it('hands out copies: changing a result changes nothing stored', async () => {
    const { hostname } = await edge.create({ hostname: 'files.example.com' });
    hostname.validationRecords.length = 0;
    expect((await edge.get({ providerId: hostname.providerId }))!.validationRecords).to.have.length(2);
  });
});

describe('CloudflareEdgeProvider against the local fake API', () => {
  let fake: FakeCloudflare;

  beforeEach(async () => {
    fake = await FakeCloudflare.start();
  });
  afterEach(async () => {
    await fake.close();
  });

  function provider(options: Partial<CloudflareEdgeProviderOptions> = {}): CloudflareEdgeProvider {
    return new CloudflareEdgeProvider({ apiToken: fake.apiToken, zoneId: fake.zoneId, baseUrl: fake.baseUrl, cnameTarget: CNAME_TARGET, ...options });
  }

  it('creates with POST /zones/{zone_id}/custom_hostnames, ssl { method: txt, type: dv }, and the bearer token', async () => {
    await provider().create({ hostname: 'files.example.com' });
    expect(fake.requests).to.have.length(1);
    const [request] = fake.requests;
    expect(request.method).to.equal('POST');
    expect(request.path).to.equal(`/client/v4/zones/${fake.zoneId}/custom_hostnames`);
    expect(request.headers.authorization).to.equal(`Bearer ${fake.apiToken}`);
    expect(request.headers['content-type']).to.match(/^application\/json/);
    expect(request.body).to.deep.equal({ hostname: 'files.example.com', ssl: { method: 'txt', type: 'dv' } });
    expect(request.headers).to.not.have.property('x-auth-key');
    expect(request.headers).to.not.have.property('x-auth-email');
  });

  it("ignores the client's environment variables (other credentials, base URL): only its options count", async () => {
    const names = ['CLOUDFLARE_API_KEY', 'CLOUDFLARE_EMAIL', 'CLOUDFLARE_BASE_URL', 'CLOUDFLARE_API_TOKEN'] as const;
    const saved = names.map((name) => process.env[name]);
    Object.assign(process.env, {
      CLOUDFLARE_API_KEY: 'env-key',
      CLOUDFLARE_EMAIL: 'env@example.com',
      CLOUDFLARE_BASE_URL: 'http://127.0.0.1:9/client/v4',
      CLOUDFLARE_API_TOKEN: 'env-token',
    });
    try {
      await provider().create({ hostname: 'files.example.com' });
    } finally {
      names.forEach((name, i) => (saved[i] === undefined ? delete process.env[name] : (process.env[name] = saved[i])));
    }
    expect(fake.requests).to.have.length(1);
    expect(fake.requests[0].headers.authorization).to.equal(`Bearer ${fake.apiToken}`);
    expect(fake.requests[0].headers).to.not.have.any.keys('x-auth-key', 'x-auth-email');
  });

  it('maps ownership_verification and ssl.validation_records to TXT records', async () => {
    const { hostname } = await provider().create({ hostname: 'files.example.com' });
    const stored = fake.find('files.example.com')!;
    expect(hostname.providerId).to.equal(stored.id);
    expect(hostname.validationRecords).to.deep.equal([
      { type: 'TXT', name: '_cf-custom-hostname.files.example.com', value: stored.ownership_verification.value, purpose: 'ownership' },
      {
        type: 'TXT',
        name: '_acme-challenge.files.example.com',
        value: (stored.ssl.validation_records![0] as { txt_value: string }).txt_value,
        purpose: 'ssl_validation',
      },
    ]);
  });

  it('with HTTP validation sends method http and lists no certificate record (Cloudflare serves the token itself)', async () => {
    const edge = provider({ sslMethod: 'http' });
    const { hostname } = await edge.create({ hostname: 'files.example.com' });
    expect(fake.requests[0].body).to.deep.equal({ hostname: 'files.example.com', ssl: { method: 'http', type: 'dv' } });
    expect(hostname.validationRecords.map((record) => record.purpose)).to.deep.equal(['ownership']);
    expect(hostname.errors).to.deep.equal([]);
    await edge.refresh({ providerId: hostname.providerId });
    expect(fake.requests[1].body).to.deep.equal({ ssl: { method: 'http', type: 'dv' } });
  });

  it('refreshes with PATCH and the same ssl object; until the DNS is done it reports pending_validation and why', async () => {
    const edge = provider();
    const { hostname } = await edge.create({ hostname: 'files.example.com' });
    fake.setErrors('files.example.com', {
      verification: ['custom hostname does not CNAME to this zone.'],
      ssl: ['TXT record not found at _acme-challenge.files.example.com'],
    });
    const refreshed = await edge.refresh({ providerId: hostname.providerId });
    const request = fake.requests[1];
    expect(request.method).to.equal('PATCH');
    expect(request.path).to.equal(`/client/v4/zones/${fake.zoneId}/custom_hostnames/${hostname.providerId}`);
    expect(request.body).to.deep.equal({ ssl: { method: 'txt', type: 'dv' } });
    expect(refreshed).to.include({ status: 'pending', sslStatus: 'pending_validation' });
    expect(refreshed.errors).to.deep.equal(['custom hostname does not CNAME to this zone.', 'TXT record not found at _acme-challenge.files.example.com']);
  });

  it('answers a duplicate (error 1406) by looking the hostname up with ?hostname= and returning it as existing', async () => {
    const seeded = fake.seed('files.example.com');
    const { exists, hostname } = await provider().create({ hostname: 'files.example.com' });
    expect(exists).to.equal(true);
    expect(hostname).to.include({ providerId: seeded.id, hostname: 'files.example.com' });
    expect(fake.requests.map((request) => request.method)).to.deep.equal(['POST', 'GET']);
    expect(fake.requests[1].path).to.equal(`/client/v4/zones/${fake.zoneId}/custom_hostnames`);
    expect(Object.fromEntries(fake.requests[1].query)).to.deep.equal({ hostname: 'files.example.com' });
  });

  it('turns a 5xx on create into EDGE_PROVIDER_ERROR without retrying the POST', async () => {
    fake.failNext(1, { status: 503 });
    const error = await expectDomainError(provider().create({ hostname: 'files.example.com' }), 'EDGE_PROVIDER_ERROR');
    expect(error.message).to.contain('503');
    expect(fake.requests).to.have.length(1);
    expect(fake.find('files.example.com')).to.equal(undefined);
  });

  it('retries a read once after a 5xx, and gives up with EDGE_PROVIDER_ERROR when that fails too', async () => {
    const edge = provider();
    const { hostname } = await edge.create({ hostname: 'files.example.com' });
    fake.failNext(1);
    expect(await edge.get({ providerId: hostname.providerId })).to.include({ hostname: 'files.example.com' });
    fake.failNext(2, { status: 502, html: true });
    const error = await expectDomainError(edge.get({ providerId: hostname.providerId }), 'EDGE_PROVIDER_ERROR');
    expect(error.message).to.contain('502');
    expect(fake.requests).to.have.length(5);
  });

  it('turns 5xx on refresh and delete into EDGE_PROVIDER_ERROR', async () => {
    const edge = provider({ retries: 0 });
    const { hostname } = await edge.create({ hostname: 'files.example.com' });
    fake.failNext(1, { status: 500 });
    await expectDomainError(edge.refresh({ providerId: hostname.providerId }), 'EDGE_PROVIDER_ERROR');
    fake.failNext(1, { status: 500 });
    await expectDomainError(edge.delete({ providerId: hostname.providerId }), 'EDGE_PROVIDER_ERROR');
    expect(fake.find('files.example.com')).to.not.equal(undefined);
  });

  it('gives up on a call that gets no answer within timeoutMs with EDGE_PROVIDER_ERROR', async () => {
    const edge = provider({ timeoutMs: 200 });
    fake.hangNext(1);
    const started = Date.now();
    const error = await expectDomainError(edge.create({ hostname: 'files.example.com' }), 'EDGE_PROVIDER_ERROR');
    expect(Date.now() - started).to.be.below(1000);
    expect(error.message).to.contain('200 ms');
  });

  it('keeps to timeoutMs across retries of a read', async () => {
    const edge = provider({ timeoutMs: 300, retries: 3 });
    const { hostname } = await edge.create({ hostname: 'files.example.com' });
    fake.hangNext(10);
    const started = Date.now();
    await expectDomainError(edge.get({ providerId: hostname.providerId }), 'EDGE_PROVIDER_ERROR');
    expect(Date.now() - started).to.be.below(1000);
  });

  it('turns a refused token into EDGE_PROVIDER_ERROR that never shows the token', async () => {
    const token = 'wrong-token-0123456789abcdef';
    const error = await expectDomainError(provider({ apiToken: token }).create({ hostname: 'files.example.com' }), 'EDGE_PROVIDER_ERROR');
    expect(fake.requests[0].headers.authorization).to.equal(`Bearer ${token}`);
    expect(error.message).to.contain('403').and.contain('token');
    expect(error.message).to.not.contain(token);
    expect(JSON.stringify(error.details)).to.not.contain(token);
  });

  it('turns an unreachable API into EDGE_PROVIDER_ERROR', async () => {
    const edge = provider({ retries: 0 });
    const baseUrl = fake.baseUrl;
    await fake.close();
    const error = await expectDomainError(
      new CloudflareEdgeProvider({ apiToken: 'secret-token-xyz', zoneId: 'z', baseUrl, cnameTarget: CNAME_TARGET, retries: 0 }).get({
        providerId: UNKNOWN_CLOUDFLARE_ID,
      }),
      'EDGE_PROVIDER_ERROR',
    );
    expect(error.message).to.contain('could not be reached').and.not.contain('secret-token-xyz');
    await expectDomainError(edge.delete({ providerId: UNKNOWN_CLOUDFLARE_ID }), 'EDGE_PROVIDER_ERROR');
    fake = await FakeCloudflare.start();
  });

  it('sends DELETE /zones/{zone_id}/custom_hostnames/{id}', async () => {
    const edge = provider();
    const { hostname } = await edge.create({ hostname: 'files.example.com' });
    await edge.delete({ providerId: hostname.providerId });
    expect(fake.requests[1]).to.include({ method: 'DELETE', path: `/client/v4/zones/${fake.zoneId}/custom_hostnames/${hostname.providerId}` });
    expect(fake.find('files.example.com')).to.equal(undefined);
  });
});
