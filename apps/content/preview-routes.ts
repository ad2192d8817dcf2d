import { Type } from '@sinclair/typebox';
import type { Context } from 'koa';
import type { Hangar } from '../../core/hangar.js';
import type { FilePreview } from '../../core/files/preview-public-file.js';
import { fileNotFound } from '../../core/files/get-file.js';
import { DomainError } from '../../core/shared/errors.js';
import { ErrorBody } from '../http/error-body.js';
import { escapeHtml, formatBytes } from '../http/html.js';
import { defineRoute, HTML, type Route } from '../http/route.js';

/**
 * How long a preview page or oEmbed answer may be cached, in seconds: short, because a file can
 * turn private or be deleted, and a preview must then stop showing it soon.
 */
export const PREVIEW_MAX_AGE_SECONDS = 300;

/**
 * The preview page's Content-Security-Policy: no script at all (`script-src` falls back to
 * `default-src 'none'`), the file's image or media from this origin only, its inline style, no form,
 * no `<base>`, never framed (CSP Level 3).
 */
export const PREVIEW_CSP =
  "default-src 'none'; img-src 'self'; media-src 'self'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** What a file is shown as: an image, a video, an audio file, or a plain link. */
type PreviewKind = 'image' | 'video' | 'audio' | 'link';

function kindOf(contentType: string): PreviewKind {
  const type = contentType.split(';')[0].trim().toLowerCase();
  if (type.startsWith('image/')) return 'image';
  if (type.startsWith('video/')) return 'video';
  if (type.startsWith('audio/')) return 'audio';
  return 'link';
}

/** The addresses and texts a preview is made of, from the file, its base and its media facts. */
function describe({ file, base, media }: FilePreview) {
  const id = encodeURIComponent(file.fileId);
  const contentType = file.contentType || 'application/octet-stream';
  return {
    name: file.name ?? file.fileId,
    contentType,
    kind: kindOf(contentType),
    description: `${formatBytes(file.size)} · ${contentType}`,
    base,
    viewUrl: `${base}/v/${id}`,
    rawUrl: `${base}/m/${id}`,
    // The page's own image, player and links are relative: the page may be asked on any of the
    // content server's hosts, and its CSP allows media from that origin only ('self').
    rawPath: `/m/${id}`,
    downloadPath: `/d/${id}`,
    oembedUrl: `${base}/oembed?url=${encodeURIComponent(`${base}/v/${id}`)}&format=json`,
    secure: base.startsWith('https://'),
    // Both sides or neither: a tag or attribute with one side only helps no reader.
    size: media.width !== null && media.height !== null ? { width: media.width, height: media.height } : undefined,
  };
}

/** One `<meta>` tag; `property` for OpenGraph (`og:`), `name` for Twitter cards, as their crawlers read them. */
function meta(attribute: 'property' | 'name', key: string, value: string): string {
  return `<meta ${attribute}="${escapeHtml(key)}" content="${escapeHtml(value)}">`;
}

/**
 * The preview page: OpenGraph (https://ogp.me) and Twitter card tags, the oEmbed discovery link
 * (oEmbed 1.0 §4), and for people the image, a `<video>`/`<audio>` player or a link, with links to the
 * raw file and the download. No script; every text from the file is escaped.
 */
function previewPage(preview: FilePreview): string {
  const p = describe(preview);
  const tags = [
    meta('property', 'og:site_name', 'Hangar'),
    meta('property', 'og:type', p.kind === 'video' ? 'video.other' : 'website'),
    meta('property', 'og:title', p.name),
    meta('property', 'og:description', p.description),
    meta('property', 'og:url', p.viewUrl),
  ];
  if (p.kind === 'image') {
    tags.push(meta('property', 'og:image', p.rawUrl));
    if (p.secure) tags.push(meta('property', 'og:image:secure_url', p.rawUrl));
    tags.push(meta('property', 'og:image:type', p.contentType), meta('property', 'og:image:alt', p.name));
    if (p.size) tags.push(meta('property', 'og:image:width', String(p.size.width)), meta('property', 'og:image:height', String(p.size.height)));
  } else if (p.kind === 'video' || p.kind === 'audio') {
    const prefix = p.kind === 'video' ? 'og:video' : 'og:audio';
    tags.push(meta('property', prefix, p.rawUrl));
    if (p.secure) tags.push(meta('property', `${prefix}:secure_url`, p.rawUrl));
    tags.push(meta('property', `${prefix}:type`, p.contentType));
    if (p.kind === 'video' && p.size)
      tags.push(meta('property', 'og:video:width', String(p.size.width)), meta('property', 'og:video:height', String(p.size.height)));
  }
  tags.push(
    meta('name', 'twitter:card', p.kind === 'image' ? 'summary_large_image' : 'summary'),
    meta('name', 'twitter:title', p.name),
    meta('name', 'twitter:description', p.description),
  );
  if (p.kind === 'image') tags.push(meta('name', 'twitter:image', p.rawUrl), meta('name', 'twitter:image:alt', p.name));
  // Known dimensions reserve the element's box before the bytes arrive (no layout shift).
  const box = p.size ? ` width="${p.size.width}" height="${p.size.height}"` : '';
  const media =
    p.kind === 'image'
      ? `<img src="${escapeHtml(p.rawPath)}" alt="${escapeHtml(p.name)}"${box}>`
      : p.kind === 'video'
        ? `<video src="${escapeHtml(p.rawPath)}" controls preload="metadata"${box}></video>`
        : p.kind === 'audio'
          ? `<audio src="${escapeHtml(p.rawPath)}" controls preload="metadata"></audio>`
          : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(p.name)}</title>
