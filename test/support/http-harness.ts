import { AssertionError, expect } from 'chai';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Config, loadConfig } from '../../apps/server/config.js';
import { type RunningHangar, startHangar } from '../../apps/server/start.js';
import type { Clock } from '../../core/shared/clock.js';
import { MemoryLogger } from '../../adapters/logging/memory-logger.js';
import { PinoLogger } from '../../adapters/logging/pino-logger.js';
import { INTERNAL_ERROR_EVENT } from '../../apps/http/errors-middleware.js';
import { WEBHOOK_RETRY_DELAYS_MS } from '../../adapters/webhooks/sql-webhook-outbox.js';
import { checkResponse, registerService, unregisterService } from './openapi-check.js';
import { freshServerDatabase, httpTestDatabase, type ServerDatabase } from './test-database.js';
import { addLiveServer, removeLiveServer } from './live-servers.js';
import { S3RVER_CREDENTIALS, type S3TestServer, startS3TestServer } from './s3-test-server.js';

/** Rate limits high enough that no ordinary test meets them (spread under a test's own `env`). */
export const RELAXED_RATE_LIMITS: Record<string, string> = {
  RATE_LIMIT_LOGIN_FREE_FAILURES: '1000',
  RATE_LIMIT_LOGIN_CLIENT_FREE_FAILURES: '100000',
  RATE_LIMIT_REGISTER_PER_HOUR: '100000',
  RATE_LIMIT_FORGOT_PASSWORD_PER_HOUR: '100000',
  RATE_LIMIT_EMAIL_PER_ADDRESS_PER_HOUR: '100000',
  RATE_LIMIT_UPLOADS_PER_MINUTE: '100000',
};

/**
 * Webhook retry waits for tests that watch a retry ({@link startTestServer}'s `options`): the
 * first retry 1 s after a failed attempt instead of 5 s (the outbox polls every second), the later
 * ones as in production.
 */
export const QUICK_WEBHOOK_RETRIES: readonly number[] = [1_000, ...WEBHOOK_RETRY_DELAYS_MS.slice(1)];

/**
 * Statuses a test may provoke on purpose (fault injection: an edge provider down, a blob store
 * unavailable, a full disk; 501 for what the server declines to offer, such as an oEmbed format
 * other than JSON). Any other 5xx received through {@link call} fails the test at once:
 * a 500 is a bug wherever it shows up.
 */
export const DELIBERATE_SERVER_ERRORS: ReadonlySet<number> = new Set([501, 502, 503, 507]);

/**
 * `HANGAR_TEST_BLOBS=s3`: the in-process HTTP suite runs with its blobs on s3rver (see
 * {@link startTestServer}). The few tests that read or break the local disk's files behind the
 * store's back run with `localDiskIt`, pending (and listed as such) in that mode.
 */
export const BLOBS_ON_S3 = process.env.HANGAR_TEST_BLOBS === 's3';
export function localDiskIt(title: string, fn: Mocha.AsyncFunc): Mocha.Test {
  return BLOBS_ON_S3 ? it.skip(`${title} (reads the local disk: pending with HANGAR_TEST_BLOBS=s3)`, fn) : it(title, fn);
}

/** A composed Hangar on ephemeral ports over a temporary DATA_DIR, and helpers to talk to it with fetch. */
export interface TestServer {
  running: RunningHangar;
  dataDir: string;
  api: string;
  content: string;
  /** Unexpected (500) errors logged by the server during the test (each fails the test: live-servers.ts). */
  internalErrors: unknown[];
  /** Everything the server logged (access log included), oldest first. */
  log: MemoryLogger;
  stop(): Promise<void>;
}

/**
 * Starts the real composed app (SQLite, local disk, file outbox) with `env` over the test defaults.
 * By default over a new temporary DATA_DIR that `stop()` removes; `options.dataDir` runs it over a
 * directory the caller owns (shared with another process, e.g. the admin CLI) and keeps it.
 * With `HANGAR_TEST_DB=postgres` (and TEST_DATABASE_URL) the database is a fresh Postgres schema
 * instead, which `stop()` drops, unless `env` names a DATABASE_URL itself. With `HANGAR_TEST_BLOBS=s3`
 * the blobs go to a bucket of an s3rver of its own (docs/s3.md), unless `env` names a BLOB_STORE_URL.
 * `overrides` replace core options that no variable sets (`config.core`: e-mail and refresh-token intervals);
 * `options.webhookRetryDelaysMs` the waits between webhook delivery attempts (StartOptions).
 */
