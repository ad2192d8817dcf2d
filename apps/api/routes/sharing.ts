import { Type } from '@sinclair/typebox';
import type { Hangar } from '../../../core/hangar.js';
import { SIGNED_URL_MAX_SECONDS } from '../../../core/files/signed-url.js';
import { MAX_IMAGE_SIDE } from '../../../core/images/image-params.js';
import { defineRoute, type Route } from '../../http/route.js';
import { errors, MessageBody } from '../schemas.js';

const literals = (...values: string[]) => Type.Union(values.map((value) => Type.Literal(value)));

/** Signed URLs and the signing key (issue #26). */
export function sharingRoutes(hangar: Hangar): Route[] {
  return [
    defineRoute({
      method: 'POST', path: '/files/:id/signed-url', operationId: 'createSignedUrl', tag: 'files', auth: 'any',
      errorCodes: ['NOT_AN_IMAGE', 'FILE_NOT_FOUND', 'UNSUPPORTED_MEDIA_TYPE'],
      summary: 'A URL that serves one of your files, private or public, until it expires',
      description:
        'Returns an address on the content origin (`{cdn_url}/s/<file_id>?expires=…&signature=…`) that anyone holding it may use until `expires_at`, ' +
        'with byte ranges and ETags. It is an HMAC of the file id, the expiry, `download` and `transform` under your account’s signing key: changing any ' +
        'of them invalidates it; `POST /settings/rotate-signing-key` revokes every URL signed before; deleting the file ends its URLs. ' +
        '`transform` (image files only) is applied at exactly the size given.\n\n' +
        'Errors: 400 `VALIDATION_FAILED` (`expires_in` outside 1–604800, unknown members), `NOT_AN_IMAGE`; 404 `FILE_NOT_FOUND` (also another account’s file).',
      params: Type.Object({ id: Type.String({ maxLength: 64 }) }),
      body: Type.Object({
        expires_in: Type.Integer({ minimum: 1, maximum: SIGNED_URL_MAX_SECONDS, description: 'Seconds the URL works (at most 7 days)' }),
        download: Type.Optional(Type.Boolean({ description: 'Serve as an attachment (download) instead of inline' })),
        transform: Type.Optional(Type.Object({
          w: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_IMAGE_SIDE })),
          h: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_IMAGE_SIDE })),
          fit: Type.Optional(literals('cover', 'contain', 'fill', 'inside', 'outside')),
          format: Type.Optional(literals('webp', 'avif', 'jpeg', 'png', 'auto')),
          q: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
        }, { additionalProperties: false })),
      }, { additionalProperties: false }),
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
        });
        ctx.body = { signed_url: signed.url, expires_at: signed.expiresAt.toISOString() };
      },
    }),
    defineRoute({
      method: 'POST', path: '/settings/rotate-signing-key', operationId: 'rotateSigningKey', tag: 'settings', auth: 'any',
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
