import { Type } from '@sinclair/typebox';
import type { Context } from 'koa';
import type { ResumableUpload } from '../../../core/files/resumable-upload-repository.js';
import type { Hangar } from '../../../core/hangar.js';
import { DomainError } from '../../../core/shared/errors.js';
import { pacedRequestBody } from '../../http/upload-pacing.js';
import { defineRoute, type Route } from '../../http/route.js';
import { fileJson } from '../../http/presenters/presenters.js';
import { FileBody } from '../schemas.js';
import { errors } from '../../http/error-body.js';

/** The tus version this server speaks (tus 1.0.0, https://tus.io/protocols/resumable-upload). */
export const TUS_VERSION = '1.0.0';
/** The tus extensions implemented (`Tus-Extension`). */
export const TUS_EXTENSIONS = 'creation,creation-with-upload,termination,expiration';
/** The media type of a PATCH body (tus 1.0.0 §PATCH). */
export const OFFSET_STREAM = 'application/offset+octet-stream';
/** Headers a browser page may read from tus answers (CORS `Access-Control-Expose-Headers`). */
export const TUS_EXPOSED_HEADERS = [
  'Upload-Offset',
  'Location',
  'Upload-Length',
  'Tus-Resumable',
  'Tus-Version',
  'Tus-Extension',
  'Tus-Max-Size',
  'Hangar-File-Id',
  'Upload-Expires',
  'Upload-Metadata',
];
/** Request headers a browser page may send to tus routes (CORS `Access-Control-Allow-Headers`). */
export const TUS_REQUEST_HEADERS = ['Tus-Resumable', 'Upload-Length', 'Upload-Offset', 'Upload-Metadata', 'Upload-Defer-Length', 'Upload-Concat'];

const UploadParams = Type.Object({ upload_id: Type.String({ maxLength: 64 }) });
const TusHeaders = {
  'tus-resumable': Type.Optional(Type.String({ description: 'Must be `1.0.0` (412 `TUS_VERSION_NOT_SUPPORTED` otherwise)' })),
};
const UploadStatus = Type.Object({
  upload_id: Type.String(),
  status: Type.Union([Type.Literal('uploading'), Type.Literal('complete')]),
  offset: Type.Integer({ description: 'Bytes received and durable' }),
  length: Type.Integer({ description: 'Bytes of the whole file' }),
  expires_at: Type.String({ description: 'ISO 8601: when an unfinished upload is removed' }),
  file_id: Type.String({ description: 'The id the File has once the upload is complete' }),
  file: Type.Optional(FileBody),
});

/** Options of {@link resumableRoutes}. */
export interface ResumableRouteOptions {
  /** {base_url}: the upload URLs (`Location`) are its path + `/files/resumable/<upload_id>`. */
  publicApiUrl: string;
  /** `Tus-Max-Size` (bytes): the largest upload any account may make. */
  maxSizeBytes: number;
}

/**
 * Resumable uploads with the tus 1.0.0 protocol (docs/api.md, "Resumable uploads"): creation (with
 * upload), PATCH, HEAD, termination and expiration under `/files/resumable`, over the core's
 * resumable upload use cases. Every answer carries `Tus-Resumable: 1.0.0`; errors keep Hangar's
 * JSON error format and codes.
 */
