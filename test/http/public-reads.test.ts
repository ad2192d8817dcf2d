import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { MemoryLogger } from '../../adapters/logging/memory-logger.js';
import { contentOriginHeaders, createContentApp } from '../../apps/content/content-app.js';
import { publicReadsFirst } from '../../apps/content/public-reads.js';
import { Readiness } from '../../apps/http/health.js';
import { makePng, randomFileOf } from '../support/bytes.js';
import { call, localDiskIt, signUpWithKey, startTestServer, type TestServer, upload } from '../support/http-harness.js';

/** One answer as a client sees it: status, headers (minus the connection's own), body bytes. */
interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** Headers that differ between two servers for reasons other than the answer: the time and the connection. */
const PER_CONNECTION = new Set(['date', 'connection', 'keep-alive']);

function request(base: string, method: string, pathname: string, headers: Record<string, string>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}${pathname}`, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const kept = Object.fromEntries(Object.entries(res.headers).filter(([name]) => !PER_CONNECTION.has(name)));
        resolve({ status: res.statusCode!, headers: kept, body: Buffer.concat(chunks) });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

async function listen(
  listener: (req: http.IncomingMessage, res: http.ServerResponse) => void | Promise<void>,
): Promise<{ url: string; close: () => Promise<void> }> {
  // Koa's callback answers every error itself: its promise never rejects.
  const server = http.createServer((req, res) => void listener(req, res));
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/**
 * The content server answers plain public reads without its Koa app (apps/content/public-reads.ts).
 * Here both run side by side over one Hangar: the app alone, and the app behind `publicReadsFirst`.
 * Every answer, access-log entry and count must be the same; and only the requests that are not
 * plain reads may reach the app behind `publicReadsFirst`.
 */
describe('HTTP: plain public reads answered before the content app', function () {
  this.timeout(60_000);
  let server: TestServer;
  let apiKey: string;
  const files: Record<string, string> = {};
  const opened: { close: () => Promise<void> }[] = [];

  before(async () => {
    server = await startTestServer();
    ({ apiKey } = await signUpWithKey(server, 'plain-reads@example.com'));
    const uploads: [string, Uint8Array, string, string | undefined][] = [
      ['png', makePng(), 'image/png', 'résumé "final"\\draft.png'],
      ['unnamed', makePng(3, 5), 'image/png', undefined],
      ['svg', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'), 'image/svg+xml', 'pic.svg'],
      ['text', Buffer.from('plain words\n'), 'text/plain', 'notes.txt'],
      ['large', randomFileOf(700 * 1024, 'video/mp4', 4), 'video/mp4', 'clip.mp4'],
      ['private', makePng(4, 4), 'image/png', 'hidden.png'],
      ['gone', randomFileOf(300 * 1024, 'video/mp4', 5), 'video/mp4', 'gone.mp4'],
    ];
    for (const [label, bytes, contentType, name] of uploads) {
      const result = await upload(server, apiKey, bytes, { contentType, name });
      expect(result.status, JSON.stringify(result.body)).to.equal(201);
      files[label] = result.body.file.file_id;
    }
    expect((await call(server.api, `/files/${files.private}`, { method: 'PATCH', apiKey, json: { is_public: false } })).status).to.equal(200);
    // A custom domain, verified (the mock edge provider activates it on refresh).
    await call(server.api, '/settings', { method: 'PATCH', apiKey, json: { custom_domain: 'files.example.com' } });
    const refreshed = await call(server.api, '/settings', { method: 'PATCH', apiKey, json: { refresh_custom_domain: true } });
    expect(refreshed.body.custom_domain).to.include({ verification_status: 'active' });
  });
  after(async () => {
    for (const one of opened) await one.close();
    await server.stop();
  });

  /** The two listeners over the server's Hangar, each with its own log; `appCalls` counts what reached the app behind publicReadsFirst. */
  async function pair(hsts: boolean) {
    const hangar = server.running.hangar;
    const operational = { readiness: new Readiness(), build: { version: 'test', commit: null, dirty: null, built_at: null } };
    const appLog = new MemoryLogger();
    const firstLog = new MemoryLogger();
    const alone = createContentApp(hangar, { logger: appLog, operational, hsts }).callback();
    const behind = createContentApp(hangar, { logger: firstLog, operational, hsts }).callback();
    const counter = { appCalls: 0 };
    const first = publicReadsFirst(
      hangar,
      (req, res) => {
        counter.appCalls += 1;
        // Koa's callback answers every error itself: its promise never rejects.
        void behind(req, res);
      },
      { logger: firstLog, originHeaders: contentOriginHeaders({ hsts }) },
    );
    const [appServer, firstServer] = await Promise.all([listen(alone), listen(first)]);
    opened.push(appServer, firstServer);
    return { app: appServer.url, first: firstServer.url, appLog, firstLog, counter };
  }

  /** The last access-log entry of `log`, without the duration. */
  function lastRequest(log: MemoryLogger) {
    const entry = [...log.entries].reverse().find((one) => one.event === 'request');
    const { duration_ms: _duration, ...rest } = entry!.fields as Record<string, unknown>;
    return { level: entry!.level, ...rest } as Record<string, unknown>;
  }

  async function usage() {
    const result = await call(server.api, '/usage', { apiKey });
    return result.body.origin_reads as number;
  }

  async function counts(fileId: string) {
    const result = await call(server.api, `/files/${fileId}`, { apiKey });
    return { views: result.body.view_count as number, downloads: result.body.download_count as number };
  }

  /** Sends the same request to both; expects the same answer and log entry, and whether the app behind was needed. */
  async function same(servers: Awaited<ReturnType<typeof pair>>, method: string, pathname: string, headers: Record<string, string>, plain: boolean) {
    const withId = { 'x-request-id': `req-${Math.random().toString(36).slice(2)}`, ...headers };
    const callsBefore = servers.counter.appCalls;
    const fromApp = await request(servers.app, method, pathname, withId);
    const fromFirst = await request(servers.first, method, pathname, withId);
    const label = `${method} ${pathname} ${JSON.stringify(headers)}`;
    // An incoming id that is not well formed is replaced by a new UUID on each side.
    const generated = fromApp.headers['x-request-id'] !== withId['x-request-id'];
    if (generated) {
      for (const answer of [fromApp, fromFirst]) {
        expect(answer.headers['x-request-id'], label).to.match(/^[0-9a-f-]{36}$/);
        delete answer.headers['x-request-id'];
      }
    }
    expect(fromFirst.status, label).to.equal(fromApp.status);
    expect(fromFirst.headers, label).to.deep.equal(fromApp.headers);
    expect(fromFirst.body.equals(fromApp.body), label).to.equal(true);
    expect(servers.counter.appCalls - callsBefore, `${label}: reached the app`).to.equal(plain ? 0 : 1);
    // The log entry is written once the response finished: give the second server's a moment.
    await new Promise((resolve) => setTimeout(resolve, 20));
    const [appEntry, firstEntry] = [lastRequest(servers.appLog), lastRequest(servers.firstLog)];
    if (generated) {
      delete appEntry.request_id;
      delete firstEntry.request_id;
    }
    expect(firstEntry, label).to.deep.equal(appEntry);
    return fromFirst;
  }

  for (const hsts of [false, true]) {
    it(`answers plain reads exactly as the app does (status, headers, body, access log)${hsts ? ', with HSTS' : ''}`, async () => {
      const servers = await pair(hsts);
      const host = { host: 'cdn.hangar.test' };
      for (const label of ['png', 'unnamed', 'svg', 'text', 'large']) {
        for (const method of ['GET', 'HEAD']) {
          for (const address of ['m', 'd']) {
            const answer = await same(servers, method, `/${address}/${files[label]}`, host, true);
            expect(answer.status).to.equal(200);
          }
        }
      }
      // The stored name with quotes, a backslash and non-ASCII letters, as the app writes it (RFC 6266).
      const named = await same(servers, 'GET', `/d/${files.png}`, host, true);
      expect(named.headers['content-disposition']).to.contain("filename*=UTF-8''r%C3%A9sum%C3%A9%20%22final%22%5Cdraft.png");
      expect((await same(servers, 'GET', `/m/${files.text}`, host, true)).headers['content-type']).to.equal('text/plain; charset=utf-8');
      expect((await same(servers, 'GET', `/m/${files.svg}`, host, true)).headers['content-security-policy']).to.contain('sandbox');
      // A host in capitals and with a port, the custom domain, and an id the client sent or not.
      await same(servers, 'GET', `/m/${files.png}`, { host: 'CDN.Hangar.Test:8080' }, true);
      await same(servers, 'GET', `/m/${files.png}`, { host: 'files.example.com' }, true);
      const fresh = await request(servers.first, 'GET', `/m/${files.png}`, host);
      expect(fresh.headers['x-request-id']).to.match(/^[0-9a-f-]{36}$/);
      await same(servers, 'GET', `/m/${files.png}`, { ...host, 'x-request-id': 'bad id with spaces' }, true);
    });
  }

  it('answers the errors of plain reads as the app does: private, unknown, unknown host, another account’s host', async () => {
    const servers = await pair(false);
    const host = { host: 'cdn.hangar.test' };
    for (const method of ['GET', 'HEAD']) {
      const privateAnswer = await same(servers, method, `/m/${files.private}`, host, true);
      expect(privateAnswer.status).to.equal(404);
      await same(servers, method, '/d/AAAAAAAAAA', host, true);
      await same(servers, method, `/m/${files.png}`, { host: 'elsewhere.example.net' }, true);
    }
    const body = JSON.parse((await same(servers, 'GET', `/m/${files.private}`, host, true)).body.toString());
    expect(body).to.include({ code: 'FILE_NOT_FOUND' });
    expect(body.request_id).to.be.a('string');
  });

  it('answers a revalidation as the app does: 304 while the copy is current (If-None-Match first, else If-Modified-Since), else the file', async () => {
    const servers = await pair(false);
    const host = { host: 'cdn.hangar.test' };
    const png = files.png;
    const fresh = await request(servers.app, 'GET', `/m/${png}`, host);
    const etag = fresh.headers.etag as string;
    const lastModified = Date.parse(fresh.headers['last-modified'] as string);
    const later = new Date(lastModified + 60_000).toUTCString();
    const earlier = new Date(lastModified - 60_000).toUTCString();
    const current: Record<string, string>[] = [
      { 'if-none-match': etag },
      { 'if-none-match': `W/${etag}` },
      { 'if-none-match': `"other", ${etag}` },
      { 'if-none-match': '*' },
      { 'if-modified-since': later },
      { 'if-modified-since': new Date(lastModified).toUTCString() },
    ];
    const stale: Record<string, string>[] = [
      { 'if-none-match': '"other"' },
      { 'if-none-match': '"other"', 'if-modified-since': later },
      { 'if-modified-since': earlier },
      { 'if-modified-since': 'not a date' },
    ];
    for (const method of ['GET', 'HEAD']) {
      for (const address of ['m', 'd']) {
        for (const validators of current) expect((await same(servers, method, `/${address}/${png}`, { ...host, ...validators }, true)).status).to.equal(304);
        for (const validators of stale) expect((await same(servers, method, `/${address}/${png}`, { ...host, ...validators }, true)).status).to.equal(200);
      }
    }
    const notModified = await same(servers, 'GET', `/m/${png}`, { ...host, 'if-none-match': etag }, true);
    expect(notModified.body.length).to.equal(0);
    expect(notModified.headers).to.include({ etag });
    expect(notModified.headers).to.not.have.any.keys('content-type', 'content-length');
    // A private or unknown file is 404 whatever the validators.
    expect((await same(servers, 'GET', `/m/${files.private}`, { ...host, 'if-none-match': '*' }, true)).status).to.equal(404);
    await same(servers, 'GET', '/m/AAAAAAAAAA', { ...host, 'if-none-match': '*' }, true);
  });

  it('answers byte ranges as the app does: 206 with Content-Range, 416 outside the file, the whole file for what it ignores', async () => {
    const servers = await pair(false);
    const host = { host: 'cdn.hangar.test' };
    const large = files.large;
    const etag = (await request(servers.app, 'GET', `/m/${large}`, host)).headers.etag as string;
    const size = 700 * 1024;
    const partial = ['bytes=0-9', 'bytes=-5', `bytes=${size - 3}-`, 'bytes=0-0', 'bytes=100000-600000', `bytes=10-${size * 2}`, ` bytes=1-2 `];
    const whole = ['bytes=5-2', 'bytes=0-1,3-4', 'items=0-1', 'bytes=-', 'bytes=a-b'];
    const outside = [`bytes=${size}-`, `bytes=${size * 3}-${size * 4}`, 'bytes=-0'];
    for (const method of ['GET', 'HEAD']) {
      for (const address of ['m', 'd']) {
        for (const range of partial) expect((await same(servers, method, `/${address}/${large}`, { ...host, range }, true)).status, range).to.equal(206);
        for (const range of whole) expect((await same(servers, method, `/${address}/${large}`, { ...host, range }, true)).status, range).to.equal(200);
        for (const range of outside) expect((await same(servers, method, `/${address}/${large}`, { ...host, range }, true)).status, range).to.equal(416);
      }
    }
    const across = await same(servers, 'GET', `/m/${large}`, { ...host, range: 'bytes=100000-600000' }, true);
    expect(across.headers['content-range']).to.equal(`bytes 100000-600000/${size}`);
    expect(across.body.length).to.equal(500001);
    const refused = await same(servers, 'GET', `/m/${large}`, { ...host, range: `bytes=${size}-` }, true);
    expect(refused.headers['content-range']).to.equal(`bytes */${size}`);
    expect(refused.headers).to.not.have.any.keys('cache-control', 'content-disposition');
    expect(JSON.parse(refused.body.toString())).to.include({ code: 'RANGE_NOT_SATISFIABLE' });
    // If-Range: the range while the ETag still matches, else the whole file; a current copy is a 304 first.
    expect((await same(servers, 'GET', `/m/${large}`, { ...host, range: 'bytes=0-9', 'if-range': etag }, true)).status).to.equal(206);
    expect((await same(servers, 'GET', `/m/${large}`, { ...host, range: 'bytes=0-9', 'if-range': '"other"' }, true)).status).to.equal(200);
    expect((await same(servers, 'GET', `/m/${large}`, { ...host, range: 'bytes=0-9', 'if-range': new Date().toUTCString() }, true)).status).to.equal(200);
    expect((await same(servers, 'GET', `/m/${large}`, { ...host, range: 'bytes=0-9', 'if-none-match': etag }, true)).status).to.equal(304);
    expect((await same(servers, 'GET', `/m/${large}`, { ...host, range: `bytes=${size}-`, 'if-none-match': etag }, true)).status).to.equal(304);
    expect((await same(servers, 'GET', `/m/${large}`, { ...host, range: 'bytes=0-9', 'if-none-match': '"other"' }, true)).status).to.equal(206);
    // A small file, a private one and an unknown one.
    expect((await same(servers, 'GET', `/m/${files.text}`, { ...host, range: 'bytes=2-4' }, true)).body.toString()).to.equal('ain');
    expect((await same(servers, 'GET', `/m/${files.private}`, { ...host, range: 'bytes=0-9' }, true)).status).to.equal(404);
    await same(servers, 'GET', '/m/AAAAAAAAAA', { ...host, range: `bytes=${size}-` }, true);
  });

  it('leaves everything else to the app: image parameters, other paths and methods, odd hosts', async () => {
    const servers = await pair(false);
    const host = { host: 'cdn.hangar.test' };
    const png = files.png;
    const etag = (await request(servers.app, 'GET', `/m/${png}`, host)).headers.etag as string;
    // A variant is computed (streamed) the first time and served from the store (with a length) after: compare the second answers.
    await request(servers.app, 'GET', `/m/${png}?w=2`, host);
    await same(servers, 'GET', `/m/${png}?w=2`, host, false);
    await same(servers, 'GET', `/m/${png}?w=2`, { ...host, 'if-none-match': etag }, false);
    await same(servers, 'GET', `/m/${png}?w=2`, { ...host, range: 'bytes=0-9' }, false);
    await same(servers, 'GET', `/d/${png}?x=1`, host, false);
    await same(servers, 'GET', `/m/${png}/`, host, false);
    await same(servers, 'GET', `/m/${png.slice(0, 9)}%${png.charCodeAt(9).toString(16)}`, host, false);
    await same(servers, 'GET', '/m/short', host, false);
    await same(servers, 'POST', `/m/${png}`, host, false);
    await same(servers, 'OPTIONS', `/m/${png}`, host, false);
    await same(servers, 'GET', '/healthz', host, false);
    await same(servers, 'GET', `/m/${png}`, { host: '[::1]:8080' }, false);
    await same(servers, 'GET', `/m/${png}`, { host: 'user@cdn.hangar.test' }, false);
  });

  it('counts each read once: origin_reads and the file’s view and download counts, as the app does', async () => {
    const servers = await pair(false);
    const host = { host: 'cdn.hangar.test' };
    const readsBefore = await usage();
    const before = await counts(files.unnamed);
    await request(servers.first, 'GET', `/m/${files.unnamed}`, host);
    await request(servers.first, 'GET', `/d/${files.unnamed}`, host);
    await request(servers.first, 'HEAD', `/m/${files.unnamed}`, host);
    await request(servers.app, 'GET', `/m/${files.unnamed}`, host);
    // The counts are written in batches (core/files/file-read-counts.ts): wait for them.
    let after = await counts(files.unnamed);
    for (let i = 0; i < 100 && after.views - before.views < 3; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      after = await counts(files.unnamed);
    }
    expect({ views: after.views - before.views, downloads: after.downloads - before.downloads }).to.deep.equal({ views: 3, downloads: 1 });
    let reads = await usage();
    for (let i = 0; i < 100 && reads - readsBefore < 4; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      reads = await usage();
    }
    expect(reads - readsBefore).to.equal(4);
  });

  localDiskIt('answers a blob missing behind its record as the app does (404 to GET), and so does the server the harness started', async () => {
    const servers = await pair(false);
    const entries = await readdir(server.dataDir, { recursive: true });
    const blob = entries.find((entry) => entry.endsWith(`~${files.gone}`));
    expect(blob, 'the blob of a 300 KiB file is a file of the local-disk store').to.be.a('string');
    await rm(path.join(server.dataDir, blob!));
    expect((await same(servers, 'GET', `/m/${files.gone}`, { host: 'cdn.hangar.test' }, true)).status).to.equal(404);
    // HEAD does not open the blob, in the app either.
    expect((await same(servers, 'HEAD', `/m/${files.gone}`, { host: 'cdn.hangar.test' }, true)).status).to.equal(200);
    // The server started by the harness answers through publicReadsFirst: the same answer there.
    const direct = await request(server.content, 'GET', `/m/${files.gone}`, { 'x-request-id': 'direct-1' });
    const fromApp = await request(servers.app, 'GET', `/m/${files.gone}`, { 'x-request-id': 'direct-1', host: new URL(server.content).host });
    expect(direct.status).to.equal(404);
    expect(direct.body.toString()).to.equal(fromApp.body.toString());
  });
});
