import { expect } from 'chai';
import fc from 'fast-check';
import { makePdf, makePng, randomBytesOf, randomFileOf, sha256 } from '../support/bytes.js';
import { call, expectError, signUpWithKey, startTestServer, type TestServer, upload } from '../support/http-harness.js';
import { FC_SEED, scaled } from './scale.js';

// OWASP ASVS 12.2.1 (type from content), 12.5.1/14.4.x (served safely): black-box, over HTTP.
describe('Security: the declared Content-Type must match the file’s content', function () {
  this.timeout(60_000);
  let server: TestServer;
  let apiKey: string;
  before(async () => {
    server = await startTestServer({
      ALLOWED_CONTENT_TYPES:
        'image/png,image/jpeg,image/gif,image/svg+xml,video/mp4,video/quicktime,audio/mpeg,application/pdf,application/zip,application/json,text/plain,text/html,text/csv',
    });
    ({ apiKey } = await signUpWithKey(server, 'sniff@example.com'));
  });
  after(async () => {
    await server.stop();
    expect(server.internalErrors).to.deep.equal([]);
  });

  const total = async () => (await call(server.api, '/files', { apiKey })).body.total as number;
  const local = (publicUrl: string) => publicUrl.replace('http://cdn.hangar.test', server.content);

  it('refuses HTML labelled image/png with 400 CONTENT_TYPE_MISMATCH and stores nothing', async () => {
    const before = await total();
    const result = await upload(server, apiKey, Buffer.from('<!doctype html><html><body><script>fetch("/steal?c="+document.cookie)</script></body></html>'));
    expectError(result, 400, 'CONTENT_TYPE_MISMATCH');
    expect(result.body.details).to.deep.equal({ declared: 'image/png', detected: null });
    expect(await total()).to.equal(before);
  });

  it('refuses a PNG labelled image/jpeg and a PDF labelled video/mp4, naming what they are', async () => {
    expect((await upload(server, apiKey, makePng(), { contentType: 'image/jpeg' })).body.details).to.deep.equal({
      declared: 'image/jpeg',
      detected: 'image/png',
    });
    expectError(await upload(server, apiKey, makePdf(), { contentType: 'video/mp4' }), 400, 'CONTENT_TYPE_MISMATCH');
  });

  it('accepts real files as what they are: PNG, PDF, MP4 (and an MP4 declared video/quicktime)', async () => {
    for (const [bytes, type] of [
      [makePng(), 'image/png'],
      [makePdf(), 'application/pdf'],
      [randomFileOf(20_000, 'video/mp4'), 'video/mp4'],
      [randomFileOf(2000, 'video/mp4', 3), 'video/quicktime'],
    ] as const) {
      const result = await upload(server, apiKey, bytes, { contentType: type });
      expect(result.status, `${type}: ${JSON.stringify(result.body)}`).to.equal(201);
    }
  });

  it('checks the signature even when it arrives one byte per chunk, and stores every byte', async () => {
    const png = randomFileOf(10_000, 'image/png', 9);
    const response = await fetch(`${server.api}/files`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'image/png' },
      body: ReadableStream.from(
        (async function* () {
          for (let i = 0; i < 64; i++) yield png.subarray(i, i + 1);
          yield png.subarray(64);
        })(),
      ),
      duplex: 'half',
    });
    const body = (await response.json()) as any;
    expect(response.status, JSON.stringify(body)).to.equal(201);
    expect(body.file.size).to.equal(png.length);
    const served = Buffer.from(await (await fetch(local(body.file.public_url))).arrayBuffer());
    expect(sha256(served)).to.equal(sha256(png));
  });

  it('accepts text types as declared, and the content server sends them with nosniff; active ones sandboxed', async () => {
    const html = Buffer.from('<html><script>alert(document.domain)</script></html>');
    const cases = [
      { type: 'text/plain', sandboxed: false },
      { type: 'text/csv', sandboxed: false },
      { type: 'application/json', sandboxed: false },
      { type: 'text/html', sandboxed: true },
      { type: 'image/svg+xml', sandboxed: true },
    ];
    for (const { type, sandboxed } of cases) {
      const result = await upload(server, apiKey, html, { contentType: type });
      expect(result.status, `${type}: ${JSON.stringify(result.body)}`).to.equal(201);
      for (const address of [result.body.file.public_url, result.body.file.public_download_url]) {
        const served = await fetch(local(address));
        await served.arrayBuffer();
        expect(served.headers.get('x-content-type-options'), type).to.equal('nosniff');
        expect(served.headers.get('content-type'), type).to.match(new RegExp(`^${type.replace('+', '\\+')}`));
        if (sandboxed) expect(served.headers.get('content-security-policy'), type).to.match(/^sandbox/);
        else expect(served.headers.get('content-security-policy'), type).to.equal(null);
      }
    }
  });

  it('never answers 5xx and refuses every body without the declared signature (property, random bodies)', async () => {
    const types = ['image/png', 'image/jpeg', 'image/gif', 'video/mp4', 'video/quicktime', 'audio/mpeg', 'application/pdf', 'application/zip'];
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...types), fc.integer({ min: 1, max: 6000 }), fc.integer({ min: 1, max: 1_000_000 }), async (type, size, seed) => {
        const bytes = randomBytesOf(size, seed);
        const result = await upload(server, apiKey, bytes, { contentType: type });
        expect(result.status, JSON.stringify(result.body)).to.be.lessThan(500);
        if (result.status === 400) {
          expect(result.body.code).to.equal('CONTENT_TYPE_MISMATCH');
          refused++;
        }
      }),
      { numRuns: scaled(60, 2000), seed: FC_SEED },
    );
    expect(refused).to.be.greaterThan(scaled(60, 2000) * 0.9);
  });
});