export function resumableRoutes(hangar: Hangar, options: ResumableRouteOptions): Route[] {
  // Location is a path (RFC 9110 §10.2.2 allows a relative reference): it resolves against the
  // address the client used, also behind a proxy that keeps {base_url}'s path prefix.
  const base = new URL(options.publicApiUrl).pathname.replace(/\/+$/, '');
  return [
    defineRoute({
      method: 'OPTIONS',
      path: '/files/resumable',
      operationId: 'resumableUploadOptions',
      tag: 'files',
      auth: 'none',
      summary: 'tus discovery: versions, extensions and the largest upload',
      description:
        'Answers 204 with `Tus-Version: 1.0.0`, `Tus-Extension: creation,creation-with-upload,termination,expiration` and `Tus-Max-Size` (bytes; each account’s own upload limit applies at creation).',
      responses: { 204: null },
      handler: async ({ ctx }) => {
        ctx.set('Tus-Resumable', TUS_VERSION);
        ctx.set('Tus-Version', TUS_VERSION);
        ctx.set('Tus-Extension', TUS_EXTENSIONS);
        ctx.set('Tus-Max-Size', String(options.maxSizeBytes));
        ctx.status = 204;
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/files/resumable',
      operationId: 'createResumableUpload',
      tag: 'files',
      auth: { scopes: ['files:write'] },
      errorCodes: [
        'TUS_VERSION_NOT_SUPPORTED',
        'CONTENT_TYPE_NOT_ALLOWED',
        'CONTENT_TYPE_MISMATCH',
        'INVALID_FILE_NAME',
        'INVALID_EXPIRY',
        'EMPTY_FILE',
        'TRIAL_ENDED',
        'STORAGE_LIMIT_REACHED',
        'FILE_COUNT_LIMIT_REACHED',
        'RESUMABLE_UPLOAD_LIMIT_REACHED',
        'FILE_TOO_LARGE',
        'RATE_LIMITED',
        'STORAGE_FULL',
      ],
      summary: 'Start a resumable (tus 1.0.0) upload; with an `application/offset+octet-stream` body, its first bytes too',
      description:
        'tus creation: `Upload-Length` (bytes) and `Upload-Metadata` (`filename`, `filetype` (required), `isPublic` (`true`/`false`), `expiresAt` (ISO 8601), each base64). ' +
        'Checked before any byte is sent, with the codes of `POST /files`: the type allowlist, the account’s upload limit, the plan’s quotas; the length is reserved against the storage quota until the upload completes or expires. ' +
        'Answers 201 with `Location` (the upload URL), `Upload-Expires`, and `Upload-Offset` when a body came along (creation-with-upload).',
      headers: Type.Object({
        ...TusHeaders,
        'upload-length': Type.String({ pattern: '^[0-9]{1,16}$', description: 'Bytes of the whole file' }),
        'upload-metadata': Type.Optional(Type.String({ maxLength: 8192, description: 'tus metadata: comma-separated `key base64value` pairs' })),
      }),
      body: 'binary',
      responses: { 201: null, ...errors(400, 401, 403, 412, 413, 429, 503, 507) },
      responseHeaders: {
        201: {
          Location: 'The upload’s URL (`{base_url}/files/resumable/<upload_id>`): PATCH, HEAD and DELETE go there.',
          'Upload-Expires': 'When an unfinished upload is removed (HTTP date).',
          'Upload-Offset': 'Bytes stored so far, when the request carried a body (creation-with-upload).',
          'Hangar-File-Id': 'The File’s id, when that body completed the upload.',
          'Tus-Resumable': 'The tus version: 1.0.0.',
        },
      },
      handler: async ({ ctx, principal }) => {
        tusPreamble(ctx);
        const metadata = parseMetadata(ctx.get('Upload-Metadata'));
        const upload = await hangar.createResumableUpload.execute({
          userId: principal.userId,
          length: Number(ctx.get('Upload-Length')),
          contentType: metadata.get('filetype'),
          fileName: metadata.get('filename'),
          isPublic: booleanOf(metadata.get('ispublic')),
          expiresAt: dateOf(metadata.get('expiresat')),
        });
        ctx.state.uploadId = upload.id;
        let current = upload;
        let fileId: string | undefined;
        if (ctx.is(OFFSET_STREAM) && hasBody(ctx)) {
          const outcome = await append(ctx, hangar, { userId: principal.userId, upload, offset: 0 });
          current = outcome.upload;
          fileId = outcome.file?.file.fileId;
          ctx.state.requestBytes = current.offset;
        }
        ctx.set('Location', `${base}/files/resumable/${upload.id}`);
        setUploadHeaders(ctx, current);
        if (ctx.is(OFFSET_STREAM)) ctx.set('Upload-Offset', String(current.offset));
        if (fileId) ctx.set('Hangar-File-Id', fileId);
        ctx.status = 201;
        ctx.body = '';
      },
    }),
    defineRoute({
      method: 'PATCH',
      path: '/files/resumable/:upload_id',
      operationId: 'appendToResumableUpload',
      tag: 'files',
      auth: { scopes: ['files:write'] },
      errorCodes: [
        'TUS_VERSION_NOT_SUPPORTED',
        'UPLOAD_NOT_FOUND',
        'UPLOAD_EXPIRED',
        'UPLOAD_OFFSET_MISMATCH',
        'UPLOAD_LOCKED',
        'CONTENT_TYPE_MISMATCH',
        'TRIAL_ENDED',
        'STORAGE_LIMIT_REACHED',
        'FILE_COUNT_LIMIT_REACHED',
        'FILE_TOO_LARGE',
        'UNSUPPORTED_MEDIA_TYPE',
        'STORAGE_FULL',
      ],
      summary: 'Send the next bytes of a resumable upload (tus PATCH)',
      description:
        'Body: `application/offset+octet-stream`, from `Upload-Offset`, which must be the upload’s offset (409 `UPLOAD_OFFSET_MISMATCH` otherwise; HEAD tells the right one). ' +
        'Answers 204 with the new `Upload-Offset` once the bytes are durable; a cut connection keeps what arrived. ' +
        'The PATCH that reaches the length completes the upload (content sniffing, quotas, then the File) and carries `Hangar-File-Id`. One PATCH at a time per upload (423 `UPLOAD_LOCKED`).',
      params: UploadParams,
      headers: Type.Object({ ...TusHeaders, 'upload-offset': Type.String({ pattern: '^[0-9]{1,16}$', description: 'Bytes already sent' }) }),
      body: 'binary',
      responses: { 204: null, ...errors(400, 401, 403, 404, 409, 410, 412, 413, 415, 423, 503, 507) },
      responseHeaders: {
        204: {
          'Upload-Offset': 'Bytes stored so far, this request’s included: where the next PATCH starts.',
          'Upload-Expires': 'When the upload is removed if still unfinished (HTTP date); absent once complete.',
          'Hangar-File-Id': 'The File’s id, when this PATCH completed the upload.',
          'Tus-Resumable': 'The tus version: 1.0.0.',
        },
      },
      handler: async ({ ctx, params, principal }) => {
        tusPreamble(ctx);
        if (!ctx.is(OFFSET_STREAM)) throw new DomainError('UNSUPPORTED_MEDIA_TYPE', `Send the bytes as ${OFFSET_STREAM} (tus 1.0.0).`);
        const offset = Number(ctx.get('Upload-Offset'));
        const outcome = await append(ctx, hangar, { userId: principal.userId, uploadId: params.upload_id, offset });
        ctx.state.uploadId = params.upload_id;
        // The access log's bytes_in: what this PATCH added to the upload (also when the client cut it).
        ctx.state.requestBytes = Math.max(0, outcome.upload.offset - offset);
        setUploadHeaders(ctx, outcome.upload);
        ctx.set('Upload-Offset', String(outcome.upload.offset));
        if (outcome.file) {
          ctx.set('Hangar-File-Id', outcome.file.file.fileId);
          ctx.state.fileId = outcome.file.file.fileId;
        }
        ctx.status = 204;
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/files/resumable/:upload_id',
      operationId: 'getResumableUpload',
      tag: 'files',
      auth: { scopes: ['files:write'] },
      alsoHead: true,
      errorCodes: ['UPLOAD_NOT_FOUND', 'UPLOAD_EXPIRED'],
      summary: 'A resumable upload: its offset (HEAD, as tus clients resume), and the File once complete',
      description:
        'HEAD (tus) answers 200 with `Upload-Offset`, `Upload-Length`, `Upload-Expires` and `Cache-Control: no-store`. ' +
        'GET answers the same headers and the upload as JSON; once complete, `file` is the File exactly as `POST /files` answers it (also `Hangar-File-Id`).',
      params: UploadParams,
      responses: { 200: UploadStatus, ...errors(401, 404, 410) },
      responseHeaders: {
        200: {
          'Upload-Offset': 'Bytes stored so far: where the next PATCH starts (tus resumption).',
          'Upload-Length': 'Bytes of the whole file.',
          'Upload-Expires': 'When the upload is removed if still unfinished (HTTP date).',
          'Hangar-File-Id': 'The File’s id, once the upload is complete.',
        },
      },
      handler: async ({ ctx, params, principal }) => {
        ctx.set('Tus-Resumable', TUS_VERSION);
        ctx.set('Cache-Control', 'no-store');
        const view = await hangar.getResumableUpload.execute({ userId: principal.userId, uploadId: params.upload_id });
        setUploadHeaders(ctx, view.upload);
        ctx.set('Upload-Offset', String(view.upload.offset));
        ctx.set('Upload-Length', String(view.upload.length));
        if (view.file) ctx.set('Hangar-File-Id', view.file.file.fileId);
        ctx.body = {
          upload_id: view.upload.id,
          status: view.upload.status,
          offset: view.upload.offset,
          length: view.upload.length,
          expires_at: view.upload.expiresAt.toISOString(),
          file_id: view.upload.fileId,
          ...(view.file ? { file: fileJson(view.file) } : {}),
        };
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/files/resumable/:upload_id',
      operationId: 'terminateResumableUpload',
      tag: 'files',
      auth: { scopes: ['files:write'] },
      errorCodes: ['TUS_VERSION_NOT_SUPPORTED', 'UPLOAD_NOT_FOUND'],
      summary: 'Terminate a resumable upload (tus termination): its bytes and reservation are removed',
      params: UploadParams,
      headers: Type.Object(TusHeaders),
      responses: { 204: null, ...errors(401, 404, 412) },
      handler: async ({ ctx, params, principal }) => {
        tusPreamble(ctx);
        await hangar.terminateResumableUpload.execute({ userId: principal.userId, uploadId: params.upload_id });
        ctx.status = 204;
      },
    }),
  ];
}

/**
 * One PATCH body through the use case, paced as every body is (pacedRequestBody; a stalled body
 * keeps what arrived), aborted when the client goes away before the end of its body.
 */
export async function append(ctx: Context, hangar: Hangar, target: { userId: string; offset: number } & ({ uploadId: string } | { upload: ResumableUpload })) {
  const abort = new AbortController();
  const onClose = () => {
    if (!ctx.req.complete) abort.abort();
  };
  ctx.req.once('close', onClose);
  try {
    const header = ctx.get('Content-Length');
    return await hangar.appendToResumableUpload.execute({
      userId: target.userId,
      uploadId: 'upload' in target ? target.upload.id : target.uploadId,
      offset: target.offset,
      contentLength: /^\d+$/.test(header) ? Number(header) : undefined,
      body: pacedRequestBody(ctx),
      signal: abort.signal,
    });
  } finally {
    ctx.req.off('close', onClose);
  }
}

/** `Tus-Resumable` on the answer, and the request's checked (tus 1.0.0: 412 with `Tus-Version` when unsupported). */
export function tusPreamble(ctx: Context): void {
  ctx.set('Tus-Resumable', TUS_VERSION);
  const version = ctx.get('Tus-Resumable');
  if (version !== TUS_VERSION) {
    ctx.set('Tus-Version', TUS_VERSION);
    throw new DomainError('TUS_VERSION_NOT_SUPPORTED', `Send Tus-Resumable: ${TUS_VERSION}; this server speaks tus ${TUS_VERSION} only.`, {
      tus_version: TUS_VERSION,
    });
  }
}

/** `Upload-Expires` while the upload is unfinished. */
export function setUploadHeaders(ctx: Context, upload: ResumableUpload): void {
  // RFC 9110 §5.6.7 IMF-fixdate, as tus requires for Upload-Expires.
  if (upload.status === 'uploading') ctx.set('Upload-Expires', upload.expiresAt.toUTCString());
}

/** Whether the request carries a body (a Content-Length above 0, or chunked). */
export function hasBody(ctx: Context): boolean {
  const length = ctx.get('Content-Length');
  return length === '' ? ctx.get('Transfer-Encoding') !== '' : length.trim() !== '0';
}

/**
 * tus `Upload-Metadata`: comma-separated pairs of a key and an optional base64 value (tus 1.0.0
 * §Upload-Metadata). Keys are taken case-insensitively (lower-cased).
 * @throws DomainError VALIDATION_FAILED for a malformed pair or value
 */
export function parseMetadata(header: string): Map<string, string> {
  const entries = new Map<string, string>();
  if (header.trim() === '') return entries;
  for (const pair of header.split(',')) {
    const [key, value, extra] = pair.trim().split(' ');
    if (!key || extra !== undefined || (value !== undefined && !/^[A-Za-z0-9+/]*={0,2}$/.test(value))) {
      throw new DomainError('VALIDATION_FAILED', 'Upload-Metadata must be comma-separated `key base64value` pairs (tus 1.0.0).', [
        { in: 'header', path: '/upload-metadata', message: 'Malformed pair' },
      ]);
    }
    entries.set(key.toLowerCase(), value === undefined ? '' : Buffer.from(value, 'base64').toString('utf8'));
  }
  return entries;
}

function booleanOf(value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new DomainError('VALIDATION_FAILED', 'The isPublic metadata must be `true` or `false`.', [
    { in: 'header', path: '/upload-metadata/isPublic', message: 'Expected true or false' },
  ]);
}

function dateOf(value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const date = /^\d{4}-\d{2}-\d{2}/.test(value) ? new Date(value) : new Date(Number.NaN);
  if (Number.isNaN(date.getTime())) throw new DomainError('INVALID_EXPIRY', 'The expiresAt metadata must be an ISO 8601 time in the future.');
  return date;
}
