import { API_KEY_SCOPES } from '../../../core/api-keys/api-key-scopes.js';
import { Type } from '@sinclair/typebox';
import type { Hangar } from '../../../core/hangar.js';
import { SIGNED_URL_MAX_SECONDS } from '../../../core/files/signed-url.js';
import { MAX_IMAGE_SIDE } from '../../../core/images/image-params.js';
import type { Context } from 'koa';
import { defineRoute, HTML, type Route } from '../../http/route.js';
import { renderPage } from '../../http/pages.js';
import { MessageBody } from '../schemas.js';
import { errors } from '../../http/error-body.js';
import { DomainError, isDomainError } from '../../../core/shared/errors.js';
import { MAX_SHARE_DOWNLOADS } from '../../../core/shares/share.js';
import { shareJson } from '../../http/presenters/presenters.js';

export const ShareBody = Type.Object(
  {
    share_id: Type.String(),
    url: Type.String({ description: 'The link: a page on the content origin' }),
    file_id: Type.String(),
    has_password: Type.Boolean(),
    expires_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    max_downloads: Type.Union([Type.Integer(), Type.Null()]),
    downloads: Type.Integer({ description: 'Downloads served so far' }),
    created_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'Share' },
);

const literals = (...values: string[]) => Type.Union(values.map((value) => Type.Literal(value)));

/** Signed URLs and the signing key (docs/private-files.md). */
export function sharingRoutes(hangar: Hangar): Route[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/files/:id/signed-url',
      operationId: 'createSignedUrl',
      tag: 'files',
      auth: { scopes: ['files:read'] },
      errorCodes: ['NOT_AN_IMAGE', 'FILE_NOT_FOUND', 'UNSUPPORTED_MEDIA_TYPE'],
      summary: 'A URL that serves one of your files, private or public, until it expires',
      description:
        'Returns an address on the content origin (`{cdn_url}/s/<file_id>?expires=…&signature=…`) that anyone holding it may use until `expires_at`, ' +
        'with byte ranges and ETags. It is an HMAC of the file id, the expiry, `download` and `transform` under your account’s signing key: changing any ' +
        'of them invalidates it; `POST /settings/rotate-signing-key` revokes every URL signed before; deleting the file ends its URLs. ' +
        '`transform` (image files only) is applied at exactly the size given.\n\n' +
        'Errors: 400 `VALIDATION_FAILED` (`expires_in` outside 1–604800, unknown members), `NOT_AN_IMAGE`; 404 `FILE_NOT_FOUND` (also another account’s file).',
      params: Type.Object({ id: Type.String({ maxLength: 64 }) }),
      body: Type.Object(
        {
          expires_in: Type.Integer({ minimum: 1, maximum: SIGNED_URL_MAX_SECONDS, description: 'Seconds the URL works (at most 7 days)' }),
          download: Type.Optional(Type.Boolean({ description: 'Serve as an attachment (download) instead of inline' })),
          transform: Type.Optional(
            Type.Object(
              {
                w: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_IMAGE_SIDE })),
                h: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_IMAGE_SIDE })),
                fit: Type.Optional(literals('cover', 'contain', 'fill', 'inside', 'outside')),
                format: Type.Optional(literals('webp', 'avif', 'jpeg', 'png', 'auto')),
                q: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
              },
              { additionalProperties: false },
            ),
          ),
        },
        { additionalProperties: false },
      ),
      responses: {
        200: Type.Object({ signed_url: Type.String(), expires_at: Type.String({ format: 'date-time' }) }),
        ...errors(400, 401, 404, 415),
      },
      handler: async ({ ctx, params, body, principal }) => {
        const t = body.transform;
        const signed = await hangar.createSignedUrl.execute({
          userId: principal.userId,
          fileId: params.id,
          expiresInSeconds: body.expires_in,
          download: body.download,
          transform: t && { width: t.w, height: t.h, fit: t.fit as never, format: t.format as never, quality: t.q },
          apiKeyId: principal.kind === 'api_key' ? principal.apiKeyId : undefined,
        });
        ctx.body = { signed_url: signed.url, expires_at: signed.expiresAt.toISOString() };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/files/:id/shares',
      operationId: 'createShare',
      tag: 'files',
      auth: { scopes: ['files:write'] },
      summary: 'A share link of one of your files: a page on the content origin, with optional password, expiry and download limit',
      description:
        'The link (`url`) opens a small page on the content origin that downloads the file (private or public) without any script; with a `password`, ' +
        'a form asks for it first (attempts are rate-limited). After `expires_at`, or once `max_downloads` downloads were served, the link answers 410 `SHARE_EXPIRED`.\n\n' +
        'Errors: 400 `VALIDATION_FAILED` (unknown members, a password over 1 KiB or empty, `max_downloads` outside 1–1,000,000), `INVALID_EXPIRY`; 404 `FILE_NOT_FOUND`.',
      errorCodes: ['INVALID_EXPIRY', 'FILE_NOT_FOUND', 'UNSUPPORTED_MEDIA_TYPE'],
      params: Type.Object({ id: Type.String({ maxLength: 64 }) }),
      body: Type.Object(
        {
          expires_at: Type.Optional(Type.String({ maxLength: 64, description: 'ISO 8601, in the future' })),
          password: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: 'At most 1 KiB (UTF-8); stored as an argon2id hash' })),
          max_downloads: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_SHARE_DOWNLOADS })),
        },
        { additionalProperties: false },
      ),
      responses: { 201: ShareBody, ...errors(400, 401, 404, 415) },
      handler: async ({ ctx, params, body, principal }) => {
        const expiresAt = body.expires_at === undefined ? undefined : new Date(/^\d{4}-\d{2}-\d{2}/.test(body.expires_at) ? body.expires_at : Number.NaN);
        if (expiresAt && Number.isNaN(expiresAt.getTime())) {
          throw new DomainError('VALIDATION_FAILED', 'expires_at must be an ISO 8601 timestamp.', [
            { in: 'body', path: '/expires_at', message: 'Expected ISO 8601' },
          ]);
        }
        const view = await hangar.createShare.execute({
          userId: principal.userId,
          fileId: params.id,
          expiresAt,
          password: body.password,
          maxDownloads: body.max_downloads,
          apiKeyId: principal.kind === 'api_key' ? principal.apiKeyId : undefined,
        });
        ctx.status = 201;
        ctx.body = shareJson(view);
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/files/:id/shares',
      operationId: 'listShares',
      tag: 'files',
      auth: { scopes: ['files:read'] },
      summary: 'The share links of one of your files, newest first, with their download counts',
      errorCodes: ['FILE_NOT_FOUND'],
      params: Type.Object({ id: Type.String({ maxLength: 64 }) }),
      responses: { 200: Type.Object({ shares: Type.Array(ShareBody) }), ...errors(401, 404) },
      handler: async ({ ctx, params, principal }) => {
        ctx.body = { shares: (await hangar.listShares.execute({ userId: principal.userId, fileId: params.id })).map(shareJson) };
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/shares/:share_id',
      operationId: 'revokeShare',
      tag: 'files',
      auth: { scopes: ['files:write'] },
      summary: 'Revoke a share link (it answers 404 from then on)',
      errorCodes: ['SHARE_NOT_FOUND'],
      params: Type.Object({ share_id: Type.String({ maxLength: 64 }) }),
      responses: { 204: null, ...errors(401, 404) },
      handler: async ({ ctx, params, principal }) => {
        await hangar.revokeShare.execute({ userId: principal.userId, shareId: params.share_id });
        ctx.status = 204;
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/settings/rotate-signing-key',
      operationId: 'rotateSigningKey',
      tag: 'settings',
      auth: { scopes: API_KEY_SCOPES },
      errorCodes: ['USER_NOT_FOUND'],
      summary: 'Revoke every signed URL of your account (a new signing key)',
      description: 'Every signed URL made before answers 403 `SIGNED_URL_INVALID` from the next request on; new ones use the new key.',
      responses: { 200: MessageBody, ...errors(401, 404) },
      handler: async ({ ctx, principal }) => {
        await hangar.rotateSigningKey.execute({ userId: principal.userId });
        ctx.body = { message: 'Signing key rotated: every signed URL made before no longer works.' };
      },
    }),
  ];
}

