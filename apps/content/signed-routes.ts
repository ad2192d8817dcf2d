import { Type } from '@sinclair/typebox';
import type { Hangar } from '../../core/hangar.js';
import { ErrorBody } from '../http/error-body.js';
import { BINARY, defineRoute, type Route } from '../http/route.js';
import { ContentParams, ImageQuery, ViewHeaders } from './content-schemas.js';
import { sendImage } from './send-image.js';
import { serveFile } from '../http/serve-file.js';

/** The query of a signed URL: the image parameters and the signed grant (docs/private-files.md). */
const SignedQuery = Type.Object({
  ...ImageQuery.properties,
  expires: Type.Optional(Type.String({ description: 'Unix time in seconds until which the URL works (signed)' })),
  download: Type.Optional(Type.String({ description: '`1`: served as an attachment (signed)' })),
  kid: Type.Optional(Type.String({ description: 'Id of the API key that made the URL (signed): the URL works only while that key does' })),
  signature: Type.Optional(Type.String({ description: 'HMAC-SHA-256 of the grant under the owner’s signing key, base64url' })),
});

/** The signed URL address of the content server (docs/private-files.md), documented under {cdn_url}. */
export function signedContentRoutes(hangar: Hangar): Route[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/s/:id',
      operationId: 'readSignedUrl',
      tag: 'content',
      auth: 'none',
      server: 'content',
      alsoHead: true,
      errorCodes: [
        'SIGNED_URL_INVALID',
        'SIGNED_URL_EXPIRED',
        'FILE_NOT_FOUND',
        'RANGE_NOT_SATISFIABLE',
        'IMAGE_OPS_LIMIT_REACHED',
        'IMAGE_UNREADABLE',
        'IMAGE_TOO_LARGE',
        'IMAGE_BUSY',
      ],
      summary: 'A file through a signed URL (private or public), until the URL expires',
      description:
        'The address `POST /files/{id}/signed-url` returns; use it exactly as given. Byte ranges, strong ETag and 304 as on the download address; ' +
        '`Cache-Control: private, max-age=<seconds until expiry>`. With a granted transform, the image at exactly the granted size.\n\n' +
        'Errors: 403 `SIGNED_URL_INVALID` (altered, not signed, revoked by rotating the signing key, or made with an API key that was revoked or expired since), 403 `SIGNED_URL_EXPIRED`; ' +
        '404 `FILE_NOT_FOUND` (deleted or expired file); 416 `RANGE_NOT_SATISFIABLE`; with a transform, 403 `IMAGE_OPS_LIMIT_REACHED`, 422 `IMAGE_UNREADABLE` / `IMAGE_TOO_LARGE`, 503 `IMAGE_BUSY`.',
      params: ContentParams,
      query: SignedQuery,
      headers: ViewHeaders,
      responses: { 200: BINARY, 206: BINARY, 304: null, 400: ErrorBody, 403: ErrorBody, 404: ErrorBody, 416: ErrorBody, 422: ErrorBody, 503: ErrorBody },
      responseHeaders: { 503: { 'Retry-After': 'With IMAGE_BUSY: whole seconds to wait before asking again.' } },
      handler: async ({ ctx, params, query }) => {
        const read = await hangar.readSignedFile.execute({ fileId: params.id, query: query, accept: ctx.get('Accept') || undefined });
        // Cached by the browser no longer than the URL works.
        const cacheControl = `private, max-age=${Math.max(0, Math.floor((read.expiresAt.getTime() - Date.now()) / 1000))}`;
        if (read.kind === 'image') await sendImage(ctx, read.image, { cacheControl, disposition: read.disposition });
        else await serveFile(ctx, read, { disposition: read.disposition, cacheControl });
      },
    }),
  ];
}
