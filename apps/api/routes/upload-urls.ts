import { Type } from '@sinclair/typebox';
import busboy from 'busboy';
import type { Context } from 'koa';
import { Readable } from 'node:stream';
import { UPLOAD_URL_MAX_CONTENT_TYPES } from '../../../core/files/create-upload-url.js';
import type { FileView } from '../../../core/files/file-view.js';
import { UPLOAD_URL_DEFAULT_SECONDS, UPLOAD_URL_MAX_SECONDS, UPLOAD_URL_MIN_SECONDS } from '../../../core/files/upload-urls.js';
import type { UploadWithUrlInput } from '../../../core/files/upload-with-url.js';
import type { Hangar } from '../../../core/hangar.js';
import { DomainError, type ErrorCode } from '../../../core/shared/errors.js';
import { headerText } from '../../http/header-text.js';
import { defineRoute, type Route } from '../../http/route.js';
import { pacedRequestBody } from '../../http/upload-pacing.js';
import { fileJson } from '../../http/presenters/presenters.js';
import { FileBody } from '../schemas.js';
import { errors } from '../../http/error-body.js';
import { contentLengthOf, timestamp } from './files.js';
import { append, hasBody, OFFSET_STREAM, parseMetadata, setUploadHeaders, TUS_VERSION, tusPreamble } from './resumable.js';

/** The path prefix of upload URLs: every origin may send to it (the URL is the credential), see apps/api/api-app.ts. */
export const SIGNED_UPLOAD_PATH = '/uploads/';

const UploadedFile = Type.Object({ file: FileBody, message: Type.String() });
const SignedUploadParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
const TusParams = Type.Object({ id: Type.String({ maxLength: 64 }), upload_id: Type.String({ maxLength: 64 }) });
const SignedUploadQuery = Type.Object({ signature: Type.Optional(Type.String({ maxLength: 128, description: 'The signature the URL was minted with' })) });
const UPLOAD_ERRORS: ErrorCode[] = [
  'UPLOAD_URL_INVALID',
  'UPLOAD_URL_EXPIRED',
  'UPLOAD_URL_USED',
  'CONTENT_TYPE_NOT_ALLOWED',
  'CONTENT_TYPE_MISMATCH',
  'INVALID_FILE_NAME',
  'EMPTY_FILE',
  'UPLOAD_INCOMPLETE',
  'TRIAL_ENDED',
  'STORAGE_LIMIT_REACHED',
  'FILE_COUNT_LIMIT_REACHED',
  'FILE_TOO_LARGE',
  'RATE_LIMITED',
  'STORAGE_FULL',
  'FILE_ID_COLLISION',
];
const UPLOAD_ERRORS_TEXT =
  'Errors: 400 `CONTENT_TYPE_NOT_ALLOWED` (also a type the URL does not allow), `CONTENT_TYPE_MISMATCH`, `INVALID_FILE_NAME`, `EMPTY_FILE`, `UPLOAD_INCOMPLETE`; ' +
  '403 `UPLOAD_URL_INVALID` (altered, revoked by `POST /settings/rotate-signing-key`, never issued), `UPLOAD_URL_EXPIRED`, `TRIAL_ENDED`, `STORAGE_LIMIT_REACHED`, `FILE_COUNT_LIMIT_REACHED`; ' +
  '409 `UPLOAD_URL_USED`; 413 `FILE_TOO_LARGE` (the URL’s `max_size_bytes` or the account’s limit); 429 `RATE_LIMITED`; 503 `FILE_ID_COLLISION`. ' +
  'A failed upload stores nothing and leaves the URL usable until it expires.';

/**
 * Signed upload URLs (docs/media.md): `POST /files/upload-url` mints one; `PUT` (raw body) or `POST`
 * (multipart/form-data, field `file`) to it uploads one file under the minting account with no other
 * credential. Browsers of any origin may send to it (CORS in apps/api/api-app.ts).
 */
