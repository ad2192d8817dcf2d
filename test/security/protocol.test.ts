import { expect } from 'chai';
import http from 'node:http';
import net from 'node:net';
import { makePdf } from '../support/bytes.js';
import { signUpWithKey, startTestServer, type TestServer, upload } from '../support/http-harness.js';

/** One request through node:http (fetch refuses TRACE and duplicate headers): status, headers and parsed body. */
function send(
  base: string,
  method: string,
  pathname: string,
  headers: http.OutgoingHttpHeaders | string[] = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: any }> {
  return new Promise((resolve, reject) => {
    const request = http.request(new URL(pathname, base), { method, headers, agent: false }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => (text += chunk));
      response.on('end', () =>
        resolve({
          status: response.statusCode!,
          headers: response.headers,
          body: response.headers['content-type']?.startsWith('application/json') ? JSON.parse(text) : text,
        }),
      );
    });
    request.on('error', reject);
    request.end();
  });
}

/** Writes `bytes` as they are on a new connection and returns everything the server sends before it closes (3 s at most). */
function raw(base: string, bytes: string): Promise<string> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname);
    let received = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
    socket.on('close', () => resolve(received));
    socket.on('error', () => undefined);
    socket.setTimeout(3000, () => socket.destroy());
    socket.write(bytes);
  });
}

/** Splits a raw HTTP answer into status, lower-cased headers and JSON body. */
function parse(answer: string): { status: number; headers: Record<string, string>; body: any } {
  const [head, body] = [answer.slice(0, answer.indexOf('\r\n\r\n')), answer.slice(answer.indexOf('\r\n\r\n') + 4)];
  const [statusLine, ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
  return { status: Number(statusLine.split(' ')[1]), headers, body: body === '' ? undefined : JSON.parse(body) };
}

/** The error format: `{ code, message, request_id }` with the id also in `X-Request-Id`. */
function expectErrorFormat(result: { status: number; headers: Record<string, string | string[] | undefined>; body: any }, status: number, code: string): void {
  expect(result.status, JSON.stringify(result.body)).to.equal(status);
  expect(result.headers['content-type']).to.match(/^application\/json/);
  expect(result.body).to.include({ code });
  expect(result.body.message).to.be.a('string').and.not.equal('');
  expect(result.body.request_id).to.be.a('string').and.equal(result.headers['x-request-id']);
}

// RFC 9110 §15.5.6 (405 + Allow), §15.6.2 (501), RFC 9112 §3.2 (one Host), RFC 6585 §5 (431): black-box, over HTTP.
describe('Security: protocol edges on both servers', function () {
  this.timeout(60_000);
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => {
    await server.stop();
    expect(server.internalErrors).to.deep.equal([]);
  });

  const UNKNOWN_METHODS = ['TRACE', 'PROPFIND', 'MKCOL', 'SEARCH', 'LOCK', 'QUERY'];

  for (const method of UNKNOWN_METHODS) {
    it(`answers ${method} with 405 and Allow on a known path, 501 elsewhere, on both servers, in the error format and logging nothing`, async () => {
      const onKnownPath = [
        { base: server.api, path: '/files', allow: ['GET', 'HEAD', 'POST'] },
        { base: server.content, path: '/m/abcdefghij', allow: ['GET', 'HEAD'] },
      ];
      for (const { base, path, allow } of onKnownPath) {
        const result = await send(base, method, path);
        expectErrorFormat(result, 405, 'METHOD_NOT_ALLOWED');
        expect(result.headers.allow!.split(', ').sort()).to.deep.equal(allow);
      }
      for (const base of [server.api, server.content]) expectErrorFormat(await send(base, method, '/no/such/path'), 501, 'NOT_IMPLEMENTED');
      expect(server.internalErrors).to.deep.equal([]);
    });
  }

  it('keeps 405 with Allow for any other method on a known path, and 404 for a method the server uses on an unknown path', async () => {
    const put = await send(server.api, 'PUT', '/files');
    expectErrorFormat(put, 405, 'METHOD_NOT_ALLOWED');
    expect(put.headers.allow!.split(', ').sort()).to.deep.equal(['GET', 'HEAD', 'POST']);
    expectErrorFormat(await send(server.api, 'DELETE', '/no/such/path'), 404, 'NOT_FOUND');
    expectErrorFormat(await send(server.content, 'GET', '/no/such/path'), 404, 'NOT_FOUND');
    // The content server takes POST (a share link's password form) but never PATCH.
    expectErrorFormat(await send(server.content, 'POST', '/no/such/path'), 404, 'NOT_FOUND');
    expectErrorFormat(await send(server.content, 'PATCH', '/no/such/path'), 501, 'NOT_IMPLEMENTED');
  });

  it('answers a request with two Host headers 400 MALFORMED_REQUEST on both servers', async () => {
    for (const base of [server.api, server.content]) {
      expectErrorFormat(await send(base, 'GET', '/healthz', ['Host', 'api.hangar.test', 'Host', 'cdn.hangar.test']), 400, 'MALFORMED_REQUEST');
    }
  });

  it('answers what Node’s parser refuses (a malformed request, an unknown method token, headers over the limit) in the error format with X-Request-Id', async () => {
    for (const base of [server.api, server.content]) {
      const malformed = parse(await raw(base, 'GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header Line\r\n\r\n'));
      expectErrorFormat(malformed, 400, 'MALFORMED_REQUEST');
      expect(malformed.headers['x-content-type-options']).to.equal('nosniff');
      expectErrorFormat(parse(await raw(base, 'BREW /healthz HTTP/1.1\r\nHost: x\r\n\r\n')), 400, 'MALFORMED_REQUEST');
      expectErrorFormat(parse(await raw(base, `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`)), 431, 'HEADERS_TOO_LARGE');
    }
  });
});

