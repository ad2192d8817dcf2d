import { expect } from 'chai';
import { readdir } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { call, signUpWithKey, startTestServer, type TestServer } from '../support/http-harness.js';

/** Every file under `directory` (recursively), except the small-blob database and its journal files. */
async function filesUnder(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((entry) => entry.isFile() && !entry.name.startsWith('small-blobs.db')).map((entry) => path.join(entry.parentPath, entry.name));
}

/**
 * Starts an upload of `declared` bytes on a raw connection, sends `first` bytes at once, then
 * `trickle` bytes every `everyMs` (0: nothing more); resolves with the answer's status, body and
 * the ms from the first byte to the answer.
 */
function slowUpload(server: TestServer, apiKey: string, options: { declared: number; first: number; trickle: number; everyMs: number }): Promise<{ status: number; body: any; ms: number }> {
  const { hostname, port } = new URL(server.api);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    const started = Date.now();
    let received = '';
    let timer: NodeJS.Timeout | undefined;
    const finish = () => {
      clearInterval(timer);
      socket.destroy();
      const at = received.indexOf('\r\n\r\n');
      if (at < 0) return reject(new Error(`no answer: ${JSON.stringify(received)}`));
      resolve({ status: Number(received.split(' ')[1]), body: JSON.parse(received.slice(at + 4)), ms: Date.now() - started });
    };
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => {
      received += chunk;
      const at = received.indexOf('\r\n\r\n');
      const length = Number(/content-length: (\d+)/i.exec(received)?.[1] ?? Number.NaN);
      if (at >= 0 && received.length - at - 4 >= length) finish();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearInterval(timer);
      if (received === '') reject(new Error('closed without an answer'));
    });
    // A server that never answers fails the test instead of keeping it (and the trickle) running.
    socket.setTimeout(8000, () => {
      socket.destroy();
      reject(new Error('no answer within 8 s'));
    });
    socket.write(`POST /files HTTP/1.1\r\nHost: api.hangar.test\r\nX-Api-Key: ${apiKey}\r\nContent-Type: text/plain\r\nContent-Length: ${options.declared}\r\n\r\n`);
    socket.write(Buffer.alloc(options.first, 'a'));
    if (options.everyMs > 0) timer = setInterval(() => socket.write(Buffer.alloc(options.trickle, 'b')), options.everyMs);
  });
}

// RFC 9110 §15.5.9: a client too slow to send its body is answered 408 and its partial upload removed.
describe('HTTP: uploads that trickle in', function () {
  this.timeout(30_000);
  let server: TestServer;
  let apiKey: string;
  before(async () => {
    server = await startTestServer({ UPLOAD_IDLE_TIMEOUT_SECONDS: '1', UPLOAD_MIN_BYTES_PER_SECOND: '2000', UPLOAD_MIN_RATE_WINDOW_SECONDS: '1' });
    ({ apiKey } = await signUpWithKey(server, 'trickle@example.com'));
  });
  after(async () => {
    await server.stop();
    expect(server.internalErrors).to.deep.equal([]);
  });

  async function expectNothingStored(): Promise<void> {
    expect((await call(server.api, '/files', { apiKey })).body.total).to.equal(0);
    expect(await filesUnder(path.join(server.dataDir, 'blobs'))).to.deep.equal([]);
  }

  it('answers 408 REQUEST_TIMEOUT once no byte came for UPLOAD_IDLE_TIMEOUT_SECONDS, and keeps no temporary file or record', async () => {
    // Past the small-blob size, so the body was already going into a temporary file.
    const answer = await slowUpload(server, apiKey, { declared: 200_000, first: 100_000, trickle: 0, everyMs: 0 });
    expect(answer.status, JSON.stringify(answer.body)).to.equal(408);
    expect(answer.body.code).to.equal('REQUEST_TIMEOUT');
    expect(answer.body.request_id).to.be.a('string');
    expect(answer.ms).to.be.within(900, 4000);
    await expectNothingStored();
  });

  it('answers 408 when the body keeps coming, but slower than UPLOAD_MIN_BYTES_PER_SECOND over the window', async () => {
    const answer = await slowUpload(server, apiKey, { declared: 200_000, first: 100_000, trickle: 50, everyMs: 200 });
    expect(answer.status, JSON.stringify(answer.body)).to.equal(408);
    expect(answer.body.code).to.equal('REQUEST_TIMEOUT');
    expect(answer.ms).to.be.within(900, 5000);
    await expectNothingStored();
  });

  it('still takes an upload that arrives in pieces faster than the limits', async () => {
    const answer = await slowUpload(server, apiKey, { declared: 100_000 + 5 * 4000, first: 100_000, trickle: 4000, everyMs: 300 });
    expect(answer.status, JSON.stringify(answer.body)).to.equal(201);
    expect(answer.body.file.size).to.equal(120_000);
  });
});
