import http from 'node:http';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { expect } from 'chai';
import { JSON_LIMIT_BYTES } from '../../apps/http/route.js';
import { call, expectError, RELAXED_RATE_LIMITS, startTestServer, type TestServer } from '../support/http-harness.js';

/** Posts `body` to /auth/register as JSON with `headers` on top. */
function register(server: TestServer, body: string | Uint8Array, headers: Record<string, string> = {}) {
  return call(server.api, '/auth/register', { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
}

/**
 * Posts `chunks` to /auth/register as a chunked JSON body (no Content-Length), one write each.
 * @returns the status and the parsed answer
 */
function registerChunked(server: TestServer, chunks: string[]): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      `${server.api}/auth/register`,
      { method: 'POST', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) }));
      },
    );
    request.on('error', reject);
    for (const chunk of chunks) request.write(chunk);
    request.end();
  });
}

const account = (name: string) => JSON.stringify({ email: `${name}@example.com`, password: 'secret1' });

describe('HTTP: JSON request bodies', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer(RELAXED_RATE_LIMITS);
  });
  after(async () => {
    await server.stop();
    expect(server.internalErrors).to.deep.equal([]);
  });

  it('takes a body compressed with gzip, deflate or br (RFC 9110 §8.4.1), and one that starts with a byte-order mark', async () => {
    expect((await register(server, gzipSync(account('gzip')), { 'content-encoding': 'gzip' })).status).to.equal(201);
    expect((await register(server, deflateSync(account('deflate')), { 'content-encoding': 'deflate' })).status).to.equal(201);
    expect((await register(server, brotliCompressSync(account('br')), { 'content-encoding': 'BR' })).status).to.equal(201);
    expect((await register(server, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(account('bom'))]))).status).to.equal(201);
    // UTF-8 throughout: a password with accents and CJK signs up and then logs in.
    const password = 'pässwörd-日本';
    expect((await register(server, JSON.stringify({ email: 'utf8@example.com', password }))).status).to.equal(201);
    const login = await call(server.api, '/auth/login', { method: 'POST', json: { email: 'utf8@example.com', password } });
    const wrong = await call(server.api, '/auth/login', { method: 'POST', json: { email: 'utf8@example.com', password: 'passwort-日本' } });
    // The right password reaches the unconfirmed address's refusal; a wrong one does not.
    expectError(login, 403, 'EMAIL_NOT_VERIFIED');
    expectError(wrong, 401, 'INVALID_CREDENTIALS');
  });

  it('refuses malformed JSON, a scalar and white space alone with 400 VALIDATION_FAILED, and an empty body as missing fields', async () => {
    for (const body of ['{"email":', '"a string"', '42', 'null', '   ', '{"email": "x@example.com"} trailing']) {
      expectError(await register(server, body), 400, 'VALIDATION_FAILED');
    }
    // Chunked and empty: an empty object, which the schema then refuses field by field.
    const empty = await registerChunked(server, []);
    expect([empty.status, empty.body.code]).to.deep.equal([400, 'VALIDATION_FAILED']);
    expect(JSON.stringify(empty.body)).to.match(/email|password/);
  });

  it('refuses a body over 64 KiB with 413, whether declared, chunked or compressed, and keeps answering', async () => {
    const large = JSON.stringify({ email: 'large@example.com', password: 'secret1', pad: 'x'.repeat(JSON_LIMIT_BYTES) });
    const declared = await register(server, large);
    expectError(declared, 413, 'PAYLOAD_TOO_LARGE');
    expect(declared.body.message).to.equal(`The JSON body is larger than ${JSON_LIMIT_BYTES} bytes.`);
    const chunks = Array.from({ length: Math.ceil(large.length / 16_384) }, (_, i) => large.slice(i * 16_384, (i + 1) * 16_384));
    const chunked = await registerChunked(server, chunks);
    expect([chunked.status, chunked.body.code]).to.deep.equal([413, 'PAYLOAD_TOO_LARGE']);
    // 1 MiB of spaces compresses to about 1 KiB: counted as it decompresses, and cut off at the limit.
    const bomb = gzipSync(Buffer.concat([Buffer.alloc(1024 * 1024, 0x20), Buffer.from(account('bomb'))]));
    expect(bomb.byteLength).to.be.below(JSON_LIMIT_BYTES);
    expectError(await register(server, bomb, { 'content-encoding': 'gzip' }), 413, 'PAYLOAD_TOO_LARGE');
    expect((await register(server, account('after-large'))).status).to.equal(201);
  });

  it('refuses an unknown content coding with 415 and a body that does not decompress with 400', async () => {
    const unknown = await register(server, account('compress'), { 'content-encoding': 'compress' });
    expectError(unknown, 415, 'UNSUPPORTED_MEDIA_TYPE');
    expect(unknown.body.message).to.contain('compress');
    const corrupt = gzipSync(account('corrupt'));
    corrupt[corrupt.length - 6] ^= 0xff; // the CRC-32 no longer matches
    expectError(await register(server, corrupt, { 'content-encoding': 'gzip' }), 400, 'VALIDATION_FAILED');
    expectError(await register(server, account('plain-as-gzip'), { 'content-encoding': 'gzip' }), 400, 'VALIDATION_FAILED');
    expect((await call(server.api, '/healthz')).status).to.equal(200);
  });
});

describe('HTTP: JSON request bodies with every pacing rule off', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ UPLOAD_IDLE_TIMEOUT_SECONDS: '0', UPLOAD_MIN_BYTES_PER_SECOND: '0', SLOW_BODY_AFTER_SECONDS: '0' });
  });
  after(async () => {
    await server.stop();
    expect(server.internalErrors).to.deep.equal([]);
  });

  it('still answers 413 to a body over the limit (the request is left open for the answer) and 201 to a good one', async () => {
    // 1 MiB in 16 KiB writes, without a length: refused while most of it is still to come.
    const chunked = await registerChunked(
      server,
      Array.from({ length: 64 }, (_, i) => (i === 0 ? '{"pad":"' : '').padEnd(16_384, 'x')),
    );
    expect([chunked.status, chunked.body.code]).to.deep.equal([413, 'PAYLOAD_TOO_LARGE']);
    expect((await register(server, account('unpaced'))).status).to.equal(201);
  });
});