describe('Security: content origin headers', function () {
  this.timeout(60_000);
  let server: TestServer;
  let apiKey: string;
  before(async () => {
    server = await startTestServer({ PUBLIC_CONTENT_URL: 'https://cdn.hangar.test' });
    ({ apiKey } = await signUpWithKey(server, 'content-headers@example.com'));
  });
  after(async () => {
    await server.stop();
    expect(server.internalErrors).to.deep.equal([]);
  });

  it('sends nosniff and HSTS (the content URL is https) on every content answer, JSON errors and refused requests included', async () => {
    const answers = [
      await send(server.content, 'GET', '/m/nosuchfile1'),
      await send(server.content, 'GET', '/no/such/path'),
      await send(server.content, 'GET', '/healthz'),
      await send(server.content, 'TRACE', '/m/nosuchfile1'),
    ];
    for (const answer of answers) {
      expect(answer.headers['x-content-type-options'], `${answer.status}`).to.equal('nosniff');
      expect(answer.headers['strict-transport-security'], `${answer.status}`).to.equal('max-age=31536000');
    }
    const refused = parse(await raw(server.content, 'GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header Line\r\n\r\n'));
    expect(refused.headers['strict-transport-security']).to.equal('max-age=31536000');
  });

  it('serves a PDF inline under a CSP sandbox, like the other types a browser runs', async () => {
    const file = (await upload(server, apiKey, makePdf(), { contentType: 'application/pdf', name: 'report.pdf' })).body.file;
    const view = await send(server.content, 'GET', `/m/${file.file_id}`);
    expect(view.status).to.equal(200);
    expect(view.headers['content-disposition']).to.match(/^inline;/);
    expect(view.headers['content-security-policy']).to.match(/^sandbox/);
  });

  it('keeps path separators and bidirectional controls out of the ASCII fallback file name', async () => {
    const name = encodeURIComponent('in\\voice/2024\u202Efdp.exe \u2066x\u2069');
    const file = (await upload(server, apiKey, makePdf(), { contentType: 'application/pdf', name })).body.file;
    const download = await send(server.content, 'GET', `/d/${file.file_id}`);
    const fallback = /filename="([^"]*)"/.exec(download.headers['content-disposition']!)![1];
    expect(fallback).to.equal('in_voice_2024fdp.exe x');
    expect(download.headers['content-disposition']).to.include(`filename*=UTF-8''${encodeURIComponent('in\\voice/2024\u202Efdp.exe \u2066x\u2069')}`);
  });
});