export async function startTestServer(
  env: Record<string, string> = {},
  overrides: Partial<Config['core']> = {},
  options: { dataDir?: string; clock?: Clock; logLines?: string[]; webhookRetryDelaysMs?: readonly number[] } = {},
): Promise<TestServer> {
  const dataDir = options.dataDir ?? (await mkdtemp(path.join(tmpdir(), 'hangar-http-')));
  const database: ServerDatabase | undefined =
    httpTestDatabase() === 'postgres' && env.DATABASE_URL === undefined ? await freshServerDatabase(dataDir) : undefined;
  const s3: S3TestServer | undefined = BLOBS_ON_S3 && env.BLOB_STORE_URL === undefined ? await startS3TestServer(['hangar-http']) : undefined;
  const config = loadConfig({
    ...database?.env,
    ...(s3 && {
      BLOB_STORE_URL: 's3://hangar-http/blobs',
      S3_ENDPOINT: s3.url,
      S3_FORCE_PATH_STYLE: 'true',
      S3_IF_NONE_MATCH: 'false',
      AWS_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
    }),
    HOST: '127.0.0.1',
    PORT: '0',
    CONTENT_PORT: '0',
    DATA_DIR: dataDir,
    PASSWORD_HASH_MEMORY_KIB: '1024',
    PUBLIC_API_URL: 'http://api.hangar.test',
    PUBLIC_CONTENT_URL: 'http://cdn.hangar.test',
    ALLOWED_REDIRECT_URLS: 'https://app.example.com/welcome',
    // Tests register, log in and upload far more often from 127.0.0.1 than a person would; the
    // limits themselves are tested with their own values (test/security/rate-limits.test.ts).
    ...RELAXED_RATE_LIMITS,
    ...env,
  });
  // Tests send several e-mails to one address within a minute; the limit itself has its own test.
  Object.assign(config.core, { emailMinIntervalMs: 0 }, overrides);
  const internalErrors: unknown[] = [];
  // Every entry is kept (tests read the access log); internal errors also fail the test (root hook above).
  // With `logLines`, the production logger (pino, JSON lines) writes there too, as it would on stdout.
  const logLines = options.logLines;
  const pinoLogger = logLines ? new PinoLogger({ level: 'debug', format: 'json', destination: { write: (line: string) => logLines.push(line) } }) : undefined;
  const logger = new MemoryLogger({
    onEntry: (entry) => {
      if (entry.event === INTERNAL_ERROR_EVENT) internalErrors.push(entry.fields);
      pinoLogger?.[entry.level](entry.event, entry.fields);
    },
  });
  const running = await startHangar(config, { logger, clock: options.clock, webhookRetryDelaysMs: options.webhookRetryDelaysMs });
  await registerService(running.apiAddress, running.contentAddress);
  const server: TestServer = {
    running,
    dataDir,
    api: running.apiAddress,
    content: running.contentAddress,
    internalErrors,
    log: logger,
    stop: async () => {
      removeLiveServer(server);
      unregisterService(running.apiAddress, running.contentAddress);
      await running.close(1000);
      await database?.drop();
      await s3?.close();
      if (options.dataDir === undefined) await rm(dataDir, { recursive: true, force: true });
    },
  };
  addLiveServer(server);
  return server;
}

/** Keep-alive connections of {@link call}'s node:http requests, as fetch keeps its own. */
const callAgent = new http.Agent({ keepAlive: true });

/** The request headers fetch (undici) adds to every request, which {@link call}'s node:http requests add too. */
const FETCH_HEADERS: Readonly<Record<string, string>> = { accept: '*/*', 'accept-language': '*', 'sec-fetch-mode': 'cors', 'user-agent': 'node' };

/**
 * One request with node:http, sent as fetch would send it: fetch's own headers, `content-length` for
 * a body (0 for a POST or PUT without one), `text/plain;charset=UTF-8` for a string body without a
 * content type; the answer's body decoded as UTF-8 (a leading BOM dropped, as fetch's `text()`
 * does). It costs the test process about a quarter of a millisecond of CPU less per request than
 * fetch, which the suite's tens of thousands of requests add up. A request on a kept-alive
 * connection the server closed meanwhile (ECONNRESET on a reused socket) is sent once more, on a
 * new one (node:http's documented retry). Rejects as fetch does: TypeError "fetch failed", the
 * cause the network's error.
 */
