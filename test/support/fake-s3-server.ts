import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** One request as the fake saw it: `key` is the object key ('' for the bucket itself). */
export interface S3Request {
  method: string;
  bucket: string;
  key: string;
  query: Record<string, string>;
  headers: IncomingMessage['headers'];
}

/** Which requests a fault applies to. */
export type S3RequestMatch = (request: S3Request) => boolean;

/** What the SDK calls each kind of request, for fault matching and assertions. */
export function operationOf(request: S3Request): string {
  const { method, key, query } = request;
  if (key === '') return method === 'HEAD' ? 'HeadBucket' : method === 'GET' ? 'ListObjectsV2' : `${method}Bucket`;
  if (method === 'POST' && 'uploads' in query) return 'CreateMultipartUpload';
  if (method === 'POST' && query.uploadId) return 'CompleteMultipartUpload';
  if (method === 'PUT' && query.uploadId) return 'UploadPart';
  if (method === 'DELETE' && query.uploadId) return 'AbortMultipartUpload';
  return { PUT: 'PutObject', GET: 'GetObject', HEAD: 'HeadObject', DELETE: 'DeleteObject' }[method] ?? method;
}

type Fault =
  | { kind: 'status'; status: number; code: string; remaining: number; match: S3RequestMatch }
  | { kind: 'hang'; match: S3RequestMatch }
  | { kind: 'drop'; remaining: number; afterBytes: number; match: S3RequestMatch }
  | { kind: 'stall-body'; match: S3RequestMatch };

/**
 * A fake of the Amazon S3 REST API, path-style (`/<bucket>/<key>`), as `@aws-sdk/client-s3` v3 and
 * `@aws-sdk/lib-storage` call it, kept in memory, for fault tests the real test server cannot do.
 * Shapes follow the S3 API reference (https://docs.aws.amazon.com/AmazonS3/latest/API/):
 * HeadBucket, ListObjectsV2 (`list-type=2`, `prefix`, `max-keys`, `continuation-token`), PutObject
 * (with `If-None-Match: *` → 412 PreconditionFailed), GetObject (with one `Range`, 206), HeadObject,
 * DeleteObject (204 whether or not it existed), CreateMultipartUpload, UploadPart,
 * CompleteMultipartUpload (with `If-None-Match: *`), AbortMultipartUpload; errors as
 * `<Error><Code>…</Code></Error>` (https://docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html).
 *
 * Faults: {@link failNext} (N answers with a status and error code: 500 InternalError, 503 SlowDown…),
 * {@link dropNext} (the connection is cut after part of the request body arrived), {@link hang}
 * (requests read, never answered). Not covered: authentication (signatures are not checked),
 * virtual-hosted addressing, versioning, checksums, ACLs, delimiters, copy, tagging.
 */
export class FakeS3Server {
  /** Base URL to pass as `endpoint` (with path-style addressing). */
  url = '';
  /** Every request received, in order. */
  readonly requests: S3Request[] = [];
  /** Most keys one ListObjectsV2 answer holds, whatever `max-keys` asks (lower it to test paging). */
  listPageLimit = 1000;
  /** Bytes of request bodies received so far, for backpressure checks. */
  bytesReceived = 0;
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private readonly buckets = new Set<string>();
  private readonly objects = new Map<string, { bytes: Buffer; contentType: string; modified: Date }>();
  private readonly uploads = new Map<string, { bucket: string; key: string; contentType: string; parts: Map<number, Buffer> }>();
  private fault: Fault | undefined;

  /** @param buckets names of the buckets that exist */
  constructor(buckets: string[]) {
    buckets.forEach((bucket) => this.buckets.add(bucket));
    this.server = createServer((request, response) => {
      this.handle(request, response).catch((error: unknown) => {
        if (!response.headersSent) sendError(response, 500, 'InternalError', String(error));
        else response.destroy();
      });
    });
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
  }

  /** Listens on a free local port. */
  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** Stops, dropping open connections (hung requests included). */
  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Answers the next `count` matching requests with `status` (default 503) and error `code` (default SlowDown for 503, InternalError otherwise). */
  failNext(count: number, options: { status?: number; code?: string; match?: S3RequestMatch } = {}): void {
    const status = options.status ?? 503;
    this.fault = {
      kind: 'status',
      status,
      code: options.code ?? (status === 503 ? 'SlowDown' : 'InternalError'),
      remaining: count,
      match: options.match ?? (() => true),
    };
  }

  /** Answers every matching request with an error until {@link heal}. */
  failAlways(options: { status?: number; code?: string; match?: S3RequestMatch } = {}): void {
    this.failNext(Number.POSITIVE_INFINITY, options);
  }

  /** Cuts the connection of the next `count` matching requests once `afterBytes` of their body arrived. */
  dropNext(count: number, options: { afterBytes?: number; match?: S3RequestMatch } = {}): void {
    this.fault = { kind: 'drop', remaining: count, afterBytes: options.afterBytes ?? 1, match: options.match ?? (() => true) };
  }

