import { Type } from '@sinclair/typebox';
import { readPacedText } from '../http/upload-pacing.js';
import type { Context } from 'koa';
import type { Hangar } from '../../core/hangar.js';
import { DomainError, isDomainError } from '../../core/shared/errors.js';
import { ErrorBody } from '../http/error-body.js';
import { renderPage } from '../http/pages.js';
import { escapeHtml as escape } from '../http/html.js';
import { BINARY, defineRoute, HTML, type Route } from '../http/route.js';
import { serveFile } from '../http/serve-file.js';

const ShareParams = Type.Object({ id: Type.String({ description: 'The share id', maxLength: 64 }) });
/** Largest form body of the password form, in bytes (a password is at most 1 KiB, percent-encoded up to 9 KiB). */
const FORM_LIMIT_BYTES = 16 * 1024;

/** An error of a share link as a small page (the link is opened in a browser). */
function errorPage(ctx: Context, error: DomainError): void {
  const status = error.code === 'SHARE_EXPIRED' ? 410 : error.code === 'RATE_LIMITED' ? 429 : 404;
  const title = error.code === 'SHARE_EXPIRED' ? 'This link has expired' : error.code === 'RATE_LIMITED' ? 'Too many attempts' : 'No such link';
  renderPage(ctx, { status, title, body: `<p>${escape(error.message)}</p><p><small>${escape(error.code)}</small></p>` });
}

/**
 * Share links on the content origin (docs/private-files.md): a small page per link (no script: a plain link
 * to the download, or a password form that posts to it), and the download itself.
 */
export function shareContentRoutes(hangar: Hangar): Route[] {
  /** The page, with `problem` shown above the password form (wrong password). */
  const page = async (ctx: Context, shareId: string, problem?: { status: number; message: string }) => {
    const { file, needsPassword } = await hangar.viewShare.execute({ shareId });
    const name = file.name ?? file.fileId;
    const action = `/share/${encodeURIComponent(shareId)}/download`;
    const download = needsPassword
      ? `<form method="post" action="${action}"><label>Password <input type="password" name="password" required maxlength="1024" autocomplete="off" autofocus></label>` +
        `<button type="submit">Download</button></form>`
      : `<p><a href="${action}" download>Download</a></p>`;
    renderPage(ctx, {
      status: problem?.status ?? 200,
      title: name,
      body: `<p>${escape(file.contentType)}, ${file.size.toLocaleString('en')} bytes</p>${problem ? `<p role="alert">${escape(problem.message)}</p>` : ''}${download}`,
    });
  };
  const send = async (ctx: Context, shareId: string, password: string | undefined) => {
    const file = await hangar.downloadShare.execute({ shareId, password, client: ctx.ip });
    await serveFile(ctx, file, { disposition: 'attachment', cacheControl: 'private, no-store' });
  };
  return [
    defineRoute({
      method: 'GET',
      path: '/share/:id',
      operationId: 'viewShare',
      tag: 'content',
      auth: 'none',
      server: 'content',
      summary: 'A share link’s page: the file’s name and size, and a download link or a password form',
      description: 'A page that needs no script. Unknown or revoked links are 404, expired or used-up ones 410 (`SHARE_EXPIRED`), both as pages.',
      errorCodes: ['SHARE_NOT_FOUND', 'SHARE_EXPIRED'],
      params: ShareParams,
      responses: { 200: HTML, 404: HTML, 410: HTML },
      handler: async ({ ctx, params }) => {
        try {
          await page(ctx, params.id);
        } catch (error) {
          if (isDomainError(error, 'SHARE_NOT_FOUND') || isDomainError(error, 'SHARE_EXPIRED')) errorPage(ctx, error);
          else throw error;
        }
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/share/:id/download',
      operationId: 'downloadShare',
      tag: 'content',
      auth: 'none',
      server: 'content',
      summary: 'The shared file (links without a password); each request counts as one download',
      description:
        'Streams the file as an attachment (Range and ETag as on the download address). Each request counts against `max_downloads`: of concurrent requests for the last ones, exactly as many succeed.\n\n' +
        'Errors: 401 `SHARE_PASSWORD_REQUIRED` (use the page’s form), 404 `SHARE_NOT_FOUND`, 410 `SHARE_EXPIRED`, 416 `RANGE_NOT_SATISFIABLE`.',
      errorCodes: ['SHARE_PASSWORD_REQUIRED', 'SHARE_NOT_FOUND', 'SHARE_EXPIRED', 'RANGE_NOT_SATISFIABLE'],
      params: ShareParams,
      responses: { 200: BINARY, 206: BINARY, 304: null, 401: ErrorBody, 404: ErrorBody, 410: ErrorBody, 416: ErrorBody, 503: ErrorBody },
      handler: ({ ctx, params }) => send(ctx, params.id, undefined),
    }),
    defineRoute({
      method: 'POST',
      path: '/share/:id/download',
      operationId: 'downloadShareWithPassword',
      tag: 'content',
      auth: 'none',
      server: 'content',
      summary: 'The shared file, for the password form (`application/x-www-form-urlencoded`, field `password`)',
      description:
        'Streams the file as an attachment when the password is right. A wrong password shows the page again (403) with the form; attempts are limited ' +
        'to 10 per link and client address in 10 minutes and 100 per link in an hour (429 page).',
      errorCodes: ['SHARE_PASSWORD_INVALID', 'SHARE_PASSWORD_REQUIRED', 'SHARE_NOT_FOUND', 'SHARE_EXPIRED', 'RATE_LIMITED'],
      params: ShareParams,
      responses: { 200: BINARY, 401: HTML, 403: HTML, 404: HTML, 410: HTML, 429: HTML, 503: ErrorBody },
      handler: async ({ ctx, params }) => {
        let password: string | undefined;
        try {
          // One `password` field; none, or several, is no password (the form again).
          const passwords = new URLSearchParams(await readPacedText(ctx, FORM_LIMIT_BYTES, 'The form')).getAll('password');
          password = passwords.length === 1 ? passwords[0] : undefined;
        } catch (error) {
          // Too slow (408) or too many slow bodies from this address (429): refused as any body is.
          if (isDomainError(error, 'REQUEST_TIMEOUT') || isDomainError(error, 'TOO_MANY_SLOW_BODIES')) throw error;
          password = undefined;
        }
        try {
          await send(ctx, params.id, password);
        } catch (error) {
          if (isDomainError(error, 'SHARE_PASSWORD_INVALID') || isDomainError(error, 'SHARE_PASSWORD_REQUIRED')) {
            await page(ctx, params.id, { status: error.code === 'SHARE_PASSWORD_INVALID' ? 403 : 401, message: error.message }).catch((inner) => {
              if (isDomainError(inner)) errorPage(ctx, inner);
              else throw inner;
            });
          } else if (isDomainError(error, 'SHARE_NOT_FOUND') || isDomainError(error, 'SHARE_EXPIRED') || isDomainError(error, 'RATE_LIMITED')) {
            errorPage(ctx, error);
          } else {
            throw error;
          }
        }
      },
    }),
  ];
}
