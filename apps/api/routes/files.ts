import { Type } from '@sinclair/typebox';
import type { Context } from 'koa';
import { MAX_BULK_DELETE_IDS } from '../../../core/files/bulk-delete-files.js';
import type { Hangar } from '../../../core/hangar.js';
import { DomainError } from '../../../core/shared/errors.js';
import { Readable } from 'node:stream';
import { etagMatches } from '../../content/http-range.js';
import { headerText } from '../../http/header-text.js';
import { DEFAULT_UPLOAD_PACING, pacedBody, type UploadPacing } from '../../http/upload-pacing.js';
import { BINARY, defineRoute, type Route } from '../../http/route.js';
import { fileJson } from '../presenters.js';
import { errors, FileBody, Paged, PageQuery } from '../schemas.js';

const FileIdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });

/**
 * File upload, listing, lookup and deletion (spec 4.8–4.12). `options.uploadPacing`: how slowly an
 * upload body may arrive before 408 REQUEST_TIMEOUT (default DEFAULT_UPLOAD_PACING).
 */
export function fileRoutes(hangar: Hangar, options: { uploadPacing?: UploadPacing } = {}): Route[] {
  const pacing = options.uploadPacing ?? DEFAULT_UPLOAD_PACING;
  return [
    defineRoute({
      method: 'POST', path: '/files', operationId: 'uploadFile', tag: 'files', auth: 'any',
      summary: 'Upload one file as the raw request body (streamed)',
      query: Type.Object({ isPublic: Type.Optional(Type.Boolean({ default: true, description: '`false` makes the upload private' })) }),
      headers: Type.Object({
        'content-type': Type.String({ description: 'MIME type of the file; must be one of GET /reference/allowed-content-types', examples: ['image/png'] }),
        'x-file-name': Type.Optional(Type.String({ maxLength: 4096, description: 'File name: raw UTF-8 bytes or `%XX` escapes (both decoded as UTF-8); at most 255 characters', examples: ['r%C3%A9sum%C3%A9.pdf'] })),
      }),
      body: 'binary',
      responses: { 201: Type.Object({ file: FileBody, message: Type.String() }), ...errors(400, 401, 403, 408, 413, 429, 503, 507) },
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
            body: pacedBody(ctx.req, pacing),
            signal: abort.signal,
            credentialId: principal.kind === 'api_key' ? principal.apiKeyId : principal.sessionId,
          });
          ctx.status = 201;
          ctx.state.fileId = view.file.fileId;
          ctx.state.requestBytes = view.file.size;
          ctx.body = { file: fileJson(view), message: 'File uploaded.' };
        } finally {
          ctx.req.off('close', onClose);
        }
      },
    }),
    defineRoute({
      method: 'GET', path: '/files', operationId: 'listFiles', tag: 'files', auth: 'any',
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
          },
        });
        ctx.body = { files: page.items.map(fileJson), total: page.total, total_relation: page.totalRelation ?? 'eq', page: query.page, limit: query.limit };
      },
    }),
    defineRoute({
      method: 'GET', path: '/files/:id', operationId: 'getFile', tag: 'files', auth: 'any',
      summary: 'One file by file_id',
      params: FileIdParams,
      responses: { 200: FileBody, ...errors(401, 404) },
      handler: async ({ ctx, params, principal }) => {
        ctx.body = fileJson(await hangar.getFile.execute({ userId: principal.userId, fileId: params.id }));
      },
    }),
    defineRoute({
      method: 'GET', path: '/files/:id/thumbnail', operationId: 'getFileThumbnail', tag: 'files', auth: 'any',
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
      method: 'DELETE', path: '/files/:id', operationId: 'deleteFile', tag: 'files', auth: 'any',
      summary: 'Delete one file (record and bytes)',
      params: FileIdParams,
      responses: { 204: null, ...errors(401, 403, 404) },
      handler: async ({ ctx, params, principal }) => {
        await hangar.deleteFile.execute({ userId: principal.userId, fileId: params.id });
        ctx.status = 204;
      },
    }),
    defineRoute({
      method: 'POST', path: '/files/bulk-delete', operationId: 'bulkDeleteFiles', tag: 'files', auth: 'any',
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
function contentLengthOf(ctx: Context): number | undefined {
  const header = ctx.get('Content-Length');
  return /^\d+$/.test(header) ? Number(header) : undefined;
}

/** Parses an ISO 8601 query value (spec 4.9). @throws DomainError VALIDATION_FAILED */
function timestamp(name: string, value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const date = /^\d{4}-\d{2}-\d{2}/.test(value) ? new Date(value) : new Date(Number.NaN);
  if (Number.isNaN(date.getTime())) {
    throw new DomainError('VALIDATION_FAILED', `${name} must be an ISO 8601 date or timestamp.`, [{ in: 'query', path: `/${name}`, message: 'Expected ISO 8601' }]);
  }
  return date;
}
