import { expect } from 'chai';
import http from 'node:http';
import { makePng } from '../support/bytes.js';
import { call, signUpWithKey, startTestServer, type TestServer, upload } from '../support/http-harness.js';

/** A GET with a `Host` header of our choosing (fetch will not send one), answering status and body. */
function getWithHost(base: string, pathname: string, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.get(new URL(pathname, base), { headers: { host } }, (response) => {
      let body = '';
      response.on('data', (chunk) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.on('error', reject);
  });
}

// OWASP ASVS 14.4 (HTTP security headers), 14.5.3 (CORS allow-list), 12.5/1.12.2 (user content on
// its own origin): black-box, over HTTP.
describe('Security: headers, CORS and origin separation', function () {
  this.timeout(60_000);
  let server: TestServer;
  let apiKey: string;
  let fileId: string;
  before(async () => {
    server = await startTestServer({ CORS_ORIGINS: 'https://app.example.com, http://localhost:5173' });
    ({ apiKey } = await signUpWithKey(server, 'headers@example.com'));
    fileId = (await upload(server, apiKey, makePng())).body.file.file_id;
  });
  after(async () => {
    await server.stop();
    expect(server.internalErrors).to.deep.equal([]);
  });

  it('sends the security headers on API answers, errors included', async () => {
    for (const result of [await call(server.api, '/settings', { apiKey }), await call(server.api, '/settings'), await call(server.api, '/no-such-route')]) {
      const h = result.headers;
      expect(h.get('content-security-policy')).to.equal("default-src 'none';frame-ancestors 'none';base-uri 'none';form-action 'self'");
      expect(h.get('x-content-type-options')).to.equal('nosniff');
      expect(h.get('x-frame-options')).to.equal('DENY');
      expect(h.get('referrer-policy')).to.equal('no-referrer');
      expect(h.get('strict-transport-security')).to.match(/^max-age=\d+/);
      expect(h.get('cross-origin-opener-policy')).to.equal('same-origin');
      expect(h.get('cross-origin-resource-policy')).to.equal('same-origin');
      expect(h.get('x-powered-by')).to.equal(null);
    }
  });

  it('lets pages keep their own, nonce-based CSP (the reference at /docs)', async () => {
    const docs = await fetch(`${server.api}/docs`);
    await docs.text();
    expect(docs.status).to.equal(200);
    expect(docs.headers.get('content-security-policy')).to.match(/script-src 'self' 'nonce-[A-Za-z0-9+/=]+'/);
    expect(docs.headers.get('x-content-type-options')).to.equal('nosniff');
  });

  it('answers CORS only for the listed origins: the origin echoed, never *, preflights with the methods and headers the API takes', async () => {
    const allowed = await fetch(`${server.api}/settings`, { headers: { origin: 'https://app.example.com', 'x-api-key': apiKey } });
    await allowed.text();
    expect(allowed.headers.get('access-control-allow-origin')).to.equal('https://app.example.com');
    expect(allowed.headers.get('access-control-allow-credentials')).to.equal(null);
    expect(allowed.headers.get('access-control-expose-headers')).to.include('Retry-After');

    const preflight = await fetch(`${server.api}/files`, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://localhost:5173',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'x-api-key, content-type, x-file-name',
      },
    });
    await preflight.text();
    expect(preflight.status).to.equal(204);
    expect(preflight.headers.get('access-control-allow-origin')).to.equal('http://localhost:5173');
    expect(preflight.headers.get('access-control-allow-methods')).to.include('POST');
    expect(preflight.headers.get('access-control-allow-headers')).to.match(/X-Api-Key/i);

    for (const origin of ['https://evil.example', 'https://app.example.com.evil.example', 'null']) {
      const refused = await fetch(`${server.api}/settings`, { headers: { origin, 'x-api-key': apiKey } });
      await refused.text();
      expect(refused.headers.get('access-control-allow-origin'), origin).to.equal(null);
    }
  });

  it('sends no CORS headers at all without CORS_ORIGINS (the default)', async () => {
    const plain = await startTestServer();
    try {
      const response = await fetch(`${plain.api}/settings`, { headers: { origin: 'https://app.example.com' } });
      await response.text();
      expect(response.headers.get('access-control-allow-origin')).to.equal(null);
    } finally {
      await plain.stop();
    }
  });

  it('never serves the API on the content origin: API paths on the content server, and the content host on the API server, are 404', async () => {
    for (const pathname of ['/files', '/auth/login', '/settings', '/docs', '/reference/openapi.json']) {
      const onContent = await fetch(`${server.content}${pathname}`);
      expect(onContent.status, pathname).to.equal(404);
      expect(((await onContent.json()) as any).code).to.equal('NOT_FOUND');
    }
    for (const pathname of ['/docs', '/reference/openapi.json', '/healthz', '/auth/confirmed']) {
      const misrouted = await getWithHost(server.api, pathname, 'cdn.hangar.test');
      expect(misrouted.status, pathname).to.equal(404);
      expect(JSON.parse(misrouted.body).code).to.equal('NOT_FOUND');
    }
    expect((await getWithHost(server.api, '/healthz', 'api.hangar.test')).status).to.equal(200);
  });

  it('never serves files on the API origin: /m and /d on the API server are 404, and the content server refuses the API host', async () => {
    for (const pathname of [`/m/${fileId}`, `/d/${fileId}`]) {
      const onApi = await fetch(`${server.api}${pathname}`);
      await onApi.text();
      expect(onApi.status, pathname).to.equal(404);
      expect((await getWithHost(server.content, pathname, 'api.hangar.test')).status, pathname).to.equal(404);
      expect((await getWithHost(server.content, pathname, 'cdn.hangar.test')).status, pathname).to.equal(200);
    }
  });
});