function send(
  url: string,
  method: string,
  headers: Record<string, string>,
  body: string | Uint8Array | undefined,
): Promise<{ status: number; headers: Headers; text: string }> {
  const sent: Record<string, string> = { ...FETCH_HEADERS, ...headers };
  if (body !== undefined) {
    sent['content-length'] = String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength);
    if (typeof body === 'string' && !Object.keys(headers).some((name) => name.toLowerCase() === 'content-type'))
      sent['content-type'] = 'text/plain;charset=UTF-8';
  } else if (method === 'POST' || method === 'PUT') sent['content-length'] = '0';
  const attempt = (retry: boolean): Promise<{ status: number; headers: Headers; text: string }> =>
    new Promise((resolve, reject) => {
      const request = http.request(url, { method, headers: sent, agent: callAgent }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', (error) => reject(new TypeError('fetch failed', { cause: error })));
        response.on('end', () => {
          const answered = new Headers();
          for (let i = 0; i < response.rawHeaders.length; i += 2) answered.append(response.rawHeaders[i], response.rawHeaders[i + 1]);
          resolve({ status: response.statusCode!, headers: answered, text: new TextDecoder().decode(Buffer.concat(chunks)) });
        });
      });
      request.on('error', (error: NodeJS.ErrnoException) => {
        if (retry && request.reusedSocket && error.code === 'ECONNRESET') resolve(attempt(false));
        else reject(new TypeError('fetch failed', { cause: error }));
      });
      request.end(body);
    });
  return attempt(true);
}

/** Request headers {@link send} does not set as fetch would: a request that sets one goes through fetch. */
const FETCH_ONLY_HEADERS = new Set(['content-length', 'transfer-encoding', 'connection', 'host', 'expect', 'keep-alive', 'upgrade', 'te', 'trailer']);

/**
 * fetch + JSON: returns status, headers and the parsed body (undefined when empty). A body that is
 * undefined, a string or bytes, without redirects followed and without headers fetch treats apart,
 * goes through {@link send} (the same request, cheaper); any other request through fetch.
 */
export async function call(
  base: string,
  pathname: string,
  init: {
    method?: string;
    token?: string;
    apiKey?: string;
    json?: unknown;
    headers?: Record<string, string>;
    body?: RequestInit['body'];
    redirect?: RequestInit['redirect'];
  } = {},
): Promise<{ status: number; headers: Headers; body: any }> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  if (init.apiKey) headers['x-api-key'] = init.apiKey;
  let body = init.body;
  if (init.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(init.json);
  }
  const method = init.method ?? 'GET';
  const redirect = init.redirect ?? 'manual';
  const plainBody = body === undefined || body === null ? undefined : typeof body === 'string' || body instanceof Uint8Array ? body : false;
  const simple =
    redirect === 'manual' && plainBody !== false && /^http:/.test(base) && !Object.keys(headers).some((name) => FETCH_ONLY_HEADERS.has(name.toLowerCase()));
  let response: { status: number; headers: Headers };
  let text: string;
  if (simple) {
    ({ text, ...response } = await send(base + pathname, method, headers, plainBody));
  } else {
    const fetched = await fetch(base + pathname, { method, headers, body, redirect });
    response = fetched;
    text = await fetched.text();
  }
  if (response.status >= 500 && !DELIBERATE_SERVER_ERRORS.has(response.status)) {
    throw new AssertionError(`${method} ${pathname} answered ${response.status}: a server error is a bug. ${text.slice(0, 500)}`);
  }
  let parsed: unknown = undefined;
  if (text !== '') {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = text;
    }
  }
  checkResponse(base, method, pathname, response.status, response.headers.get('content-type'), parsed);
  return { status: response.status, headers: response.headers, body: parsed };
}

/** Asserts the error shape `{ code, message, request_id }` with the given status and code. */
export function expectError(result: { status: number; headers: Headers; body: any }, status: number, code: string): void {
  expect(result.status, JSON.stringify(result.body)).to.equal(status);
  expect(result.body.code).to.equal(code);
  expect(result.body.message).to.be.a('string').and.not.equal('');
  expect(result.body.request_id).to.equal(result.headers.get('x-request-id'));
}

