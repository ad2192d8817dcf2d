import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as {@link FakeCloudflare} received it. */
export interface ReceivedCloudflareRequest {
  method: string;
  /** Path without the query string, e.g. `/client/v4/zones/<zone>/custom_hostnames`. */
  path: string;
  query: URLSearchParams;
  /** Lower-case header names. */
  headers: IncomingMessage['headers'];
  /** The parsed JSON body, or undefined without one. */
  body: unknown;
}

/** A custom hostname as Cloudflare documents it (https://developers.cloudflare.com/api/resources/custom_hostnames/). */
export interface FakeCustomHostname {
  id: string;
  hostname: string;
  status: string;
  ssl: {
    id: string;
    type: string;
    method: string;
    status: string;
    bundle_method: string;
    certificate_authority: string;
    wildcard: boolean;
    settings: Record<string, never>;
    validation_records?: Array<{ txt_name: string; txt_value: string; status: string } | { http_url: string; http_body: string; status: string }>;
    validation_errors?: Array<{ message: string }>;
  };
  ownership_verification: { type: 'txt'; name: string; value: string };
  ownership_verification_http: { http_url: string; http_body: string };
  verification_errors?: string[];
  created_at: string;
}

/** Options of {@link FakeCloudflare.start}. */
export interface FakeCloudflareOptions {
  /** The zone whose custom hostnames it serves (default a fixed 32-hex id). */
  zoneId?: string;
  /** The one API token it accepts as `Authorization: Bearer <token>` (default `test-token`). */
  apiToken?: string;
}

/** What the hostnames of {@link FakeCloudflare.setErrors} report while not active. */
export interface FakeHostnameErrors {
  /** Becomes `verification_errors`. */
  verification?: string[];
  /** Becomes `ssl.validation_errors[].message`. */
  ssl?: string[];
}

type Envelope = { success: boolean; errors: Array<{ code: number; message: string }>; messages: unknown[]; result: unknown; result_info?: unknown };

const API_PREFIX = '/client/v4';
/** Cloudflare's page size when `per_page` is not given, and its largest. */
const DEFAULT_PER_PAGE = 20;
const MAX_PER_PAGE = 50;

/**
 * A local stand-in for Cloudflare's custom-hostname API on 127.0.0.1 and a free port, for the
 * CloudflareEdgeProvider tests: `POST/GET/PATCH/DELETE /client/v4/zones/{zone_id}/custom_hostnames[/{id}]`
 * and the list with `?hostname=` (also `hostname.exact=`), `page`, `per_page`.
 *
 * Bodies follow Cloudflare's documentation: the envelope `{ success, errors: [{ code, message }],
 * messages, result }` (lists add `result_info`), custom hostname objects with `ssl`,
 * `ownership_verification`, `ownership_verification_http`, `verification_errors`, `created_at`.
 * Behaviour:
 * - a bearer token other than `apiToken` → 403 code 10000; no Authorization header → 401 code 9106;
 *   another zone → 403 code 10000 (the token has no access to it).
 * - create → `status: 'pending'`, `ssl.status: 'initializing'` with the validation records
 *   (TXT `_acme-challenge.<hostname>` for `txt`, an `http_url`/`http_body` pair for `http`); a
 *   hostname the zone holds (any case) → 409 code 1406 "Duplicate custom hostname found.".
 * - later reads and PATCHes of a hostname not yet validated → `pending` / `pending_validation`
 *   with `verification_errors: ['custom hostname does not CNAME to this zone.']`.
 * - {@link completeDns}: the next PATCH (Cloudflare re-running validation) makes the hostname and
 *   its certificate `active`, with no validation records or errors left.
 * - unknown id → 404 code 1436; any other path → 404 code 7000.
 * - {@link failNext} / {@link hangNext}: the next N requests answer 5xx, or never answer.
 */
export class FakeCloudflare {
  /** Every request received, oldest first (also those answered with an error). */
  readonly requests: ReceivedCloudflareRequest[] = [];
  readonly zoneId: string;
  readonly apiToken: string;
  private readonly server: Server;
  private readonly hostnames = new Map<string, FakeCustomHostname>();
  private readonly dnsDone = new Set<string>();
  private readonly reportedErrors = new Map<string, FakeHostnameErrors>();
  private failures: Array<{ status: number; html: boolean }> = [];
  private hangs = 0;

  private constructor(options: FakeCloudflareOptions) {
    this.zoneId = options.zoneId ?? '023e105f4ecef8ad9ca31a8372d0c353';
    this.apiToken = options.apiToken ?? 'test-token';
    this.server = createServer((request, response) => {
      this.handle(request, response).catch((error: unknown) => {
        if (!response.headersSent) this.reply(response, 500, envelope(null, [{ code: 1500, message: `fake failed: ${String(error)}` }]));
      });
    });
  }

