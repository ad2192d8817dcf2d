import { expect } from 'chai';
import { readdir } from 'node:fs/promises';
import net from 'node:net';
import { gzipSync } from 'node:zlib';
import path from 'node:path';
import { call, signUpWithKey, startTestServer, type TestServer, upload } from '../support/http-harness.js';

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
function slowUpload(
  server: TestServer,
  apiKey: string,
  options: { declared: number; first: number; trickle: number; everyMs: number },
): Promise<{ status: number; body: any; ms: number }> {
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
      received += chunk.toString();
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
    socket.write(
      `POST /files HTTP/1.1\r\nHost: api.hangar.test\r\nX-Api-Key: ${apiKey}\r\nContent-Type: text/plain\r\nContent-Length: ${options.declared}\r\n\r\n`,
    );
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

/**
 * Sends a request of `declared` body bytes on a raw connection to `base`: the head with `headers`,
 * then `first` bytes at once, then `trickle` bytes every `everyMs` (until `declared` bytes are sent,
 * then nothing more). Resolves with the answer's status, its JSON body (or undefined) and the ms from
 * the first byte to the answer; `socket` lets a test end the trickle itself.
 */
function trickle(
  base: string,
  request: {
    method?: string;
    path: string;
    headers: Record<string, string>;
    declared: number;
    first: number;
    trickle: number;
    everyMs: number;
    fill?: string;
    bytes?: Buffer;
  },
): { answer: Promise<{ status: number; body: any; ms: number }>; socket: net.Socket } {
  const { hostname, port } = new URL(base);
  const socket = net.connect(Number(port), hostname);
  const started = Date.now();
  const fill = request.bytes ?? Buffer.from((request.fill ?? ' ').repeat(request.declared));
  let sent = 0;
  let timer: NodeJS.Timeout | undefined;
  const send = (bytes: number) => {
    const end = Math.min(request.declared, sent + bytes);
    if (end > sent) socket.write(fill.subarray(sent, end));
    sent = end;
  };
  const answer = new Promise<{ status: number; body: any; ms: number }>((resolve, reject) => {
    let received = '';
    const finish = () => {
      clearInterval(timer);
      socket.destroy();
      const at = received.indexOf('\r\n\r\n');
      const text = received.slice(at + 4);
      resolve({ status: Number(received.split(' ')[1]), body: text.startsWith('{') ? JSON.parse(text) : undefined, ms: Date.now() - started });
    };
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => {
      received += chunk.toString();
      const at = received.indexOf('\r\n\r\n');
      const length = Number(/content-length: (\d+)/i.exec(received)?.[1] ?? Number.NaN);
      if (at >= 0 && received.length - at - 4 >= length) finish();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearInterval(timer);
      if (received === '') reject(new Error('closed without an answer'));
    });
    socket.setTimeout(10_000, () => {
      socket.destroy();
      reject(new Error('no answer within 10 s'));
    });
  });
  const head = Object.entries({ Host: hostname, 'Content-Length': String(request.declared), ...request.headers })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.write(`${request.method ?? 'POST'} ${request.path} HTTP/1.1\r\n${head}\r\n`);
  send(request.first);
  if (request.everyMs > 0) timer = setInterval(() => send(request.trickle), request.everyMs);
  return { answer, socket };
}