  /** Answers matching GetObject requests with their headers and first bytes, then sends nothing more. */
  stallBodies(match: S3RequestMatch = () => true): void {
    this.fault = { kind: 'stall-body', match };
  }

  /** Reads matching requests but never answers them, until {@link heal} or {@link close}. */
  hang(match: S3RequestMatch = () => true): void {
    this.fault = { kind: 'hang', match };
  }

  /** Ends any fault. */
  heal(): void {
    this.fault = undefined;
  }

  /** Keys of the objects in `bucket`, sorted. */
  objectKeys(bucket: string): string[] {
    return [...this.objects.keys()]
      .filter((name) => name.startsWith(`${bucket}/`))
      .map((name) => name.slice(bucket.length + 1))
      .sort();
  }

  /** An object's bytes and content type, or undefined. */
  object(bucket: string, key: string): { bytes: Buffer; contentType: string } | undefined {
    return this.objects.get(`${bucket}/${key}`);
  }

  /** Multipart uploads neither completed nor aborted. */
  openUploads(): number {
    return this.uploads.size;
  }

  /** The SDK operation of every request, in order (see {@link operationOf}). */
  operations(): string[] {
    return this.requests.map(operationOf);
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://fake');
    const [, bucket = '', ...rest] = url.pathname.split('/');
    request.on('data', (chunk: Buffer) => (this.bytesReceived += chunk.length));
    const entry: S3Request = {
      method: request.method ?? 'GET',
      bucket: decodeURIComponent(bucket),
      key: rest.map(decodeURIComponent).join('/'),
      query: Object.fromEntries(url.searchParams),
      headers: request.headers,
    };
    this.requests.push(entry);

    const fault = this.fault;
    if (fault && fault.match(entry)) {
      if (fault.kind === 'hang') {
        request.resume();
        return;
      }
      if (fault.kind === 'stall-body') {
        const object = this.objects.get(`${entry.bucket}/${entry.key}`);
        if (object && object.bytes.length > 1) {
          response.writeHead(200, { 'content-length': object.bytes.length, 'content-type': object.contentType }).write(object.bytes.subarray(0, 1));
          return;
        }
        return sendError(response, 404, 'NoSuchKey', 'The specified key does not exist.');
      }
      if (fault.kind === 'drop') {
        if (--fault.remaining <= 0) this.fault = undefined;
        let received = 0;
        request.on('data', (chunk: Buffer) => {
          received += chunk.length;
          if (received >= fault.afterBytes) request.socket.destroy();
        });
        request.on('end', () => request.socket.destroy());
        return;
      }
      if (--fault.remaining <= 0) this.fault = undefined;
      await readBody(request);
      return sendError(response, fault.status, fault.code, 'Injected fault.');
    }

    if (!this.buckets.has(entry.bucket)) {
      await readBody(request);
      return sendError(response, 404, 'NoSuchBucket', 'The specified bucket does not exist.', entry.method === 'HEAD');
    }
    const name = `${entry.bucket}/${entry.key}`;
    const { method, query } = entry;
    switch (operationOf(entry)) {
      case 'HeadBucket':
        response.writeHead(200).end();
        return;
      case 'ListObjectsV2':
        return this.list(entry, response);
      case 'PutObject': {
        const bytes = await readBody(request);
        if (request.headers['if-none-match'] === '*' && this.objects.has(name))
          return sendError(response, 412, 'PreconditionFailed', 'At least one of the pre-conditions you specified did not hold');
        this.objects.set(name, { bytes, contentType: String(request.headers['content-type'] ?? 'binary/octet-stream'), modified: new Date() });
        response.writeHead(200, { etag: etagOf(bytes) }).end();
        return;
      }
      case 'GetObject':
      case 'HeadObject': {
        const object = this.objects.get(name);
        if (!object) return sendError(response, 404, 'NoSuchKey', 'The specified key does not exist.', method === 'HEAD');
        const headers = {
          'content-type': object.contentType,
          'last-modified': object.modified.toUTCString(),
          etag: etagOf(object.bytes),
          'accept-ranges': 'bytes',
        };
        const match = /^bytes=(\d+)-(\d+)$/.exec(String(request.headers.range ?? ''));
        if (match && method === 'GET') {
          const [start, end] = [Number(match[1]), Math.min(Number(match[2]), object.bytes.length - 1)];
          if (start >= object.bytes.length) return sendError(response, 416, 'InvalidRange', 'The requested range is not satisfiable');
          const slice = object.bytes.subarray(start, end + 1);
          response.writeHead(206, { ...headers, 'content-length': slice.length, 'content-range': `bytes ${start}-${end}/${object.bytes.length}` }).end(slice);
          return;
        }
        response.writeHead(200, { ...headers, 'content-length': object.bytes.length });
        response.end(method === 'HEAD' ? undefined : object.bytes);
        return;
      }
      case 'DeleteObject':
        this.objects.delete(name);
        response.writeHead(204).end();
        return;
      case 'CreateMultipartUpload': {
        const uploadId = randomUUID();
        this.uploads.set(uploadId, {
          bucket: entry.bucket,
          key: entry.key,
          contentType: String(request.headers['content-type'] ?? 'binary/octet-stream'),
          parts: new Map(),
        });
        return sendXml(
          response,
          200,
          `<InitiateMultipartUploadResult><Bucket>${entry.bucket}</Bucket><Key>${entry.key}</Key><UploadId>${uploadId}</UploadId></InitiateMultipartUploadResult>`,
        );
      }
      case 'UploadPart': {
        const upload = this.uploads.get(query.uploadId);
        const bytes = await readBody(request);
        if (!upload) return sendError(response, 404, 'NoSuchUpload', 'The specified upload does not exist.');
        upload.parts.set(Number(query.partNumber), bytes);
        response.writeHead(200, { etag: etagOf(bytes) }).end();
        return;
      }
      case 'CompleteMultipartUpload': {
        const upload = this.uploads.get(query.uploadId);
        const xml = (await readBody(request)).toString();
        if (!upload) return sendError(response, 404, 'NoSuchUpload', 'The specified upload does not exist.');
        if (request.headers['if-none-match'] === '*' && this.objects.has(name))
          return sendError(response, 412, 'PreconditionFailed', 'At least one of the pre-conditions you specified did not hold');
        const numbers = [...xml.matchAll(/<PartNumber>(\d+)<\/PartNumber>/g)].map((m) => Number(m[1]));
        if (numbers.length === 0 || numbers.some((n) => !upload.parts.has(n)))
          return sendError(response, 400, 'InvalidPart', 'One or more of the specified parts could not be found.');
        // S3 refuses parts under 5 MiB but the last (https://docs.aws.amazon.com/AmazonS3/latest/userguide/qfacts.html).
        if (numbers.slice(0, -1).some((n) => upload.parts.get(n)!.length < 5 * 1024 * 1024))
          return sendError(response, 400, 'EntityTooSmall', 'Your proposed upload is smaller than the minimum allowed object size.');
        const bytes = Buffer.concat(numbers.map((n) => upload.parts.get(n)!));
        this.uploads.delete(query.uploadId);
        this.objects.set(name, { bytes, contentType: upload.contentType, modified: new Date() });
        return sendXml(
          response,
          200,
          `<CompleteMultipartUploadResult><Bucket>${entry.bucket}</Bucket><Key>${entry.key}</Key><ETag>${etagOf(bytes)}</ETag></CompleteMultipartUploadResult>`,
        );
      }
      case 'AbortMultipartUpload':
        this.uploads.delete(query.uploadId);
        response.writeHead(204).end();
        return;
      default:
        await readBody(request);
        return sendError(response, 501, 'NotImplemented', `${method} is not implemented by the fake.`);
    }
  }