export function uploadUrlRoutes(hangar: Hangar, options: { publicApiUrl: string }): Route[] {
  /** Runs one upload through the URL, aborting it when the client goes away; answers 201 with the File. */
  const uploadThrough = async (ctx: Context, input: Omit<UploadWithUrlInput, 'signal'>): Promise<void> => {
    const abort = new AbortController();
    const onClose = () => {
      if (!ctx.req.complete) abort.abort();
    };
    ctx.req.once('close', onClose);
    let view: FileView;
    try {
      view = await hangar.uploadWithUrl.execute({ ...input, signal: abort.signal });
    } finally {
      ctx.req.off('close', onClose);
    }
    ctx.status = 201;
    ctx.state.fileId = view.file.fileId;
    ctx.state.requestBytes = view.file.size;
    ctx.body = { file: fileJson(view), message: 'File uploaded.' };
  };
  const base = new URL(options.publicApiUrl).pathname.replace(/\/+$/, '');
  /** tus creation through the URL: 201 with `Location` = `<url path>/<upload_id>?signature=…`. */
  const startTus = async (ctx: Context, id: string, signature: string | undefined): Promise<void> => {
    tusPreamble(ctx);
    const length = ctx.get('Upload-Length');
    if (!/^[0-9]{1,16}$/.test(length)) {
      throw new DomainError('VALIDATION_FAILED', 'A tus creation needs Upload-Length (bytes).', [
        { in: 'header', path: '/upload-length', message: 'Expected a whole number of bytes' },
      ]);
    }
    const metadata = parseMetadata(ctx.get('Upload-Metadata'));
    const upload = await hangar.startResumableUploadWithUrl.execute({
      id,
      signature,
      length: Number(length),
      contentType: metadata.get('filetype'),
      fileName: metadata.get('filename'),
    });
    ctx.state.uploadId = upload.id;
    let current = upload;
    let fileId: string | undefined;
    if (ctx.is(OFFSET_STREAM) && hasBody(ctx)) {
      const outcome = await append(ctx, hangar, { userId: upload.userId, upload, offset: 0 });
      current = outcome.upload;
      fileId = outcome.file?.file.fileId;
    }
    ctx.set('Location', `${base}${SIGNED_UPLOAD_PATH}${id}/${upload.id}?signature=${encodeURIComponent(signature ?? '')}`);
    setUploadHeaders(ctx, current);
    if (ctx.is(OFFSET_STREAM)) ctx.set('Upload-Offset', String(current.offset));
    if (fileId) ctx.set('Hangar-File-Id', fileId);
    ctx.status = 201;
    ctx.body = '';
  };
  /** The minting account of the tus upload reached through the URL. */
  const ownerOf = async (params: { id: string; upload_id: string }, query: { signature?: string }) =>
    (await hangar.resumableUploadUrlOwner.execute({ id: params.id, signature: query.signature, uploadId: params.upload_id })).userId;
  return [
    defineRoute({
      method: 'PATCH',
      path: '/uploads/:id/:upload_id',
      operationId: 'appendToUploadUrlTus',
      tag: 'files',
      auth: 'none',
      errorCodes: [
        'UPLOAD_URL_INVALID',
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
      summary: 'tus PATCH of an upload started through a signed upload URL (as `PATCH /files/resumable/{upload_id}`, no credential)',
      description:
        'The `Location` of a tus creation at an upload URL. 403 `UPLOAD_URL_INVALID` once the signing key is rotated; otherwise as `PATCH /files/resumable/{upload_id}`.',
      params: TusParams,
      query: SignedUploadQuery,
      headers: Type.Object({ 'upload-offset': Type.String({ pattern: '^[0-9]{1,16}$', description: 'Bytes already sent' }) }),
      body: 'binary',
      responses: { 204: null, ...errors(400, 403, 404, 409, 410, 412, 413, 415, 423, 503, 507) },
      handler: async ({ ctx, params, query }) => {
        tusPreamble(ctx);
        const userId = await ownerOf(params, query);
        if (!ctx.is(OFFSET_STREAM)) throw new DomainError('UNSUPPORTED_MEDIA_TYPE', `Send the bytes as ${OFFSET_STREAM} (tus 1.0.0).`);
        const outcome = await append(ctx, hangar, { userId, uploadId: params.upload_id, offset: Number(ctx.get('Upload-Offset')) });
        ctx.state.uploadId = params.upload_id;
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
      path: '/uploads/:id/:upload_id',
      operationId: 'getUploadUrlTus',
      tag: 'files',
      auth: 'none',
      alsoHead: true,
      errorCodes: ['UPLOAD_URL_INVALID', 'UPLOAD_NOT_FOUND', 'UPLOAD_EXPIRED'],
      summary: 'tus HEAD (offset) of an upload started through a signed upload URL (no credential)',
      description:
        'HEAD answers 200 with `Upload-Offset`, `Upload-Length`, `Upload-Expires` and `Cache-Control: no-store` (and `Hangar-File-Id` once complete), as tus clients resume.',
      params: TusParams,
      query: SignedUploadQuery,
      responses: { 200: null, ...errors(403, 404, 410) },
      handler: async ({ ctx, params, query }) => {
        ctx.set('Tus-Resumable', TUS_VERSION);
        ctx.set('Cache-Control', 'no-store');
        const userId = await ownerOf(params, query);
        const view = await hangar.getResumableUpload.execute({ userId, uploadId: params.upload_id });
        setUploadHeaders(ctx, view.upload);
        ctx.set('Upload-Offset', String(view.upload.offset));
        ctx.set('Upload-Length', String(view.upload.length));
        if (view.file) ctx.set('Hangar-File-Id', view.file.file.fileId);
        ctx.status = 200;
        ctx.body = '';
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/uploads/:id/:upload_id',
      operationId: 'terminateUploadUrlTus',
      tag: 'files',
      auth: 'none',
      errorCodes: ['UPLOAD_URL_INVALID', 'TUS_VERSION_NOT_SUPPORTED', 'UPLOAD_NOT_FOUND'],
      summary: 'tus termination of an upload started through a signed upload URL (no credential); the URL stays used',
      params: TusParams,
      query: SignedUploadQuery,
      responses: { 204: null, ...errors(403, 404, 412) },
      handler: async ({ ctx, params, query }) => {
        tusPreamble(ctx);
        const userId = await ownerOf(params, query);
        await hangar.terminateResumableUpload.execute({ userId, uploadId: params.upload_id });
        ctx.status = 204;
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/files/upload-url',
      operationId: 'createUploadUrl',
      tag: 'files',
      auth: { scopes: ['files:write'] },
      errorCodes: ['INVALID_UPLOAD_URL_REQUEST', 'INVALID_FILE_NAME', 'INVALID_EXPIRY'],
      summary: 'Mint a short-lived, single-use URL at which a browser uploads one file under this account',
      description:
        'The answer’s `upload_url` takes one file, with no other credential: `PUT` with the raw bytes as the body (`Content-Type`, optional `X-File-Name`), ' +
        'or `POST` a `multipart/form-data` body whose field `file` holds it (a plain HTML form). Every rule of `POST /files` applies, plus the URL’s own limits. ' +
        'Any origin may send to it (CORS). `POST /settings/rotate-signing-key` revokes every outstanding upload URL.\n\n' +
        'Errors: 400 `INVALID_UPLOAD_URL_REQUEST` (`expires_in` outside 60–86400, a malformed media type), `INVALID_FILE_NAME`, `INVALID_EXPIRY`.',
      body: Type.Object(
        {
          expires_in: Type.Optional(
            Type.Integer({
              minimum: UPLOAD_URL_MIN_SECONDS,
              maximum: UPLOAD_URL_MAX_SECONDS,
              default: UPLOAD_URL_DEFAULT_SECONDS,
              description: 'Seconds the URL works',
            }),
          ),
          max_size_bytes: Type.Optional(
            Type.Integer({
              minimum: 1,
              maximum: Number.MAX_SAFE_INTEGER,
              description: 'Largest file accepted, in bytes (the account’s upload limit applies too)',
            }),
          ),
          content_types: Type.Optional(
            Type.Array(Type.String({ maxLength: 255 }), {
              minItems: 1,
              maxItems: UPLOAD_URL_MAX_CONTENT_TYPES,
              description: 'Accepted media types, e.g. `image/png` or `image/*`',
            }),
          ),
          name: Type.Optional(Type.String({ maxLength: 4096, description: 'The stored file’s name (at most 255 characters), whatever the browser sends' })),
          is_public: Type.Optional(Type.Boolean({ default: true })),
          expires_at: Type.Optional(Type.String({ maxLength: 64, description: 'ISO 8601: when the uploaded file is deleted automatically' })),
        },
        { additionalProperties: false },
      ),
      responses: {
        201: Type.Object({
          upload_url: Type.String({ description: 'PUT or POST (multipart) one file here' }),
          expires_at: Type.String({ description: 'ISO 8601' }),
        }),
        ...errors(400, 401, 403, 404),
      },
      handler: async ({ ctx, body, principal }) => {
        const minted = await hangar.createUploadUrl.execute({
          userId: principal.userId,
          apiKeyId: principal.kind === 'api_key' ? principal.apiKeyId : undefined,
          expiresInSeconds: body.expires_in,
          maxSizeBytes: body.max_size_bytes,
          contentTypes: body.content_types,
          name: body.name,
          isPublic: body.is_public,
          fileExpiresAt: timestamp('expires_at', body.expires_at, 'body'),
        });
        ctx.status = 201;
        ctx.body = { upload_url: minted.url, expires_at: minted.expiresAt.toISOString() };
      },
    }),
    defineRoute({
      method: 'PUT',
      path: '/uploads/:id',
      operationId: 'uploadWithUrl',
      tag: 'files',
      auth: 'none',
      errorCodes: UPLOAD_ERRORS,
      summary: 'Upload one file as the raw body through a signed upload URL (no credential)',
      description: UPLOAD_ERRORS_TEXT,
      params: SignedUploadParams,
      query: SignedUploadQuery,
      headers: Type.Object({
        'content-type': Type.String({ description: 'MIME type of the file', examples: ['image/png'] }),
        'x-file-name': Type.Optional(Type.String({ maxLength: 4096, description: 'File name: raw UTF-8 or `%XX` escapes; the URL’s `name` wins' })),
      }),
      body: 'binary',
      responses: { 201: UploadedFile, ...errors(400, 403, 408, 409, 413, 429, 503, 507) },
      handler: async ({ ctx, params, query }) => {
        await uploadThrough(ctx, {
          id: params.id,
          signature: query.signature,
          contentType: ctx.get('Content-Type') || undefined,
          fileName: headerText(ctx.req.headers['x-file-name'] as string | undefined),
          contentLength: contentLengthOf(ctx),
          body: pacedRequestBody(ctx),
        });
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/uploads/:id',
      operationId: 'uploadFormWithUrl',
      tag: 'files',
      auth: 'none',
      errorCodes: [...UPLOAD_ERRORS, 'UNSUPPORTED_MEDIA_TYPE'],
      summary: 'Upload one file from a multipart/form-data body (field `file`, e.g. a plain HTML form) through a signed upload URL; or start a tus upload',
      description:
        'The file is the part named `file` (its own `Content-Type` and file name are used); other fields are ignored, and so are parts after it. ' +
        'With `Tus-Resumable: 1.0.0` this is instead a tus creation (`Upload-Length`, `Upload-Metadata` with `filetype` and `filename`, as `POST /files/resumable`): ' +
        'it answers 201 with no body and a `Location` under this URL, which takes the upload’s PATCH, HEAD and DELETE with no other credential (`tus-js-client` with `endpoint: upload_url`). ' +
        `415 \`UNSUPPORTED_MEDIA_TYPE\` for a body that is not multipart/form-data, 400 \`VALIDATION_FAILED\` when there is no \`file\` part.\n\n${UPLOAD_ERRORS_TEXT}`,
      params: SignedUploadParams,
      query: SignedUploadQuery,
      body: 'binary',
      responses: { 201: UploadedFile, ...errors(400, 403, 408, 409, 413, 415, 429, 503, 507) },
      handler: async ({ ctx, params, query }) => {
        if (ctx.get('Tus-Resumable') !== '') {
          await startTus(ctx, params.id, query.signature);
          return;
        }
        const part = await fileFieldOf(ctx, pacedRequestBody(ctx));
        await uploadThrough(ctx, {
          id: params.id,
          signature: query.signature,
          contentType: part.mimeType,
          // The form's name is text already: escaped so that the upload's name parser keeps it as it is.
          fileName: part.filename ? encodeURIComponent(part.filename) : undefined,
          body: part.stream,
        });
      },
    }),
  ];
}

/**
 * The `file` part of a multipart/form-data body (RFC 7578), streamed: resolves as soon as the part
 * starts, with its body as a stream. Parts before it are skipped; at most one file is read.
 * @throws DomainError UNSUPPORTED_MEDIA_TYPE (415) when the body is not multipart/form-data;
 *         VALIDATION_FAILED (400) when it ends without a `file` part or is malformed before it
 */
function fileFieldOf(ctx: Context, body: AsyncIterable<Uint8Array>): Promise<{ stream: Readable; mimeType: string; filename: string | undefined }> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: ctx.req.headers, defParamCharset: 'utf8', limits: { files: 1, fields: 50, fieldSize: 64 * 1024, parts: 60 } });
    } catch {
      reject(new DomainError('UNSUPPORTED_MEDIA_TYPE', 'Send the file as multipart/form-data in a field named `file`, or PUT the raw bytes.'));
      return;
    }
    let found = false;
    let fileStream: Readable | undefined;
    const missing = () =>
      new DomainError('VALIDATION_FAILED', 'The form has no file in a field named `file`.', [
        { in: 'body', path: '/file', message: 'Expected a file part named file' },
      ]);
    parser.on('file', (name, stream, info) => {
      if (found || name !== 'file') {
        stream.resume();
        return;
      }
      found = true;
      fileStream = stream;
      // The error may come before the upload reads the stream (the whole body already parsed): the reader
      // still sees it (a destroyed stream's iterator throws it); this listener keeps it from being unhandled.
      stream.on('error', () => undefined);
      resolve({ stream, mimeType: info.mimeType, filename: info.filename || undefined });
    });
    // After the file part started, a failure (a cut or trickling body, a malformed end) ends its stream with
    // the error, so the upload reading it stops (UPLOAD_INCOMPLETE, or the source's own DomainError).
    parser.on('error', (error: Error) => {
      if (!found) reject(error instanceof DomainError ? error : new DomainError('VALIDATION_FAILED', 'The multipart/form-data body is malformed.'));
      else if (!fileStream!.readableEnded) fileStream!.destroy(error);
    });
    parser.on('close', () => {
      if (!found) reject(missing());
    });
    const source = Readable.from(body);
    source.on('error', (error) => {
      if (fileStream && !fileStream.readableEnded) fileStream.destroy(error);
      parser.destroy(error);
    });
    source.pipe(parser);
  });
}
