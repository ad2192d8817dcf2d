import { Type } from '@sinclair/typebox';
import type { Context } from 'koa';
import { MAX_BULK_DELETE_IDS } from '../../../core/files/bulk-delete-files.js';
import type { Hangar } from '../../../core/hangar.js';
import { DomainError } from '../../../core/shared/errors.js';
import { Readable } from 'node:stream';
import { etagMatches } from '../../http/http-range.js';
import { headerText } from '../../http/header-text.js';
import { pacedRequestBody } from '../../http/upload-pacing.js';
import { BINARY, defineRoute, type Route } from '../../http/route.js';
import { serveFile } from '../../http/serve-file.js';
import { MAX_EXPIRES_IN_SECONDS } from '../../../core/files/file-expiry.js';
import { fileJson, filePageJson } from '../../http/presenters/presenters.js';
import { FileBody, Paged, PageQuery } from '../schemas.js';
import { errors } from '../../http/error-body.js';

const FileIdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
const OwnContentHeaders = Type.Object({
  range: Type.Optional(Type.String({ description: 'One byte range, `bytes=a-b`, `bytes=a-` or `bytes=-n` (RFC 9110 §14.1.2)' })),
  'if-range': Type.Optional(Type.String({ description: 'Apply Range only while this ETag still matches' })),
  'if-none-match': Type.Optional(Type.String({ description: 'ETags; a match answers 304' })),
  'if-modified-since': Type.Optional(Type.String({ description: 'HTTP date; not modified since answers 304' })),
});

/**
 * File upload, listing, lookup and deletion (spec 4.8–4.12). An upload body is read through
 * pacedRequestBody: the pacing rules of every body (408 REQUEST_TIMEOUT, 429 TOO_MANY_SLOW_BODIES).
 */
