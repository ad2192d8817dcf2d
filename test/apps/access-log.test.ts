import { expect } from 'chai';
import { once } from 'node:events';
import { connect } from 'node:net';
import { call, signUpWithKey, startTestServer, type TestServer } from '../support/http-harness.js';

/** The access log (apps/http/access-log.ts) as an operator reads it: who, what, and what really happened. */
describe('Access log: client, user agent, request id, and the truth about aborted requests', function () {
  this.timeout(60_000);
  let server: TestServer;
  let apiKey: string;
  before(async () => {
    // Behind one proxy: the client is the X-Forwarded-For entry the proxy appended.
    server = await startTestServer({ TRUST_PROXY: '1' });
    ({ apiKey } = await signUpWithKey(server, 'access-log@example.com'));
  });
  after(() => server.stop());

  const requestEntry = async (requestId: string) => {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const found = server.log.entries.filter((entry) => entry.event === 'request' && entry.fields?.request_id === requestId);
      if (found.length > 0) {
        expect(found, requestId).to.have.length(1);
        return found[0].fields as Record<string, unknown>;
      }
      if (Date.now() > deadline) throw new Error(`no access-log entry for ${requestId}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };

  it('records the client address after TRUST_PROXY, the user agent and the request id', async () => {
    const answered = await fetch(`${server.api}/usage`, {
      headers: { 'x-api-key': apiKey, 'x-request-id': 'log-fields', 'user-agent': 'curl/8.5.0', 'x-forwarded-for': '198.51.100.1, 203.0.113.9' },
    });
    expect(answered.status).to.equal(200);
    const entry = await requestEntry('log-fields');
    expect(entry).to.include({ request_id: 'log-fields', client_ip: '203.0.113.9', user_agent: 'curl/8.5.0', method: 'GET', route: '/usage', status: 200 });
    const anonymous = await fetch(`${server.api}/healthz`, { headers: { 'x-request-id': 'log-no-proxy' } });
    expect(anonymous.status).to.equal(200);
    // No X-Forwarded-For: the socket's peer, written as IPv4.
    expect(await requestEntry('log-no-proxy')).to.include({ client_ip: '127.0.0.1' });
  });

  it('logs a tus PATCH cut by the client as 499 with the bytes the upload kept, once they are kept', async () => {
    const length = 4 * 1024 * 1024;
    const created = await call(server.api, '/files/resumable', {
      method: 'POST',
      apiKey,
      headers: {
        'tus-resumable': '1.0.0',
        'upload-length': String(length),
        'upload-metadata': `filetype ${Buffer.from('video/mp4').toString('base64')},filename ${Buffer.from('cut.mp4').toString('base64')}`,
      },
    });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    const location = new URL(created.headers.get('location')!, server.api).pathname;

    // Half of the body, then the client goes away.
    const sent = 1024 * 1024 + 12_345;
    const { port } = new URL(server.api);
    const socket = connect(Number(port), '127.0.0.1');
    await once(socket, 'connect');
    socket.write(
      `PATCH ${location} HTTP/1.1\r\nhost: api.hangar.test\r\nx-api-key: ${apiKey}\r\ntus-resumable: 1.0.0\r\nupload-offset: 0\r\n` +
        `content-type: application/offset+octet-stream\r\ncontent-length: ${length}\r\nuser-agent: tus-js-client/4\r\nx-request-id: log-cut-patch\r\n\r\n`,
    );
    await new Promise<void>((resolve) => socket.write(Buffer.alloc(sent, 7), () => resolve()));
    await new Promise((resolve) => setTimeout(resolve, 300));
    socket.destroy();

    const entry = await requestEntry('log-cut-patch');
    const head = await fetch(`${server.api}${location}`, { method: 'HEAD', headers: { 'x-api-key': apiKey, 'tus-resumable': '1.0.0' } });
    const kept = Number(head.headers.get('upload-offset'));
    expect(kept, 'the server kept what arrived').to.be.above(0).and.at.most(sent);
    expect(entry).to.include({
      status: 499,
      aborted: true,
      bytes_in: kept,
      route: '/files/resumable/:upload_id',
      method: 'PATCH',
      user_agent: 'tus-js-client/4',
      credential: 'api_key',
    });
    expect(server.internalErrors).to.deep.equal([]);
  });

  it('logs a body cut before the app read it with the bytes that arrived', async () => {
    const { port } = new URL(server.api);
    const socket = connect(Number(port), '127.0.0.1');
    await once(socket, 'connect');
    socket.write(
      'POST /auth/login HTTP/1.1\r\nhost: api.hangar.test\r\ncontent-type: application/json\r\ncontent-length: 1000\r\nx-request-id: log-cut-login\r\n\r\n',
    );
    await new Promise<void>((resolve) => socket.write('{"email":"a@example.com","password":"', () => resolve()));
    await new Promise((resolve) => setTimeout(resolve, 200));
    socket.destroy();
    const entry = await requestEntry('log-cut-login');
    expect(entry).to.include({ status: 499, aborted: true, bytes_in: '{"email":"a@example.com","password":"'.length, user_agent: null });
  });
});
