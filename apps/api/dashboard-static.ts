import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
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

interface Entry {
  size: number;
  mtimeMs: number;
  etag: string;
}

/**
 * Serves the dashboard: `GET /` (and `/index.html`) answers index.html with `Cache-Control: no-cache`,
 * `GET /assets/<name>` a built file with `immutable`; both streamed, with a strong ETag (SHA-256 of
 * the bytes, recomputed when the file changes) and 304 for a matching `If-None-Match`. Every other
 * path goes to the next middleware (the API). Runs after any header middleware so its CSP wins.
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
    const entry = { size: info.size, mtimeMs: info.mtimeMs, etag: `"${hash.digest('base64url').slice(0, 32)}"` };
    entries.set(file, entry);
    return entry;
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
    ctx.set('ETag', entry.etag);
    ctx.type = TYPES[path.extname(file)] ?? 'application/octet-stream';
    // Koa judges freshness only for a 2xx status.
    ctx.status = 200;
    if (ctx.fresh) {
      ctx.status = 304;
      return;
    }
    ctx.length = entry.size;
    // HEAD: Koa sends the headers only; no stream is opened.
    if (ctx.method === 'GET') ctx.body = createReadStream(file);
  };
}
