import { expect } from 'chai';
import Koa from 'koa';
import { once } from 'node:events';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { dashboardCsp, dashboardStatic } from '../../apps/api/dashboard-static.js';

// The dashboard's static files over a real socket: caching, ETags, CSP, and no way out of the directory.

describe('Dashboard static files', () => {
  let root: string;
  let server: Server;
  let base: string;
  const INDEX = '<!doctype html><title>Hangar</title><script type="module" src="/assets/index-AbC123.js"></script>';

  const start = async (dir: string) => {
    const app = new Koa();
    app.use(async (ctx, next) => {
      // Stands in for koa-helmet, applied before: the dashboard's own CSP must win.
      ctx.set('Content-Security-Policy', "default-src 'none'");
      await next();
    });
    app.use(dashboardStatic({ root: dir, publicContentUrl: 'http://cdn.hangar.test:3001' }));
    app.use((ctx) => {
      ctx.status = 404;
      ctx.body = { code: 'NOT_FOUND' };
    });
    const listening = app.listen(0, '127.0.0.1');
    await once(listening, 'listening');
    return { listening, url: `http://127.0.0.1:${(listening.address() as AddressInfo).port}` };
  };

  /** A conditional GET as a browser revalidating its cache sends it (fetch adds `Cache-Control: no-cache`). */
  const revalidate = (url: string, etag: string) =>
    new Promise<{ status: number; etag: string | undefined }>((resolve, reject) => {
      request(url, { headers: { 'if-none-match': etag } }, (response) => {
        response.resume();
        response.on('end', () => resolve({ status: response.statusCode!, etag: response.headers.etag }));
      })
        .on('error', reject)
        .end();
    });

  /** A raw GET (no automatic decompression): status, headers and the bytes as sent. */
  const raw = (url: string, headers: Record<string, string> = {}) =>
    new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }>((resolve, reject) => {
      request(url, { headers }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks) }));
      })
        .on('error', reject)
        .end();
    });
  const BUNDLE = Array.from({ length: 400 }, (_, i) => `export function component${i}() { return document.querySelector('.hangar-${i}'); }`).join('\n');

  before(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'hangar-dashboard-'));
    await mkdir(path.join(root, 'assets'));
    await writeFile(path.join(root, 'index.html'), INDEX);
    await writeFile(path.join(root, 'assets', 'index-AbC123.js'), 'console.log("hangar")');
    await writeFile(path.join(root, 'assets', 'index-XyZ789.css'), 'body{margin:0}');
    await writeFile(path.join(root, 'assets', 'app-Big123.js'), BUNDLE);
    await writeFile(path.join(root, 'assets', 'logo-Png123.png'), Buffer.alloc(4096, 7));
    await writeFile(path.join(root, 'secret.txt'), 'not for you');
    ({ listening: server, url: base } = await start(root));
  });
  after(async () => {
    server.close();
    await rm(root, { recursive: true, force: true });
  });

  it('serves index.html at / with no-cache, a strong ETag and the strict CSP overriding earlier headers', async () => {
    const response = await fetch(`${base}/`);
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.equal('text/html; charset=utf-8');
    expect(response.headers.get('cache-control')).to.equal('no-cache');
    expect(response.headers.get('etag')).to.match(/^"[\w-]{32}"$/);
    expect(response.headers.get('content-security-policy')).to.equal(dashboardCsp('http://cdn.hangar.test:3001'));
    expect(response.headers.get('content-security-policy')).to.include("img-src 'self' http://cdn.hangar.test:3001 blob:").and.not.include('unsafe');
    expect(await response.text()).to.equal(INDEX);
    expect((await fetch(`${base}/index.html`)).status).to.equal(200);
  });

  it('answers 304 to a matching If-None-Match, and a new ETag once the file changes', async () => {
    const first = await fetch(`${base}/`);
    const etag = first.headers.get('etag')!;
    expect((await revalidate(`${base}/`, etag)).status).to.equal(304);
    await writeFile(path.join(root, 'index.html'), `${INDEX}<!-- rebuilt -->`);
    const rebuilt = await revalidate(`${base}/`, etag);
    expect(rebuilt.status).to.equal(200);
    expect(rebuilt.etag).to.be.a('string').and.not.equal(etag);
    await writeFile(path.join(root, 'index.html'), INDEX);
  });

  it('serves hashed assets as immutable for a year with their type; HEAD sends headers only', async () => {
    const script = await fetch(`${base}/assets/index-AbC123.js`);
    expect(script.status).to.equal(200);
    expect(script.headers.get('cache-control')).to.equal('public, max-age=31536000, immutable');
    expect(script.headers.get('content-type')).to.equal('text/javascript; charset=utf-8');
    expect(await script.text()).to.equal('console.log("hangar")');
    const style = await fetch(`${base}/assets/index-XyZ789.css`, { method: 'HEAD' });
    expect(style.headers.get('content-type')).to.equal('text/css; charset=utf-8');
    expect(style.headers.get('content-length')).to.equal('14');
    expect(await style.text()).to.equal('');
  });

  it('sends text assets brotli- or gzip-compressed as Accept-Encoding allows, with Vary and an ETag per encoding; images as they are', async () => {
    const url = `${base}/assets/app-Big123.js`;
    const br = await raw(url, { 'accept-encoding': 'gzip, deflate, br' });
    expect(br.headers['content-encoding']).to.equal('br');
    expect(br.headers.vary).to.match(/accept-encoding/i);
    expect(br.headers['cache-control']).to.equal('public, max-age=31536000, immutable');
    expect(Number(br.headers['content-length']))
      .to.equal(br.body.length)
      .and.be.below(BUNDLE.length / 4);
    expect(brotliDecompressSync(br.body).toString()).to.equal(BUNDLE);

    const gz = await raw(url, { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).to.equal('gzip');
    expect(gunzipSync(gz.body).toString()).to.equal(BUNDLE);

    const plain = await raw(url);
    expect(plain.headers['content-encoding']).to.equal(undefined);
    expect(plain.headers.vary).to.match(/accept-encoding/i);
    expect(plain.body.toString()).to.equal(BUNDLE);
    const refused = await raw(url, { 'accept-encoding': 'br;q=0, gzip;q=0' });
    expect(refused.headers['content-encoding']).to.equal(undefined);

    const etags = new Set([br.headers.etag, gz.headers.etag, plain.headers.etag]);
    expect(etags.size, 'one strong ETag per representation').to.equal(3);
    expect((await raw(url, { 'accept-encoding': 'br', 'if-none-match': br.headers.etag as string })).status).to.equal(304);
    expect(
      (await raw(url, { 'accept-encoding': 'gzip', 'if-none-match': br.headers.etag as string })).status,
      'the brotli ETag does not validate the gzip copy',
    ).to.equal(200);

    const index = await raw(`${base}/`, { 'accept-encoding': 'br' });
    expect(index.headers['cache-control']).to.equal('no-cache');
    expect(index.headers['content-encoding']).to.equal('br');
    expect(brotliDecompressSync(index.body).toString()).to.equal(INDEX);

    // Images are compressed already: sent as they are, with no Vary.
    const png = await raw(`${base}/assets/logo-Png123.png`, { 'accept-encoding': 'gzip, br' });
    expect(png.headers['content-encoding']).to.equal(undefined);
    expect(png.headers.vary).to.equal(undefined);
    expect(png.body.length).to.equal(4096);
  });

  it('refuses path traversal and hidden or missing files, leaving them to the API (404)', async () => {
    for (const probe of [
      '/assets/../secret.txt',
      '/assets/..%2fsecret.txt',
      '/assets/%2e%2e/secret.txt',
      '/assets/.hidden',
      '/assets/nope-123.js',
      '/assets/',
      '/secret.txt',
      '/assets/a/../../secret.txt',
    ]) {
      const response = await fetch(base + probe);
      expect(response.status, probe).to.equal(404);
      expect(await response.text(), probe).not.to.include('not for you');
    }
  });

  it('leaves other methods and paths to the API', async () => {
    expect((await fetch(`${base}/`, { method: 'POST' })).status).to.equal(404);
    expect(await (await fetch(`${base}/files`)).json()).to.deep.equal({ code: 'NOT_FOUND' });
  });

  it('says how to build the dashboard when it is not built', async () => {
    const empty = await mkdtemp(path.join(tmpdir(), 'hangar-dashboard-empty-'));
    const bare = await start(empty);
    try {
      const response = await fetch(`${bare.url}/`);
      expect(response.status).to.equal(404);
      expect(await response.text()).to.include('npm run build');
    } finally {
      bare.listening.close();
      await rm(empty, { recursive: true, force: true });
    }
  });
});