${tags.join('\n')}
<link rel="alternate" type="application/json+oembed" href="${escapeHtml(p.oembedUrl)}" title="${escapeHtml(p.name)}">
<link rel="canonical" href="${escapeHtml(p.viewUrl)}">
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1d1d1f}img,video{max-width:100%;height:auto;display:block;margin:1rem 0}audio{width:100%}h1{font-size:1.25rem;overflow-wrap:anywhere}</style>
</head><body><main>
<h1>${escapeHtml(p.name)}</h1>
${media}
<p>${escapeHtml(p.description)} · <a href="${escapeHtml(p.rawPath)}">Open</a> · <a href="${escapeHtml(p.downloadPath)}" download>Download</a></p>
</main></body></html>
`;
}

/**
 * The oEmbed answer for a file (oEmbed 1.0 §2.3.4): `photo` for an image (`url` its raw address),
 * `video` for a video (`html` a `<video>` element), `link` otherwise. `width`/`height` (pixels, as
 * shown) come from the file's media facts when both are known (docs/media.md), and are left out
 * otherwise (before its facts are computed, or for a video whose container does not say).
 */
function oembedJson(preview: FilePreview) {
  const p = describe(preview);
  const common = { version: '1.0' as const, title: p.name, provider_name: 'Hangar', provider_url: p.base, cache_age: PREVIEW_MAX_AGE_SECONDS };
  const size = p.size ? { width: p.size.width, height: p.size.height } : {};
  const box = p.size ? ` width="${p.size.width}" height="${p.size.height}"` : '';
  if (p.kind === 'image') return { ...common, type: 'photo' as const, url: p.rawUrl, ...size };
  if (p.kind === 'video')
    return { ...common, type: 'video' as const, html: `<video src="${escapeHtml(p.rawUrl)}" controls preload="metadata"${box}></video>`, ...size };
  return { ...common, type: 'link' as const };
}

const PreviewParams = Type.Object({ id: Type.String({ description: 'The file’s `file_id`', maxLength: 64 }) });
const OEmbedQuery = Type.Object({
  url: Type.String({
    description: 'A file’s preview page (`/v/<file_id>`) or view / download address (`/m/…`, `/d/…`) on this server or an account’s custom hostname',
    maxLength: 2048,
  }),
  format: Type.Optional(
    Type.String({ description: 'Only `json` is offered; any other format is 501 `FORMAT_NOT_IMPLEMENTED` (oEmbed 1.0 §2.3.3)', maxLength: 32 }),
  ),
  maxwidth: Type.Optional(Type.String({ description: 'Accepted and ignored: the file is offered at its own size' })),
  maxheight: Type.Optional(Type.String({ description: 'Accepted and ignored: the file is offered at its own size' })),
});
export const OEmbedBody = Type.Object(
  {
    version: Type.Literal('1.0'),
    type: Type.Union([Type.Literal('photo'), Type.Literal('video'), Type.Literal('link')], {
      description: '`photo` for images, `video` for videos, `link` for any other file',
    }),
    title: Type.String({ description: 'The file’s name (its `file_id` when it has none)' }),
    provider_name: Type.String(),
    provider_url: Type.String(),
    cache_age: Type.Integer({ description: 'Seconds the answer may be cached' }),
    url: Type.Optional(Type.String({ description: '`photo`: the image’s view address' })),
    html: Type.Optional(Type.String({ description: '`video`: a `<video>` element playing the view address' })),
    width: Type.Optional(Type.Integer({ description: '`photo`, `video`: pixels, as shown (after the EXIF orientation), when known' })),
    height: Type.Optional(Type.Integer({ description: '`photo`, `video`: pixels, as shown, when known' })),
  },
  { $id: 'OEmbed' },
);

/** A file id from a preview, view or download address's path, or undefined for any other path. */
function fileIdOf(url: URL): string | undefined {
  const match = /^\/(?:v|m|d)\/([^/]+)$/.exec(url.pathname);
  if (!match) return undefined;
  try {
    return decodeURIComponent(match[1]);
  } catch {
    return undefined;
  }
}

/** Public, short-lived caching and the page-wide security headers of a preview answer. */
function previewHeaders(ctx: Context): void {
  ctx.set('Cache-Control', `public, max-age=${PREVIEW_MAX_AGE_SECONDS}`);
  ctx.set('Referrer-Policy', 'no-referrer');
}

/**
 * Link previews on the content origin (docs/media.md, "Link previews"): `/v/:id`, an HTML page chat
 * apps read OpenGraph and Twitter card tags from, and `/oembed`, its oEmbed endpoint. A file is found
 * exactly as `/m` finds it (PreviewPublicFile), on the content URL and on custom hostnames alike.
 */
export function previewRoutes(hangar: Hangar): Route[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/v/:id',
      operationId: 'previewFile',
      tag: 'content',
      auth: 'none',
      server: 'content',
      alsoHead: true,
      summary: 'A public file’s link preview page (OpenGraph, Twitter card, oEmbed discovery)',
      description:
        'An HTML page with no script (`Content-Security-Policy` without `script-src`): `og:title` the file’s name, `og:description` its size and type, ' +
        '`og:image` (images) or `og:video` / `og:audio` with their type (and `:width` / `:height` when known), Twitter card tags, and a `<link rel="alternate" type="application/json+oembed">`. ' +
        'Private, missing, expired and suspended-account files are 404 as on the view address; reading the page counts no read.',
      errorCodes: ['FILE_NOT_FOUND'],
      params: PreviewParams,
      responses: { 200: HTML, 404: ErrorBody },
      handler: async ({ ctx, params }) => {
        const preview = await hangar.previewPublicFile.execute({ fileId: params.id, host: ctx.hostname.toLowerCase() || undefined });
        ctx.status = 200;
        ctx.type = 'text/html; charset=utf-8';
        ctx.set('Content-Security-Policy', PREVIEW_CSP);
        previewHeaders(ctx);
        ctx.body = previewPage(preview);
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/oembed',
      operationId: 'oembed',
      tag: 'content',
      auth: 'none',
      server: 'content',
      summary: 'oEmbed for a public file’s address',
      description:
        'oEmbed 1.0 JSON for `url`, a file’s `/v`, `/m` or `/d` address: `photo` for images, `video` (an HTML `<video>`) for videos, `link` otherwise. ' +
        '`width`/`height` when the file’s dimensions are known. A URL that is not a public file’s address on that host is 404 `FILE_NOT_FOUND`; ' +
        'a `format` other than `json` is 501 `FORMAT_NOT_IMPLEMENTED`.',
      errorCodes: ['FILE_NOT_FOUND', 'FORMAT_NOT_IMPLEMENTED'],
      query: OEmbedQuery,
      responses: { 200: OEmbedBody, 400: ErrorBody, 404: ErrorBody, 501: ErrorBody },
      handler: async ({ ctx, query }) => {
        // oEmbed 1.0 §2.3.3: a format the provider does not offer is 501 Not Implemented.
        if (query.format !== undefined && query.format !== 'json') throw new DomainError('FORMAT_NOT_IMPLEMENTED', 'Only format=json is offered.');
        let url: URL;
        try {
          url = new URL(query.url);
        } catch {
          throw fileNotFound();
        }
        const fileId = url.protocol === 'http:' || url.protocol === 'https:' ? fileIdOf(url) : undefined;
        if (fileId === undefined) throw fileNotFound();
        const preview = await hangar.previewPublicFile.execute({ fileId, host: url.hostname.toLowerCase() || undefined });
        ctx.status = 200;
        previewHeaders(ctx);
        ctx.body = oembedJson(preview);
      },
    }),
  ];
}