// Issue #60 item 1: the rules of upload bodies hold for every body, and slow bodies are capped per client address.
describe('HTTP: JSON and form bodies that trickle in', function () {
  this.timeout(30_000);
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ UPLOAD_IDLE_TIMEOUT_SECONDS: '1', UPLOAD_MIN_BYTES_PER_SECOND: '2000', UPLOAD_MIN_RATE_WINDOW_SECONDS: '1' });
  });
  after(async () => {
    await server.stop();
    expect(server.internalErrors).to.deep.equal([]);
  });

  it('answers 408 REQUEST_TIMEOUT to POST /auth/login with Content-Length 2000 trickled a byte at a time (the probe’s reproduction)', async () => {
    const { answer } = trickle(server.api, {
      path: '/auth/login',
      headers: { 'Content-Type': 'application/json' },
      declared: 2000,
      first: 1,
      trickle: 1,
      everyMs: 100,
      fill: '{',
    });
    const result = await answer;
    expect(result.status, JSON.stringify(result.body)).to.equal(408);
    expect(result.body.code).to.equal('REQUEST_TIMEOUT');
    expect(result.ms).to.be.within(900, 5000);
  });

  it('answers 408 when a JSON body stops arriving for UPLOAD_IDLE_TIMEOUT_SECONDS', async () => {
    const { answer } = trickle(server.api, {
      path: '/auth/register',
      headers: { 'Content-Type': 'application/json' },
      declared: 100,
      first: 10,
      trickle: 0,
      everyMs: 0,
    });
    const result = await answer;
    expect(result.status).to.equal(408);
    expect(result.body.code).to.equal('REQUEST_TIMEOUT');
  });

  it('answers 408 when a gzip-compressed JSON body stops arriving for UPLOAD_IDLE_TIMEOUT_SECONDS', async () => {
    const compressed = gzipSync(JSON.stringify({ email: 'gzip-stalled@example.com', password: 'secret1' }));
    const { answer } = trickle(server.api, {
      path: '/auth/register',
      headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
      declared: compressed.length,
      first: 12,
      trickle: 0,
      everyMs: 0,
      bytes: compressed,
    });
    const result = await answer;
    expect([result.status, result.body.code]).to.deep.equal([408, 'REQUEST_TIMEOUT']);
  });

  it('answers 408 to the share-password form on the content origin trickled a byte at a time', async () => {
    const { apiKey } = await signUpWithKey(server, 'form-trickle@example.com');
    const fileId = (await upload(server, apiKey, Buffer.from('%PDF-1.4 secret'), { contentType: 'application/pdf', query: '?isPublic=false' })).body.file
      .file_id;
    const share = await call(server.api, `/files/${fileId}/shares`, { method: 'POST', apiKey, json: { password: 'open sesame' } });
    expect(share.status).to.equal(201);
    const path = `${new URL(share.body.url).pathname}/download`;
    const { answer } = trickle(server.content, {
      path,
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      declared: 2000,
      first: 9,
      trickle: 1,
      everyMs: 100,
      fill: 'password=' + 'x'.repeat(2000),
    });
    const result = await answer;
    expect(result.status).to.equal(408);
    expect(result.body.code).to.equal('REQUEST_TIMEOUT');
  });

  it('still takes a JSON body that arrives in pieces faster than the limits', async () => {
    const json = JSON.stringify({ email: 'nobody@example.com', password: 'wrong password' }).padEnd(3000, ' ');
    const { answer } = trickle(server.api, {
      path: '/auth/login',
      headers: { 'Content-Type': 'application/json' },
      declared: json.length,
      first: 1000,
      trickle: 1000,
      everyMs: 200,
      fill: json,
    });
    expect((await answer).status).to.equal(401);
  });
});

describe('HTTP: slow bodies per client address (SLOW_BODIES_PER_CLIENT, after TRUST_PROXY)', function () {
  this.timeout(30_000);
  let server: TestServer;
  before(async () => {
    server = await startTestServer({
      TRUST_PROXY: '1',
      UPLOAD_IDLE_TIMEOUT_SECONDS: '5',
      UPLOAD_MIN_BYTES_PER_SECOND: '0',
      SLOW_BODY_AFTER_SECONDS: '1',
      SLOW_BODIES_PER_CLIENT: '2',
    });
  });
  after(async () => {
    await server.stop();
    expect(server.internalErrors).to.deep.equal([]);
  });

  const slowLogin = (from: string, fill: string) =>
    trickle(server.api, {
      path: '/auth/login',
      headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': from },
      declared: fill.length,
      first: 1,
      trickle: 1,
      everyMs: 50,
      fill,
    });
  const loginJson = JSON.stringify({ email: 'slow@example.com', password: 'wrong password' }).padEnd(60, ' ');

  it('answers 429 TOO_MANY_SLOW_BODIES to the third slow body of one address while two are under way; another address and a fast body go on', async () => {
    const first = slowLogin('203.0.113.1', loginJson);
    const second = slowLogin('203.0.113.1', loginJson);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const third = slowLogin('203.0.113.1', loginJson);
    const elsewhere = slowLogin('198.51.100.7', loginJson);
    const refused = await third.answer;
    expect(refused.status, JSON.stringify(refused.body)).to.equal(429);
    expect(refused.body.code).to.equal('TOO_MANY_SLOW_BODIES');
    expect(refused.body.details).to.deep.equal({ slow_bodies_per_client: 2 });
    // A body that arrives at once never counts as slow.
    expect(
      (
        await call(server.api, '/auth/login', {
          method: 'POST',
          json: { email: 'slow@example.com', password: 'x' },
          headers: { 'x-forwarded-for': '203.0.113.1' },
        })
      ).status,
    ).to.equal(401);
    for (const ongoing of [first, second, elsewhere]) expect((await ongoing.answer).status).to.equal(401);
    // Their places were given back: the address may send a slow body again.
    expect((await slowLogin('203.0.113.1', loginJson).answer).status).to.equal(401);
  });
});