  private list(entry: S3Request, response: ServerResponse): void {
    const prefix = entry.query.prefix ?? '';
    const limit = Math.min(Number(entry.query['max-keys'] ?? 1000), this.listPageLimit);
    const after = entry.query['continuation-token'] ?? '';
    const keys = this.objectKeys(entry.bucket).filter((key) => key.startsWith(prefix) && key > after);
    const page = keys.slice(0, limit);
    const truncated = keys.length > limit;
    const contents = page
      .map((key) => {
        const object = this.objects.get(`${entry.bucket}/${key}`)!;
        return `<Contents><Key>${key}</Key><LastModified>${object.modified.toISOString()}</LastModified><ETag>${etagOf(object.bytes)}</ETag><Size>${object.bytes.length}</Size><StorageClass>STANDARD</StorageClass></Contents>`;
      })
      .join('');
    sendXml(
      response,
      200,
      `<ListBucketResult><Name>${entry.bucket}</Name><Prefix>${prefix}</Prefix><KeyCount>${page.length}</KeyCount><MaxKeys>${limit}</MaxKeys><IsTruncated>${truncated}</IsTruncated>${contents}${truncated ? `<NextContinuationToken>${page[page.length - 1]}</NextContinuationToken>` : ''}</ListBucketResult>`,
    );
  }
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function etagOf(bytes: Buffer): string {
  return `"${createHash('md5').update(bytes).digest('hex')}"`;
}

function sendXml(response: ServerResponse, status: number, body: string): void {
  response.writeHead(status, { 'content-type': 'application/xml' }).end(`<?xml version="1.0" encoding="UTF-8"?>\n${body}`);
}

function sendError(response: ServerResponse, status: number, code: string, message: string, headOnly = false): void {
  if (headOnly) {
    response.writeHead(status).end();
    return;
  }
  sendXml(response, status, `<Error><Code>${code}</Code><Message>${message}</Message><RequestId>fake</RequestId></Error>`);
}
