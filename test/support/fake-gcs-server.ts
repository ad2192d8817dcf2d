import { createHash, randomBytes, type Hash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A fake of the Google Cloud Storage JSON API v1, as `@google-cloud/storage` 7 calls it, for tests
 * (select it with the client's `apiEndpoint`). Shapes follow Google's reference:
 * https://cloud.google.com/storage/docs/json_api/v1 (objects: insert, get, delete; buckets: get),
 * https://cloud.google.com/storage/docs/uploading-objects (multipart and media uploads),
 * https://cloud.google.com/storage/docs/performing-resumable-uploads (sessions, `Content-Range`,
 * 308 with `Range`), https://cloud.google.com/storage/docs/json_api/v1/status-codes (error bodies).
 *
 * Served:
 * - `POST /upload/storage/v1/b/{bucket}/o?uploadType=media|multipart|resumable&name=…[&ifGenerationMatch=0]`
 * - `PUT` / `DELETE` on the resumable session URI (`…&upload_id=…`): chunks, status queries, cancel
 * - `GET /storage/v1/b/{bucket}` (bucket metadata), `GET /storage/v1/b/{bucket}/o/{object}` (object
 *   metadata, or the bytes with `alt=media`, 206 for a `Range`), `GET /download/storage/v1/b/{bucket}/o/{object}?alt=media`
 * - `DELETE /storage/v1/b/{bucket}/o/{object}` (204, or 404)
 * - `GET /storage/v1/b/{bucket}/o?prefix=…&maxResults=…&pageToken=…` (objects.list, names in
 *   lexicographic order, `nextPageToken` when more remain)
 *
 * Object bytes go to temp files, so large objects cost no memory; metadata stays in memory.
 * Faults for tests: {@link FakeGcsServer.failNext} (N error answers, e.g. 503), {@link FakeGcsServer.failAlways}
 * and {@link FakeGcsServer.hang} (requests are read but never answered).
 * Not covered: authentication and IAM, ACLs, object versioning beyond `ifGenerationMatch`, other
 * preconditions, composite objects, customer-supplied keys, gzip transcoding, XML API, signed URLs,
 * delimiters and versions in listings, copy/rewrite, bucket operations other than get, request-rate limits.
 */
export class FakeGcsServer {
  /** Base URL to pass as `apiEndpoint`, e.g. `http://127.0.0.1:40123`. */
  url = '';
  /** Every request received, in order. */
  readonly requests: Array<{ method: string; path: string; query: Record<string, string>; headers: IncomingMessage['headers'] }> = [];
  /** Most objects one objects.list answer holds, whatever `maxResults` asks (lower it to test paging). */
  listPageLimit = 1000;
  /** Bytes of upload bodies received so far (all kinds), for backpressure checks. */
  bytesReceived = 0;
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private readonly buckets = new Set<string>();
  private readonly objects = new Map<string, StoredObject>();
  private readonly sessions = new Map<string, Session>();
  private directory = '';
  private generation = 1_700_000_000_000_000;
  private fault: { kind: 'status'; status: number; remaining: number; match: RequestMatch } | { kind: 'hang'; match: RequestMatch } | undefined;

  /** @param buckets names of the buckets that exist */
  constructor(buckets: string[]) {
    buckets.forEach((bucket) => this.buckets.add(bucket));
    this.server = createServer((request, response) => {
      this.handle(request, response).catch((error: unknown) => {
        if (!response.headersSent) sendError(response, 500, 'backendError', String(error));
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
    this.directory = await mkdtemp(join(tmpdir(), 'hangar-fake-gcs-'));
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** Stops, dropping open connections (hung requests included), and removes the temp files. */
  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    await rm(this.directory, { recursive: true, force: true });
  }

  /** Answers the next `count` matching requests with `status` (default 503) and Google's error body. */
  failNext(count: number, options: { status?: number; match?: RequestMatch } = {}): void {
    this.fault = { kind: 'status', status: options.status ?? 503, remaining: count, match: options.match ?? (() => true) };
  }

  /** Answers every matching request with `status` (default 503) until {@link heal}. */
  failAlways(options: { status?: number; match?: RequestMatch } = {}): void {
    this.failNext(Number.POSITIVE_INFINITY, options);
  }

  /** Reads matching requests but never answers them, until {@link heal} or {@link close}. */
  hang(match: RequestMatch = () => true): void {
    this.fault = { kind: 'hang', match };
  }

  /** Ends any fault. */
  heal(): void {
    this.fault = undefined;
  }

  /** Names of the objects in `bucket`, sorted. */
  objectNames(bucket: string): string[] {
    return [...this.objects.values()]
      .filter((o) => o.bucket === bucket)
      .map((o) => o.name)
      .sort();
  }

  /** Metadata of an object as the API shows it, or undefined. */
  objectMetadata(bucket: string, name: string): Record<string, unknown> | undefined {
    const object = this.objects.get(`${bucket}/${name}`);
    return object && resource(object, this.url);
  }

  /** Test helper: sets an object's `timeCreated`/`updated` (what an age rule sees). */
  setObjectTime(bucket: string, name: string, time: Date): void {
    const object = this.objects.get(`${bucket}/${name}`);
    if (!object) throw new Error(`No object ${bucket}/${name}.`);
    object.created = new Date(time);
  }

  /** Open resumable sessions (neither finished nor cancelled). */
  openSessions(): number {
    return this.sessions.size;
  }

  /** The `uploadType` of each objects.insert call (`POST`), in order: `multipart`, `media` or `resumable`. */
  uploadTypes(): string[] {
    return this.requests.filter((r) => r.method === 'POST' && r.query.uploadType).map((r) => r.query.uploadType);
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://fake');
    const query = Object.fromEntries(url.searchParams);
    const entry = { method: request.method ?? 'GET', path: url.pathname, query, headers: request.headers };
    this.requests.push(entry);

    const fault = this.fault;
    if (fault && fault.match(entry)) {
      if (fault.kind === 'hang') {
        request.resume();
        return;
      }
      if (fault.remaining > 0) {
        fault.remaining -= 1;
        await drain(request);
        return sendError(response, fault.status, fault.status === 503 ? 'backendError' : 'injected', 'Injected fault.');
      }
    }

    const path = url.pathname;
    const method = request.method;
    let match: RegExpMatchArray | null;
    if ((match = path.match(/^\/upload\/storage\/v1\/b\/([^/]+)\/o$/))) {
      const bucket = decodeURIComponent(match[1]);
      if (!this.buckets.has(bucket)) return sendError(response, 404, 'notFound', 'The specified bucket does not exist.');
      if (method === 'POST') return this.insert(bucket, query, request, response);
      if ((method === 'PUT' || method === 'POST') && query.upload_id) return this.resumableChunk(query.upload_id, request, response);
      if (method === 'DELETE' && query.upload_id) return this.cancelSession(query.upload_id, request, response);
      if (method === 'PUT' && !query.upload_id) return sendError(response, 400, 'invalid', 'Missing upload_id.');
    }
    if ((match = path.match(/^\/storage\/v1\/b\/([^/]+)$/)) && method === 'GET') {
      const bucket = decodeURIComponent(match[1]);
      if (!this.buckets.has(bucket)) return sendError(response, 404, 'notFound', 'The specified bucket does not exist.');
      return sendJson(response, 200, {
        kind: 'storage#bucket',
        id: bucket,
        name: bucket,
        location: 'US',
        storageClass: 'STANDARD',
        metageneration: '1',
        timeCreated: new Date(0).toISOString(),
      });
    }
    if ((match = path.match(/^\/storage\/v1\/b\/([^/]+)\/o$/)) && method === 'GET') {
      const bucket = decodeURIComponent(match[1]);
      if (!this.buckets.has(bucket)) return sendError(response, 404, 'notFound', 'The specified bucket does not exist.');
      const prefix = query.prefix ?? '';
      const pageSize = Math.max(1, Math.min(this.listPageLimit, Number(query.maxResults ?? 1000) || 1000));
      const names = this.objectNames(bucket).filter((name) => name.startsWith(prefix) && (query.pageToken === undefined || name > query.pageToken));
      const page = names.slice(0, pageSize);
      return sendJson(response, 200, {
        kind: 'storage#objects',
        items: page.map((name) => resource(this.objects.get(`${bucket}/${name}`)!, this.url)),
        ...(names.length > pageSize ? { nextPageToken: page[page.length - 1] } : {}),
      });
    }
    if ((match = path.match(/^\/(storage|download\/storage)\/v1\/b\/([^/]+)\/o\/(.+)$/))) {
      const bucket = decodeURIComponent(match[2]);
      const name = decodeURIComponent(match[3]);
      if (!this.buckets.has(bucket)) return sendError(response, 404, 'notFound', 'The specified bucket does not exist.');
      const object = this.objects.get(`${bucket}/${name}`);
      if (method === 'GET') {
        if (!object) return sendError(response, 404, 'notFound', `No such object: ${bucket}/${name}`);
        if (query.alt === 'media') return this.media(object, request, response);
        if (match[1] === 'download') return sendError(response, 400, 'invalid', 'alt=media is required here.');
        return sendJson(response, 200, resource(object, this.url));
      }
      if (method === 'DELETE' && match[1] === 'storage') {
        if (!object) return sendError(response, 404, 'notFound', `No such object: ${bucket}/${name}`);
        if (query.ifGenerationMatch !== undefined && query.ifGenerationMatch !== String(object.generation)) return preconditionFailed(response);
        this.objects.delete(`${bucket}/${name}`);
        await rm(object.path, { force: true });
        response.writeHead(204).end();
        return;
      }
    }
    await drain(request);
    sendError(response, 404, 'notFound', `Not Found: ${method} ${path}`);
  }

  /** objects.insert: media (bytes only), multipart (JSON metadata + bytes) or the start of a resumable session. */
  private async insert(bucket: string, query: Record<string, string>, request: IncomingMessage, response: ServerResponse): Promise<void> {
    const type = query.uploadType;
    if (type === 'resumable') {
      const metadata = JSON.parse((await readAll(request)).toString('utf8') || '{}') as Record<string, unknown>;
      const name = query.name ?? (metadata.name as string | undefined);
      if (!name) return sendError(response, 400, 'required', 'Required parameter: name');
      if (!this.preconditionHolds(bucket, name, query)) return preconditionFailed(response);
      const id = randomBytes(16).toString('hex');
      const path = join(this.directory, `upload-${id}`);
      const contentType = String(
        (request.headers['x-upload-content-type'] as string | undefined) ?? (metadata.contentType as string | undefined) ?? 'application/octet-stream',
      );
      this.sessions.set(id, { id, bucket, name, contentType, query, path, committed: 0, md5: createHash('md5'), crc32c: 0 });
      const location = `${this.url}/upload/storage/v1/b/${encodeURIComponent(bucket)}/o?uploadType=resumable&name=${encodeURIComponent(name)}&upload_id=${id}`;
      response.writeHead(200, { location, 'content-length': '0' }).end();
      return;
    }
    if (type !== 'media' && type !== 'multipart') {
      await drain(request);
      return sendError(response, 400, 'invalid', `Invalid uploadType: ${String(type)}`);
    }
    // Single-request uploads are small (the client sends large ones resumably): read whole.
    const body = await readAll(request);
    let name: string | undefined = query.name;
    let contentType = String(request.headers['content-type'] ?? 'application/octet-stream');
    let data = body;
    if (type === 'multipart') {
      const parts = parseMultipart(body, contentType);
      if (!parts || parts.length !== 2) return sendError(response, 400, 'invalid', 'Invalid multipart request.');
      const metadata = JSON.parse(parts[0].body.toString('utf8')) as Record<string, unknown>;
      name ??= metadata.name as string | undefined;
      contentType = String((metadata.contentType as string | undefined) ?? parts[1].headers['content-type'] ?? 'application/octet-stream');
      data = parts[1].body;
    }
    if (!name) return sendError(response, 400, 'required', 'Required parameter: name');
    if (!this.preconditionHolds(bucket, name, query)) return preconditionFailed(response);
    const path = join(this.directory, `object-${randomBytes(16).toString('hex')}`);
    await new Promise<void>((resolve, reject) => createWriteStream(path).on('error', reject).end(data, resolve));
    this.bytesReceived += data.length;
    const object = this.store({
      bucket,
      name,
      contentType,
      path,
      size: data.length,
      md5: createHash('md5').update(data).digest('base64'),
      crc32c: crc32cBase64(crc32c(0, data)),
    });
    sendJson(response, 200, resource(object, this.url));
  }

  /**
   * One request on a resumable session: `Content-Range: bytes a-b/total|*` carries bytes,
   * `bytes *\/total|*` asks for the status (or finishes an upload whose bytes are all in).
   */
  private async resumableChunk(id: string, request: IncomingMessage, response: ServerResponse): Promise<void> {
    const session = this.sessions.get(id);
    if (!session) {
      await drain(request);
      return sendError(response, 404, 'notFound', 'No such upload session (finished, cancelled or unknown).');
    }
    const range = String(request.headers['content-range'] ?? '');
    const m = range.match(/^bytes (?:(\d+)-(\d+)|\*)\/(\d+|\*)$/);
    if (!m) {
      await drain(request);
      return sendError(response, 400, 'invalid', `Invalid Content-Range: ${range}`);
    }
    const total = m[3] === '*' ? undefined : Number(m[3]);
    if (m[1] !== undefined) {
      const start = Number(m[1]);
      const length = Number(m[2]) - start + 1;
      // Every chunk but the last must be a multiple of 256 KiB (Google's rule for chunked uploads); the fake refuses others outright.
      if (total === undefined && length % (256 * 1024) !== 0) {
        await drain(request);
        return sendError(response, 400, 'invalid', `A chunk that is not the last must be a multiple of 262144 bytes, got ${length}.`);
      }
      if (start > session.committed) {
        await drain(request);
        return sendError(response, 400, 'invalid', `Content-Range starts at ${start}, but only ${session.committed} bytes were persisted.`);
      }
      // Chunks of one session are appended in order; a retried chunk may overlap persisted bytes.
      let skip = session.committed - start;
      const output = createWriteStream(session.path, { flags: 'a' });
      await new Promise<void>((resolve, reject) => {
        request.on('data', (chunk: Buffer) => {
          if (skip >= chunk.length) {
            skip -= chunk.length;
            return;
          }
          const fresh = chunk.subarray(skip);
          skip = 0;
          session.committed += fresh.length;
          this.bytesReceived += fresh.length;
          session.md5.update(fresh);
          session.crc32c = crc32c(session.crc32c, fresh);
          if (!output.write(fresh)) {
            request.pause();
            output.once('drain', () => request.resume());
          }
        });
        request.once('end', resolve);
        request.once('aborted', () => reject(new Error('client aborted')));
        request.once('error', reject);
      }).finally(() => new Promise<void>((resolve) => output.end(resolve)));
    } else {
      await drain(request);
    }
    if (total !== undefined && session.committed >= total) {
      const finished = await this.finish(session, request);
      if ('error' in finished) return finished.error(response);
      return sendJson(response, 200, resource(finished.object, this.url));
    }
    // 308 Resume Incomplete, with the persisted range (none yet: no Range header).
    const headers: Record<string, string> = { 'content-length': '0' };
    if (session.committed > 0) headers.range = `bytes=0-${session.committed - 1}`;
    response.writeHead(308, headers).end();
  }

  private async finish(session: Session, request: IncomingMessage): Promise<{ object: StoredObject } | { error: (response: ServerResponse) => void }> {
    const md5 = session.md5.digest('base64');
    const crc = crc32cBase64(session.crc32c);
    // The client may send the object's hashes with the last chunk (`X-Goog-Hash: crc32c=…,md5=…`).
    for (const part of String(request.headers['x-goog-hash'] ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)) {
      const [algorithm, value] = [part.slice(0, part.indexOf('=')), part.slice(part.indexOf('=') + 1)];
      if ((algorithm === 'crc32c' && value !== crc) || (algorithm === 'md5' && value !== md5)) {
        this.sessions.delete(session.id);
        await rm(session.path, { force: true });
        return { error: (response) => sendError(response, 400, 'invalid', `Provided ${algorithm} hash does not match the uploaded data.`) };
      }
    }
    this.sessions.delete(session.id);
    if (!this.preconditionHolds(session.bucket, session.name, session.query)) {
      await rm(session.path, { force: true });
      return { error: preconditionFailed };
    }
    return {
      object: this.store({
        bucket: session.bucket,
        name: session.name,
        contentType: session.contentType,
        path: session.path,
        size: session.committed,
        md5,
        crc32c: crc,
      }),
    };
  }

  /** Cancels a session: Google answers 499 (https://cloud.google.com/storage/docs/performing-resumable-uploads#cancel-upload). */
  private async cancelSession(id: string, request: IncomingMessage, response: ServerResponse): Promise<void> {
    await drain(request);
    const session = this.sessions.get(id);
    if (!session) return sendError(response, 404, 'notFound', 'No such upload session.');
    this.sessions.delete(id);
    await rm(session.path, { force: true });
    response.writeHead(499, { 'content-length': '0' }).end();
  }

  /** The bytes, whole (200) or one `Range: bytes=a-b | a- | -n` (206; 416 outside the object). */
  private media(object: StoredObject, request: IncomingMessage, response: ServerResponse): void {
    const headers: Record<string, string> = {
      'content-type': object.contentType,
      'x-goog-generation': String(object.generation),
      'x-goog-hash': `crc32c=${object.crc32c},md5=${object.md5}`,
      'x-goog-stored-content-length': String(object.size),
      'accept-ranges': 'bytes',
    };
    const range = request.headers.range?.match(/^bytes=(\d*)-(\d*)$/);
    let start = 0;
    let end = object.size - 1;
    if (range && (range[1] !== '' || range[2] !== '')) {
      if (range[1] === '') {
        start = Math.max(0, object.size - Number(range[2]));
      } else {
        start = Number(range[1]);
        if (range[2] !== '') end = Math.min(end, Number(range[2]));
      }
      if (start >= object.size || start > end) return sendError(response, 416, 'requestedRangeNotSatisfiable', 'The requested range cannot be satisfied.');
      headers['content-range'] = `bytes ${start}-${end}/${object.size}`;
      headers['content-length'] = String(end - start + 1);
      response.writeHead(206, headers);
    } else {
      headers['content-length'] = String(object.size);
      response.writeHead(200, headers);
    }
    if (object.size === 0) return void response.end();
    createReadStream(object.path, { start, end }).pipe(response);
  }

  private preconditionHolds(bucket: string, name: string, query: Record<string, string>): boolean {
    if (query.ifGenerationMatch === undefined) return true;
    const existing = this.objects.get(`${bucket}/${name}`);
    return query.ifGenerationMatch === '0' ? existing === undefined : existing !== undefined && String(existing.generation) === query.ifGenerationMatch;
  }

  private store(fields: Omit<StoredObject, 'generation' | 'created'>): StoredObject {
    const object: StoredObject = { ...fields, generation: ++this.generation, created: new Date() };
    const previous = this.objects.get(`${object.bucket}/${object.name}`);
    this.objects.set(`${object.bucket}/${object.name}`, object);
    if (previous) void rm(previous.path, { force: true });
    return object;
  }
}

/** Picks the requests a fault applies to. */
export type RequestMatch = (request: { method: string; path: string; query: Record<string, string>; headers: IncomingMessage['headers'] }) => boolean;

interface StoredObject {
  bucket: string;
  name: string;
  contentType: string;
  path: string;
  size: number;
  md5: string;
  crc32c: string;
  generation: number;
  created: Date;
}

interface Session {
  id: string;
  bucket: string;
  name: string;
  contentType: string;
  query: Record<string, string>;
  path: string;
  committed: number;
  md5: Hash;
  crc32c: number;
}

/** The object resource (https://cloud.google.com/storage/docs/json_api/v1/objects#resource): int64 fields as strings, hashes in base64. */
function resource(object: StoredObject, base: string): Record<string, unknown> {
  const bucket = encodeURIComponent(object.bucket);
  const name = encodeURIComponent(object.name);
  return {
    kind: 'storage#object',
    id: `${object.bucket}/${object.name}/${object.generation}`,
    selfLink: `${base}/storage/v1/b/${bucket}/o/${name}`,
    mediaLink: `${base}/download/storage/v1/b/${bucket}/o/${name}?generation=${object.generation}&alt=media`,
    name: object.name,
    bucket: object.bucket,
    generation: String(object.generation),
    metageneration: '1',
    contentType: object.contentType,
    storageClass: 'STANDARD',
    size: String(object.size),
    md5Hash: object.md5,
    crc32c: object.crc32c,
    etag: Buffer.from(String(object.generation)).toString('base64'),
    timeCreated: object.created.toISOString(),
    updated: object.created.toISOString(),
    timeStorageClassUpdated: object.created.toISOString(),
  };
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json; charset=UTF-8', 'content-length': Buffer.byteLength(text) }).end(text);
}

/** Google's error body (https://cloud.google.com/storage/docs/json_api/v1/status-codes). */
function sendError(response: ServerResponse, code: number, reason: string, message: string): void {
  sendJson(response, code, { error: { code, message, errors: [{ message, domain: 'global', reason }] } });
}

function preconditionFailed(response: ServerResponse): void {
  sendError(response, 412, 'conditionNotMet', 'At least one of the pre-conditions you specified did not hold.');
}

async function readAll(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function drain(request: IncomingMessage): Promise<void> {
  for await (const _ of request);
}

/** Splits a `multipart/related` body (RFC 2387) into its parts. */
function parseMultipart(body: Buffer, contentType: string): Array<{ headers: Record<string, string>; body: Buffer }> | undefined {
  const boundary = contentType.match(/boundary="?([^";]+)"?/)?.[1];
  if (!boundary) return undefined;
  const delimiter = Buffer.from(`--${boundary}`);
  const parts: Array<{ headers: Record<string, string>; body: Buffer }> = [];
  let position = body.indexOf(delimiter);
  while (position !== -1) {
    const next = body.indexOf(delimiter, position + delimiter.length);
    if (next === -1) break;
    let part = body.subarray(position + delimiter.length, next);
    if (part.subarray(0, 2).toString() === '\r\n') part = part.subarray(2);
    if (part.subarray(-2).toString() === '\r\n') part = part.subarray(0, -2);
    const split = part.indexOf('\r\n\r\n');
    if (split === -1) return undefined;
    const headers = Object.fromEntries(
      part
        .subarray(0, split)
        .toString('latin1')
        .split('\r\n')
        .filter(Boolean)
        .map((line) => {
          const colon = line.indexOf(':');
          return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()];
        }),
    );
    parts.push({ headers, body: part.subarray(split + 4) });
    position = next;
  }
  return parts;
}

/** CRC32C (Castagnoli, reflected polynomial 0x82F63B78), as GCS computes it. */
const CRC32C_TABLE = (() => {
  const table = new Int32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
    table[n] = c;
  }
  return table;
})();

function crc32c(previous: number, bytes: Uint8Array): number {
  let crc = ~previous;
  for (let i = 0; i < bytes.length; i++) crc = CRC32C_TABLE[(crc ^ bytes[i]) & 0xff] ^ (crc >>> 8);
  return ~crc >>> 0;
}

/** GCS shows CRC32C as the base64 of its 4 big-endian bytes. */
function crc32cBase64(value: number): string {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(value >>> 0);
  return bytes.toString('base64');
}