/** The pages of a signed deletion link (ShareX `DeletionURL`): a confirmation, then the delete itself. */
export function deletionLinkRoutes(hangar: Hangar): Route[] {
  const Params = Type.Object({ id: Type.String({ maxLength: 64 }) });
  const Query = Type.Object({
    signature: Type.Optional(Type.String({ maxLength: 128 })),
    kid: Type.Optional(Type.String({ maxLength: 64, description: 'The API key that made the link (signed); the link works only while that key does' })),
  });
  const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  /** A refusal as a page (the link is opened in a browser). */
  const refused = (ctx: Context, error: unknown) => {
    if (!isDomainError(error) || !['SIGNED_URL_INVALID', 'FILE_NOT_FOUND', 'TRIAL_ENDED'].includes(error.code)) throw error;
    renderPage(ctx, { status: error.code === 'FILE_NOT_FOUND' ? 404 : 403, title: 'This link cannot be used', body: `<p>${escape(error.message)}</p>` });
  };
  return [
    defineRoute({
      method: 'GET',
      path: '/files/:id/delete',
      operationId: 'deletionLinkPage',
      tag: 'files',
      auth: 'none',
      summary: 'The page of a signed deletion link: asks to confirm (nothing is deleted by opening it)',
      errorCodes: ['SIGNED_URL_INVALID', 'FILE_NOT_FOUND'],
      params: Params,
      query: Query,
      responses: { 200: HTML, 403: HTML, 404: HTML },
      handler: async ({ ctx, params, query }) => {
        try {
          const file = await hangar.signedDeletion.check({ fileId: params.id, signature: query.signature, kid: query.kid });
          renderPage(ctx, {
            status: 200,
            title: `Delete ${file.name ?? file.fileId}?`,
            body: `<p>Its addresses stop working at once. This cannot be undone.</p><form method="post"><button type="submit">Delete</button></form>`,
          });
        } catch (error) {
          refused(ctx, error);
        }
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/files/:id/delete',
      operationId: 'deleteByLink',
      tag: 'files',
      auth: 'none',
      summary: 'Delete the file of a signed deletion link (the confirmation page’s form)',
      errorCodes: ['SIGNED_URL_INVALID', 'FILE_NOT_FOUND', 'TRIAL_ENDED'],
      params: Params,
      query: Query,
      responses: { 200: HTML, 403: HTML, 404: HTML },
      handler: async ({ ctx, params, query }) => {
        try {
          const file = await hangar.signedDeletion.execute({ fileId: params.id, signature: query.signature, kid: query.kid });
          renderPage(ctx, { status: 200, title: 'Deleted', body: `<p>${escape(file.name ?? file.fileId)} is deleted.</p>` });
        } catch (error) {
          refused(ctx, error);
        }
      },
    }),
  ];
}
