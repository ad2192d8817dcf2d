import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlibConstants, gzip } from 'node:zlib';
import type { Middleware } from 'koa';

/** Where `npm run build` puts the dashboard (vite build of apps/dashboard), relative to this compiled file. */
export const DEFAULT_DASHBOARD_DIR = fileURLToPath(new URL('../../dashboard/', import.meta.url));

/** Options of the dashboard's static files. */
export interface DashboardStaticOptions {
  /** Directory holding `index.html` and `assets/` (default: dist/dashboard). */
  root?: string;
  /** {cdn_url}: thumbnails and previews are images from the content origin. */
  publicContentUrl: string;
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.webp': 'image/webp',
  '.woff2': 'font/woff2',
  '.json': 'application/json; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
};

/** Hashed file names (Vite's `name-<hash>.ext`) never change: cache them for a year. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** One safe file name under /assets/: no slashes, no leading dot, so no way out of the directory. */
const ASSET_PATH = /^\/assets\/([A-Za-z0-9_-][A-Za-z0-9._-]*)$/;

/**
 * The dashboard's Content-Security-Policy: everything from this origin only, no inline script or
 * style, images also from the content origin (thumbnails), API calls to this origin only.
 */
export function dashboardCsp(publicContentUrl: string): string {
  const content = new URL(publicContentUrl).origin;
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    `img-src 'self' ${content} blob:`,
    "connect-src 'self'",
    "font-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** Types worth compressing (text); images and fonts are compressed already. */
const COMPRESSIBLE = new Set(['.js', '.css', '.svg', '.json', '.html']);
/** Files above this many bytes are sent as they are, streamed (the dashboard's largest is ~60 KiB). */
const MAX_COMPRESSED_SOURCE_BYTES = 4 * 1024 * 1024;
const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/** A compressed copy of a file, made once per file version and kept in memory. */
interface Encoded {
  body: Buffer;
  etag: string;
}

interface Entry {
  size: number;
  mtimeMs: number;
  etag: string;
  /** Brotli and gzip copies when the type is compressible, smaller than the file, and built. */
  encodings?: Promise<{ br?: Encoded; gzip?: Encoded }>;
}

/**
 * Serves the dashboard: `GET /` (and `/index.html`) answers index.html with `Cache-Control: no-cache`,
 * `GET /assets/<name>` a built file with `immutable`; both with a strong ETag (SHA-256 of the bytes,
 * recomputed when the file changes) and 304 for a matching `If-None-Match`. Text files (JS, CSS,
 * HTML, SVG, JSON) go out brotli- or gzip-compressed when `Accept-Encoding` allows it (RFC 9110
 * §12.5.3; brotli preferred), compressed once per file version and kept in memory (each process
 * compresses its own copy of the same bytes), with `Vary: Accept-Encoding` and an ETag per encoding
 * (`"<hash>-br"`, RFC 9110 §8.8.3: a strong validator names one representation); other files are
 * streamed as they are. Every other path goes to the next middleware (the API). Runs after any
 * header middleware so its CSP wins.
 */
export function dashboardStatic(options: DashboardStaticOptions): Middleware {
  const root = path.resolve(options.root ?? DEFAULT_DASHBOARD_DIR);
  const csp = dashboardCsp(options.publicContentUrl);
  const entries = new Map<string, Entry>();

  const describe = async (file: string): Promise<Entry | undefined> => {
    const info = await stat(file).catch(() => undefined);
    if (!info?.isFile()) return undefined;
    const known = entries.get(file);
    if (known && known.size === info.size && known.mtimeMs === info.mtimeMs) return known;
    const hash = createHash('sha256');
    for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
    const entry: Entry = { size: info.size, mtimeMs: info.mtimeMs, etag: `"${hash.digest('base64url').slice(0, 32)}"` };
    entries.set(file, entry);
    return entry;
  };

  /** The entry's compressed copies, made on first use; a failure (the file replaced meanwhile) leaves only the plain file. */
  const encodingsOf = (file: string, entry: Entry): Promise<{ br?: Encoded; gzip?: Encoded }> => {
    if (!COMPRESSIBLE.has(path.extname(file)) || entry.size > MAX_COMPRESSED_SOURCE_BYTES) return Promise.resolve({});
    entry.encodings ??= (async () => {
      const bytes = await readFile(file);
      if (bytes.length !== entry.size) return {};
      const tag = (suffix: string) => `${entry.etag.slice(0, -1)}-${suffix}"`;
      const [br, gz] = await Promise.all([
        brotli(bytes, { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 11, [zlibConstants.BROTLI_PARAM_SIZE_HINT]: bytes.length } }),
        gzipAsync(bytes, { level: 9 }),
      ]);
      return {
        ...(br.length < bytes.length ? { br: { body: br, etag: tag('br') } } : {}),
        ...(gz.length < bytes.length ? { gzip: { body: gz, etag: tag('gzip') } } : {}),
      };
    })().catch(() => ({}));
    return entry.encodings;
  };

  return async (ctx, next) => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    let file: string;
    let cacheControl: string;
    if (ctx.path === '/' || ctx.path === '/index.html') {
      file = path.join(root, 'index.html');
      cacheControl = 'no-cache';
    } else {
      const match = ASSET_PATH.exec(ctx.path);
      if (!match) return next();
      file = path.join(root, 'assets', match[1]);
      // Belt and braces: the pattern already keeps the name inside assets/.
      if (path.dirname(file) !== path.join(root, 'assets')) return next();
      cacheControl = IMMUTABLE;
    }
    const entry = await describe(file);
    if (!entry) {
      if (cacheControl === IMMUTABLE) return next();
      ctx.status = 404;
      ctx.type = 'text/plain; charset=utf-8';
      ctx.set('Cache-Control', 'no-store');
      ctx.body = 'The dashboard is not built: run `npm run build` (or `npm start`), then reload.\n';
      return;
    }
    ctx.set('Content-Security-Policy', csp);
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.set('X-Frame-Options', 'DENY');
    ctx.set('Cache-Control', cacheControl);
    ctx.type = TYPES[path.extname(file)] ?? 'application/octet-stream';
    const encodings = await encodingsOf(file, entry);
    const offered = [encodings.br && 'br', encodings.gzip && 'gzip'].filter((e): e is string => typeof e === 'string');
    if (offered.length > 0) ctx.vary('Accept-Encoding');
    // Brotli first when the client takes it at least as gladly as the plain file, whatever the header's order.
    const chosen = (['br', 'gzip'] as const).find((name) => encodings[name] && ctx.acceptsEncodings(name, 'identity') === name);
    const encoded = chosen ? encodings[chosen] : undefined;
    ctx.set('ETag', encoded?.etag ?? entry.etag);
    // Koa judges freshness only for a 2xx status.
    ctx.status = 200;
    if (ctx.fresh) {
      ctx.status = 304;
      return;
    }
    if (encoded) {
      ctx.set('Content-Encoding', chosen!);
      // HEAD too: Koa sends the length and no body.
      ctx.body = encoded.body;
      return;
    }
    ctx.length = entry.size;
    // HEAD: Koa sends the headers only; no stream is opened.
    if (ctx.method === 'GET') ctx.body = createReadStream(file);
  };
}
