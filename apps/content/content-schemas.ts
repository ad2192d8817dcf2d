import { Type } from '@sinclair/typebox';
import { FITS, MAX_IMAGE_SIDE, REQUESTABLE_FORMATS } from '../../core/images/image-params.js';
import { ErrorBody } from '../http/error-body.js';
import { DOCUMENTED_AS } from '../http/openapi.js';
import { BINARY } from '../http/route.js';

// The request and response schemas shared by the content server's routes (content-app.ts,
// signed-routes.ts), documented under {cdn_url} in the OpenAPI document.

/** The path of a content address: the file's public id. */
export const ContentParams = Type.Object({ id: Type.String({ description: 'The file’s `file_id`', maxLength: 64 }) });
/** The conditional and range request headers a content address honours (RFC 9110 §13, §14). */
export const ContentHeaders = Type.Object({
  range: Type.Optional(Type.String({ description: 'One byte range, `bytes=a-b`, `bytes=a-` or `bytes=-n` (RFC 9110 §14.1.2)' })),
  'if-range': Type.Optional(Type.String({ description: 'Apply Range only while this ETag still matches' })),
  'if-none-match': Type.Optional(Type.String({ description: 'ETags; a match answers 304' })),
  'if-modified-since': Type.Optional(Type.String({ description: 'HTTP date; not modified since answers 304' })),
});
/** The answers of a plain file address (`/d`, and `/m` without image parameters). */
export const contentResponses = { 200: BINARY, 206: BINARY, 304: null, 404: ErrorBody, 416: ErrorBody, 503: ErrorBody };

/**
 * Image parameters of the view address (docs/images.md). Taken as text (a repeated one as a list)
 * and checked by the core, so every bad value answers the same INVALID_TRANSFORM; the reference
 * publishes each one's real type and range (`documented`).
 */
const imageParameter = (description: string, documented: Record<string, unknown>) =>
  Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())], { description, [DOCUMENTED_AS]: documented }));
/** The image parameters of the view and signed addresses (docs/images.md). */
export const ImageQuery = Type.Object({
  w: imageParameter('Width in px, 1–4096. Image files only.', { type: 'integer', minimum: 1, maximum: MAX_IMAGE_SIDE }),
  h: imageParameter('Height in px, 1–4096. Image files only.', { type: 'integer', minimum: 1, maximum: MAX_IMAGE_SIDE }),
  fit: imageParameter('With both `w` and `h`: `cover` (default), `contain`, `fill`, `inside` or `outside`.', { type: 'string', enum: [...FITS] }),
  format: imageParameter(
    '`webp`, `avif`, `jpeg`, `png`, or `auto` (AVIF or WebP when `Accept` lists it; the response then has `Vary: Accept`). Default: the source’s format.',
    { type: 'string', enum: [...REQUESTABLE_FORMATS] },
  ),
  q: imageParameter('Quality 1–100 for WebP, AVIF and JPEG (defaults 80, 50, 80).', { type: 'integer', minimum: 1, maximum: 100 }),
});
/** {@link ContentHeaders} and `Accept`, which picks the format of `format=auto`. */
export const ViewHeaders = Type.Object({
  ...ContentHeaders.properties,
  accept: Type.Optional(Type.String({ description: 'With `format=auto`: `image/avif` or `image/webp` listed picks that format' })),
});
/** The answers of an address that may transform an image (`/m`, `/s`). */
export const viewResponses = { ...contentResponses, 400: ErrorBody, 403: ErrorBody, 422: ErrorBody, 429: ErrorBody };