  /** Starts a fake; resolves once it listens. */
  static async start(options: FakeCloudflareOptions = {}): Promise<FakeCloudflare> {
    const fake = new FakeCloudflare(options);
    await new Promise<void>((resolve, reject) => {
      fake.server.once('error', reject);
      fake.server.listen(0, '127.0.0.1', () => resolve());
    });
    return fake;
  }

  /** `http://127.0.0.1:<port>/client/v4`, the base URL to give the client. */
  get baseUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${API_PREFIX}`;
  }

  /** Stops listening and drops every connection, hanging ones included. */
  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Answers the next `count` requests with `status` (default 503): Cloudflare's JSON envelope, or an HTML error page as its edge sends. */
  failNext(count: number, options: { status?: number; html?: boolean } = {}): void {
    for (let i = 0; i < count; i++) this.failures.push({ status: options.status ?? 503, html: options.html ?? false });
  }

  /** Never answers the next `count` requests (their connections stay open until the client gives up or {@link close}). */
  hangNext(count: number): void {
    this.hangs += count;
  }

  /** As if the customer created the DNS records: the next PATCH of `hostname` makes it and its certificate active. */
  completeDns(hostname: string): void {
    this.dnsDone.add(hostname.toLowerCase());
  }

  /** Errors `hostname` reports while it is not active (replacing the default CNAME error). */
  setErrors(hostname: string, errors: FakeHostnameErrors): void {
    this.reportedErrors.set(hostname.toLowerCase(), errors);
  }

  /** The stored custom hostname named `hostname` (any case), as the API would return it. */
  find(hostname: string): FakeCustomHostname | undefined {
    const stored = this.hostnames.get(hostname.toLowerCase());
    return stored && structuredClone(stored);
  }

  /** Adds a custom hostname directly, as if created earlier (by another process or by hand). */
  seed(hostname: string, method: 'http' | 'txt' = 'txt'): FakeCustomHostname {
    const created = this.newHostname(hostname, method);
    this.hostnames.set(hostname.toLowerCase(), created);
    return structuredClone(created);
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://fake.invalid');
    const raw = await readBody(request);
    let body: unknown;
    try {
      body = raw === '' ? undefined : JSON.parse(raw);
    } catch {
      body = raw;
    }
    const method = request.method ?? 'GET';
    this.requests.push({ method, path: url.pathname, query: url.searchParams, headers: request.headers, body });

    if (this.hangs > 0) {
      this.hangs--;
      return;
    }
    const failure = this.failures.shift();
    if (failure) {
      if (failure.html) {
        response.writeHead(failure.status, { 'content-type': 'text/html' });
        response.end(
          `<html><head><title>${failure.status} Bad Gateway</title></head><body><center><h1>${failure.status}</h1></center><hr><center>cloudflare</center></body></html>`,
        );
      } else {
        this.reply(response, failure.status, envelope(null, [{ code: 1500, message: 'Internal Server Error' }]));
      }
      return;
    }

    const authorization = request.headers.authorization;
    if (authorization === undefined) {
      this.reply(response, 401, envelope(null, [{ code: 9106, message: 'Missing X-Auth-Key, X-Auth-Email or Authorization headers' }]));
      return;
    }
    if (authorization !== `Bearer ${this.apiToken}`) {
      this.reply(response, 403, envelope(null, [{ code: 10000, message: 'Authentication error' }]));
      return;
    }

    const match = /^\/client\/v4\/zones\/([^/]+)\/custom_hostnames(?:\/([^/]+))?\/?$/.exec(url.pathname);
    if (!match) {
      this.reply(response, 404, envelope(null, [{ code: 7000, message: 'No route for that URI' }]));
      return;
    }
    const [, zoneId, id] = match;
    if (zoneId !== this.zoneId) {
      this.reply(response, 403, envelope(null, [{ code: 10000, message: 'Authentication error' }]));
      return;
    }

    if (id === undefined && method === 'POST') return this.create(response, body);
    if (id === undefined && method === 'GET') return this.list(response, url.searchParams);
    if (id === undefined) {
      this.reply(response, 405, envelope(null, [{ code: 10405, message: `Method ${method} not allowed` }]));
      return;
    }
    const stored = [...this.hostnames.values()].find((one) => one.id === decodeURIComponent(id));
    if (!stored) {
      this.reply(response, 404, envelope(null, [{ code: 1436, message: 'The custom hostname was not found.' }]));
      return;
    }
    switch (method) {
      case 'GET':
        this.reply(response, 200, envelope(this.observe(stored)));
        return;
      case 'PATCH':
        return this.edit(response, stored, body);
      case 'DELETE':
        this.hostnames.delete(stored.hostname.toLowerCase());
        this.reply(response, 200, envelope({ id: stored.id }));
        return;
      default:
        this.reply(response, 405, envelope(null, [{ code: 10405, message: `Method ${method} not allowed` }]));
    }
  }

  private create(response: ServerResponse, body: unknown): void {
    const input = body as { hostname?: unknown; ssl?: { method?: unknown; type?: unknown } } | undefined;
    const hostname = input?.hostname;
    if (typeof hostname !== 'string' || hostname === '') {
      this.reply(response, 400, envelope(null, [{ code: 1409, message: 'A hostname is required.' }]));
      return;
    }
    const method = input?.ssl?.method ?? 'http';
    if (method !== 'http' && method !== 'txt') {
      this.reply(response, 400, envelope(null, [{ code: 1413, message: `Invalid ssl method: ${JSON.stringify(method)}` }]));
      return;
    }
    if (this.hostnames.has(hostname.toLowerCase())) {
      this.reply(response, 409, envelope(null, [{ code: 1406, message: 'Duplicate custom hostname found.' }]));
      return;
    }
    const created = this.newHostname(hostname, method);
    this.hostnames.set(hostname.toLowerCase(), created);
    this.reply(response, 201, envelope(created));
  }

  private list(response: ServerResponse, query: URLSearchParams): void {
    const wanted = (query.get('hostname') ?? query.get('hostname.exact'))?.toLowerCase();
    const perPage = Math.min(Math.max(Number(query.get('per_page') ?? DEFAULT_PER_PAGE) || DEFAULT_PER_PAGE, 5), MAX_PER_PAGE);
    const page = Math.max(Number(query.get('page') ?? 1) || 1, 1);
    const all = [...this.hostnames.values()].filter((one) => wanted === undefined || one.hostname.toLowerCase() === wanted);
    const items = all.slice((page - 1) * perPage, page * perPage).map((one) => this.observe(one));
    this.reply(response, 200, {
      ...envelope(items),
      result_info: { page, per_page: perPage, count: items.length, total_count: all.length, total_pages: Math.ceil(all.length / perPage) },
    });
  }

  private edit(response: ServerResponse, stored: FakeCustomHostname, body: unknown): void {
    const ssl = (body as { ssl?: { method?: unknown; type?: unknown } } | undefined)?.ssl;
    if (ssl?.method === 'http' || ssl?.method === 'txt') stored.ssl.method = ssl.method;
    if (typeof ssl?.type === 'string') stored.ssl.type = ssl.type;
    if (this.dnsDone.has(stored.hostname.toLowerCase())) {
      stored.status = 'active';
      stored.ssl.status = 'active';
      delete stored.ssl.validation_records;
      delete stored.ssl.validation_errors;
      delete stored.verification_errors;
    }
    this.reply(response, 200, envelope(this.observe(stored)));
  }

  /** A read after creation: validation has started but cannot pass until the DNS is done. */
  private observe(stored: FakeCustomHostname): FakeCustomHostname {
    if (stored.status === 'active') return structuredClone(stored);
    stored.ssl.status = 'pending_validation';
    stored.ssl.validation_records = validationRecords(stored.hostname, stored.ssl.method);
    const errors = this.reportedErrors.get(stored.hostname.toLowerCase());
    stored.verification_errors = errors?.verification ?? ['custom hostname does not CNAME to this zone.'];
    if (errors?.ssl) stored.ssl.validation_errors = errors.ssl.map((message) => ({ message }));
    return structuredClone(stored);
  }

  private newHostname(hostname: string, method: string): FakeCustomHostname {
    const id = randomUUID();
    const ownership = tokenOf('ownership', hostname);
    return {
      id,
      hostname,
      status: 'pending',
      ssl: {
        id: randomUUID(),
        type: 'dv',
        method,
        status: 'initializing',
        bundle_method: 'ubiquitous',
        certificate_authority: 'google',
        wildcard: false,
        settings: {},
        validation_records: validationRecords(hostname, method),
      },
      ownership_verification: { type: 'txt', name: `_cf-custom-hostname.${hostname}`, value: ownership },
      ownership_verification_http: { http_url: `http://${hostname}/.well-known/cf-custom-hostname-challenge/${id}`, http_body: ownership },
      created_at: new Date().toISOString().replace('Z', '000Z'),
    };
  }

  private reply(response: ServerResponse, status: number, body: Envelope): void {
    response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cf-ray': `${randomUUID().slice(0, 16).replace(/-/g, '')}-LHR` });
    response.end(JSON.stringify(body));
  }
}

function envelope(result: unknown, errors: Array<{ code: number; message: string }> = []): Envelope {
  return { success: errors.length === 0, errors, messages: [], result };
}

/** A stable token per hostname, shaped like Cloudflare's (a UUID for ownership, 32 hex for DCV). */
function tokenOf(kind: string, hostname: string): string {
  const hex = createHash('sha256').update(`${kind}:${hostname.toLowerCase()}`).digest('hex');
  return kind === 'ownership' ? `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}` : hex.slice(0, 32);
}

function validationRecords(hostname: string, method: string): NonNullable<FakeCustomHostname['ssl']['validation_records']> {
  const value = tokenOf('dcv', hostname);
  return method === 'http'
    ? [{ http_url: `http://${hostname}/.well-known/acme-challenge/${value.slice(0, 16)}`, http_body: value, status: 'pending' }]
    : [{ txt_name: `_acme-challenge.${hostname}`, txt_value: value, status: 'pending' }];
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