/** The messages the file outbox holds for `to`, oldest first; waits up to `timeoutMs` for at least `atLeast`. */
export async function outbox(
  server: TestServer,
  to: string,
  atLeast = 1,
  timeoutMs = 5000,
): Promise<{ to: string; subject: string; text: string; html: string; created_at: string }[]> {
  const dir = path.join(server.dataDir, 'outbox');
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let messages: any[];
    try {
      const names = (await readdir(dir)).filter((n) => n.endsWith('.json')).sort();
      messages = await Promise.all(names.map(async (n) => JSON.parse(await readFile(path.join(dir, n), 'utf8'))));
    } catch {
      messages = [];
    }
    const mine = messages.filter((m) => m.to === to);
    if (mine.length >= atLeast || Date.now() > deadline) return mine;
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * The outboxes of two server processes whose DATA_DIRs are `a` and `b` under `shared`, for
 * {@link mailedToken}: on one database a message is delivered by whichever process's delivery loop
 * claims it (SqlMailOutbox), into that process's own outbox.
 */
export function outboxesUnder(shared: string): { dataDir: string }[] {
  return [{ dataDir: path.join(shared, 'a') }, { dataDir: path.join(shared, 'b') }];
}

/** The token of the newest link to `pathname` mailed to `to`, in the outbox of `server` (or of any of several); waits up to `timeoutMs` for one to arrive. */
export async function mailedToken(
  server: Pick<TestServer, 'dataDir'> | readonly Pick<TestServer, 'dataDir'>[],
  to: string,
  pathname: string,
  timeoutMs = 5000,
): Promise<string> {
  // Reset links point at the dashboard's screen (`/#/reset?token=…`); `/auth/reset-password` finds them too.
  const linkPath = pathname === '/auth/reset-password' ? '/#/reset' : pathname;
  const pattern = new RegExp(`${linkPath.replace(/[/#]/g, '\\$&')}\\?token=([0-9A-Za-z]+)`);
  // Several servers on one database: whichever one's delivery loop claimed the message wrote it to its own outbox.
  const servers = Array.isArray(server) ? server : [server as Pick<TestServer, 'dataDir'>];
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const messages = (await Promise.all(servers.map((one) => outbox(one as TestServer, to, 0, 0))))
      .flat()
      .sort((x, y) => (x.created_at < y.created_at ? -1 : x.created_at > y.created_at ? 1 : 0));
    for (const message of messages.reverse()) {
      const match = pattern.exec(message.text);
      if (match) return match[1];
    }
    if (Date.now() > deadline) throw new Error(`no ${pathname} link mailed to ${to}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Registers, confirms through the mailed link and logs in. */
export async function signUp(
  server: Pick<TestServer, 'api' | 'dataDir'>,
  email: string,
  password = 'correct horse',
): Promise<{ userId: string; accessToken: string; refreshToken: string }> {
  const registered = await call(server.api, '/auth/register', { method: 'POST', json: { email, password } });
  expect(registered.status, JSON.stringify(registered.body)).to.equal(201);
  const token = await mailedToken(server, email, '/auth/confirm');
  const confirmed = await call(server.api, `/auth/confirm?token=${token}`);
  expect(confirmed.status).to.equal(302);
  const login = await call(server.api, '/auth/login', { method: 'POST', json: { email, password } });
  expect(login.status, JSON.stringify(login.body)).to.equal(200);
  return { userId: login.body.user.id, accessToken: login.body.session.access_token, refreshToken: login.body.session.refresh_token };
}

/** Signs up and creates an API key; returns both credentials. */
export async function signUpWithKey(
  server: Pick<TestServer, 'api' | 'dataDir'>,
  email: string,
): Promise<{ userId: string; accessToken: string; apiKey: string }> {
  const account = await signUp(server, email);
  const created = await call(server.api, '/auth/api-keys', { method: 'POST', token: account.accessToken, json: { name: 'test' } });
  expect(created.status).to.equal(201);
  return { ...account, apiKey: created.body.key };
}

/** Uploads `bytes` with an API key. */
export async function upload(
  server: TestServer,
  apiKey: string,
  bytes: Uint8Array,
  options: { contentType?: string; name?: string; query?: string } = {},
): Promise<{ status: number; headers: Headers; body: any }> {
  const headers: Record<string, string> = { 'content-type': options.contentType ?? 'image/png' };
  if (options.name !== undefined) headers['x-file-name'] = options.name;
  return call(server.api, `/files${options.query ?? ''}`, { method: 'POST', apiKey, headers, body: bytes });
}