export function fileRoutes(hangar: Hangar): Route[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/files',
      operationId: 'uploadFile',
      tag: 'files',
      auth: { scopes: ['files:write'] },
      errorCodes: [
        'CONTENT_TYPE_NOT_ALLOWED',
        'CONTENT_TYPE_MISMATCH',
        'INVALID_FILE_NAME',
        'INVALID_EXPIRY',
        'EMPTY_FILE',
        'UPLOAD_INCOMPLETE',
        'TRIAL_ENDED',
        'STORAGE_LIMIT_REACHED',
        'FILE_COUNT_LIMIT_REACHED',
        'FILE_TOO_LARGE',
        'RATE_LIMITED',
        'STORAGE_FULL',
        'FILE_ID_COLLISION',
      ],
      summary: 'Upload one file as the raw request body (streamed)',
      query: Type.Object({
        isPublic: Type.Optional(Type.Boolean({ default: true, description: '`false` makes the upload private' })),
        expiresIn: Type.Optional(
          Type.Integer({
            minimum: 1,
            maximum: MAX_EXPIRES_IN_SECONDS,
            description: 'Seconds until the file is deleted automatically (not with `x-expires-at`)',
          }),
        ),
        deletionUrl: Type.Optional(
          Type.Boolean({ description: '`true` adds `deletion_url` to the answer: a signed link that deletes this file without a credential (for ShareX)' }),
        ),
      }),
      headers: Type.Object({
        'x-expires-at': Type.Optional(
          Type.String({
            maxLength: 64,
            description: 'ISO 8601 time at which the file is deleted automatically; must be in the future (not with `expiresIn`)',
            examples: ['2026-12-31T23:59:59Z'],
          }),
        ),
        'content-type': Type.String({ description: 'MIME type of the file; must be one of GET /reference/allowed-content-types', examples: ['image/png'] }),
        'x-file-name': Type.Optional(
          Type.String({
            maxLength: 4096,
            description: 'File name: raw UTF-8 bytes or `%XX` escapes (both decoded as UTF-8); at most 255 characters',
            examples: ['r%C3%A9sum%C3%A9.pdf'],
          }),
        ),
      }),
      body: 'binary',
      description:
        'Errors: 400 `CONTENT_TYPE_NOT_ALLOWED`, `CONTENT_TYPE_MISMATCH`, `INVALID_FILE_NAME`, `INVALID_EXPIRY`, `EMPTY_FILE`, `UPLOAD_INCOMPLETE`; 403 `TRIAL_ENDED`, `STORAGE_LIMIT_REACHED`, `FILE_COUNT_LIMIT_REACHED`; 408 `REQUEST_TIMEOUT`; 413 `FILE_TOO_LARGE`; 429 `RATE_LIMITED`; 503 `FILE_ID_COLLISION` with `Retry-After` (the random file id drawn is already taken, odds per upload: files stored ÷ 62^10; nothing stored: send it again).',
      responses: {
        201: Type.Object({
          file: FileBody,
          message: Type.String(),
          deletion_url: Type.Optional(
            Type.String({ description: 'With `deletionUrl=true`: opens a page that deletes this file (signed; revoked by rotating the signing key)' }),
          ),
        }),
        ...errors(400, 401, 403, 408, 413, 429, 503, 507),
      },
      handler: async ({ ctx, query, principal }) => {
        const abort = new AbortController();
        const onClose = () => {
          if (!ctx.req.complete) abort.abort();
        };
        ctx.req.once('close', onClose);
        try {
          const view = await hangar.uploadFile.execute({
            userId: principal.userId,
            contentType: ctx.get('Content-Type') || undefined,
            fileName: headerText(ctx.req.headers['x-file-name'] as string | undefined),
            contentLength: contentLengthOf(ctx),
            isPublic: query.isPublic,
            expiresAt: timestamp('x-expires-at', ctx.get('x-expires-at') || undefined, 'header'),
            expiresInSeconds: query.expiresIn,
            body: pacedRequestBody(ctx),
            signal: abort.signal,
          });
          ctx.status = 201;
          ctx.state.fileId = view.file.fileId;
          ctx.state.requestBytes = view.file.size;
          const deletionUrl = query.deletionUrl
            ? await hangar.signedDeletion.link({
                userId: principal.userId,
                fileId: view.file.fileId,
                apiKeyId: principal.kind === 'api_key' ? principal.apiKeyId : undefined,
              })
            : undefined;
          ctx.body =
            deletionUrl === undefined
              ? { file: fileJson(view), message: 'File uploaded.' }
              : { file: fileJson(view), message: 'File uploaded.', deletion_url: deletionUrl };
        } finally {
          ctx.req.off('close', onClose);
        }
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/files',
      operationId: 'listFiles',
      tag: 'files',
      auth: { scopes: ['files:read'] },
      summary: 'List files, newest first, with filters',
      query: Type.Object({
        ...PageQuery,
        q: Type.Optional(Type.String({ maxLength: 255 })),
        type: Type.Optional(Type.String({ maxLength: 255 })),
        // Bytes; a size is a safe integer (2^53 − 1), also where the database's bigint could hold more.
        sizeMin: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })),
        sizeMax: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })),
        isPublic: Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')])),
        createdAfter: Type.Optional(Type.String({ description: 'ISO 8601' })),
        createdBefore: Type.Optional(Type.String({ description: 'ISO 8601' })),
        expiresBefore: Type.Optional(Type.String({ description: 'ISO 8601: only files that expire at or before this time' })),
      }),
      responses: { 200: Paged('files', FileBody), ...errors(400, 401) },
      handler: async ({ ctx, query, principal }) => {
        const page = await hangar.listFiles.execute({
          userId: principal.userId,
          page: query.page,
          limit: query.limit,
          filter: {
            q: query.q,
            type: query.type,
            sizeMin: query.sizeMin,
            sizeMax: query.sizeMax,
            isPublic: query.isPublic === undefined ? undefined : query.isPublic === 'true',
            createdAfter: timestamp('createdAfter', query.createdAfter),
            createdBefore: timestamp('createdBefore', query.createdBefore),
            expiresBefore: timestamp('expiresBefore', query.expiresBefore),
          },
        });
        ctx.type = 'json';
        ctx.body = filePageJson(page, query);
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/files/:id',
      operationId: 'getFile',
      tag: 'files',
      auth: { scopes: ['files:read'] },
      summary: 'One file by file_id',
      params: FileIdParams,
      responses: { 200: FileBody, ...errors(401, 404) },
      handler: async ({ ctx, params, principal }) => {
        ctx.body = fileJson(await hangar.getFile.execute({ userId: principal.userId, fileId: params.id }));
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/files/:id/thumbnail',
      operationId: 'getFileThumbnail',
      tag: 'files',
      auth: { scopes: ['files:read'] },
      summary: 'A 320×320 WebP thumbnail of one of your image files, public or private; not metered',
      description:
        'For the account holder’s own screens (the dashboard’s file tiles): it counts neither as an origin read nor as an image operation, and no plan limit refuses it. ' +
        'The public `/m/{id}?w=320&h=320&fit=cover&format=webp` on the content origin is the same image, metered. `Cache-Control: private`; a matching `If-None-Match` answers 304.',
      params: FileIdParams,
      responses: { 200: BINARY, 304: null, ...errors(400, 401, 404, 422, 503) },
      handler: async ({ ctx, params, principal }) => {
        const thumbnail = await hangar.getOwnerThumbnail.execute({ userId: principal.userId, fileId: params.id });
        ctx.set('X-Content-Type-Options', 'nosniff');
        // If-None-Match alone (RFC 9110 §13.1.2), whatever Cache-Control the request carries.
        if (etagMatches(ctx.get('If-None-Match') || undefined, thumbnail.etag)) {
          ctx.set('ETag', thumbnail.etag);
          ctx.set('Cache-Control', 'private, max-age=86400');
          ctx.status = 304;
          return;
        }
        // Caching headers only once the bytes are there: an error (503 IMAGE_BUSY…) is not cached.
        const opened = await thumbnail.open();
        ctx.set('ETag', thumbnail.etag);
        ctx.set('Cache-Control', 'private, max-age=86400');
        ctx.type = thumbnail.contentType;
        if (opened.size !== undefined) ctx.length = opened.size;
        ctx.body = Readable.from(opened.body);
      },
    }),
    defineRoute({
      method: 'PATCH',
      path: '/files/:id',
      operationId: 'updateFile',
      tag: 'files',
      auth: { scopes: ['files:write'] },
      errorCodes: ['INVALID_FILE_NAME', 'INVALID_EXPIRY', 'TRIAL_ENDED', 'FILE_NOT_FOUND', 'UNSUPPORTED_MEDIA_TYPE'],
      summary: 'Rename a file, make it private or public, set or remove its expiry',
      description:
        'Only the members given change; unknown members and bad values are 400 and change nothing. `is_public: false` stops the view and download addresses ' +
        '(also on a custom domain) from the next request on, on every server process; `true` gives them back. `name` is the download name of every address ' +
        '(control characters removed; null or empty removes it). `expires_at` must be in the future; null removes the expiry.\n\n' +
        'Errors: 400 `VALIDATION_FAILED`, `INVALID_FILE_NAME`, `INVALID_EXPIRY`; 403 `TRIAL_ENDED`; 404 `FILE_NOT_FOUND` (also another account’s file).',
      params: FileIdParams,
      body: Type.Object(
        {
          name: Type.Optional(
            Type.Union([Type.String({ maxLength: 4096 }), Type.Null()], { description: 'New name, at most 255 characters; null or empty removes it' }),
          ),
          is_public: Type.Optional(Type.Boolean()),
          expires_at: Type.Optional(Type.Union([Type.String({ maxLength: 64, description: 'ISO 8601, in the future' }), Type.Null()])),
        },
        { additionalProperties: false, minProperties: 1 },
      ),
      responses: { 200: FileBody, ...errors(400, 401, 403, 404, 415) },
      handler: async ({ ctx, params, body, principal }) => {
        const view = await hangar.updateFile.execute({
          userId: principal.userId,
          fileId: params.id,
          name: body.name,
          isPublic: body.is_public,
          expiresAt: body.expires_at === null ? null : timestamp('expires_at', body.expires_at, 'body'),
        });
        ctx.body = fileJson(view);
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/files/:id/content',
      operationId: 'downloadOwnFile',
      tag: 'files',
      auth: { scopes: ['files:read'] },
      alsoHead: true,
      errorCodes: ['FILE_NOT_FOUND', 'RANGE_NOT_SATISFIABLE'],
      summary: 'The bytes of one of your files, private or public',
      description:
        'Streams the file with the semantics of the download address: one byte range (206, 416), strong ETag, 304 on If-None-Match/If-Modified-Since, ' +
        '`Content-Disposition: attachment` with the stored name (`?disposition=inline` to view). `Cache-Control: private, no-cache`; every type is served ' +
        'sandboxed (`Content-Security-Policy: sandbox`), as this is the API origin.\n\nErrors: 404 `FILE_NOT_FOUND` (also another account’s file, or an expired one); 416 `RANGE_NOT_SATISFIABLE`.',
      params: FileIdParams,
      query: Type.Object({ disposition: Type.Optional(Type.Union([Type.Literal('attachment'), Type.Literal('inline')], { default: 'attachment' })) }),
      headers: OwnContentHeaders,
      responses: { 200: BINARY, 206: BINARY, 304: null, ...errors(400, 401, 404, 416, 503) },
      handler: async ({ ctx, params, query, principal }) => {
        const own = await hangar.readOwnFile.execute({ userId: principal.userId, fileId: params.id });
        await serveFile(ctx, own, { disposition: query.disposition ?? 'attachment', cacheControl: 'private, no-cache', sandboxAll: true });
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/files/:id',
      operationId: 'deleteFile',
      tag: 'files',
      auth: { scopes: ['files:delete'] },
      summary: 'Delete one file (record and bytes)',
      params: FileIdParams,
      responses: { 204: null, ...errors(401, 403, 404) },
      handler: async ({ ctx, params, principal }) => {
        await hangar.deleteFile.execute({ userId: principal.userId, fileId: params.id });
        ctx.status = 204;
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/files/bulk-delete',
      operationId: 'bulkDeleteFiles',
      tag: 'files',
      auth: { scopes: ['files:delete'] },
      summary: 'Delete 1 to 100 files; per-id failures are listed in errors',
      body: Type.Object({ ids: Type.Array(Type.String({ maxLength: 64 }), { minItems: 1, maxItems: MAX_BULK_DELETE_IDS }) }),
      responses: {
        200: Type.Object({ deleted: Type.Integer(), errors: Type.Array(Type.Object({ id: Type.String(), error: Type.String() })) }),
        ...errors(400, 401, 403),
      },
      handler: async ({ ctx, body, principal }) => {
        ctx.body = await hangar.bulkDeleteFiles.execute({ userId: principal.userId, ids: body.ids });
      },
    }),
  ];
}

/** Declared body length in bytes, or undefined for a chunked body. */
export function contentLengthOf(ctx: Context): number | undefined {
  const header = ctx.get('Content-Length');
  return /^\d+$/.test(header) ? Number(header) : undefined;
}

/** Parses an ISO 8601 value of the query (spec 4.9), a header or the body. @throws DomainError VALIDATION_FAILED */
export function timestamp(name: string, value: string | undefined, where: 'query' | 'header' | 'body' = 'query'): Date | undefined {
  if (value === undefined) return undefined;
  const date = /^\d{4}-\d{2}-\d{2}/.test(value) ? new Date(value) : new Date(Number.NaN);
  if (Number.isNaN(date.getTime())) {
    throw new DomainError('VALIDATION_FAILED', `${name} must be an ISO 8601 date or timestamp.`, [
      { in: where, path: `/${name}`, message: 'Expected ISO 8601' },
    ]);
  }
  return date;
}
