import { FormatRegistry, KindGuard, type StaticDecode, type TInteger, type TSchema, Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { SESSION_IDLE_DAYS } from '../../core/accounts/account-options.js';
import { DEFAULT_LOG_RETENTION_DAYS } from '../../core/activity/prune-logs.js';
import { DEFAULT_ADMIN_AUDIT_RETENTION_DAYS } from '../../core/admin/admin-audit.js';
import { DEFAULT_ALLOWED_CONTENT_TYPES } from '../../core/files/content-types.js';
import { DEFAULT_MAX_UPLOAD_SIZE_BYTES } from '../../core/files/file-options.js';
import { checkSizeLadder, DEFAULT_SIZE_LADDER } from '../../core/images/image-params.js';
import { DEFAULT_MAX_VARIANTS_PER_FILE } from '../../core/images/transform-public-image.js';
import { FAILPOINT_NAMES } from '../../core/shared/failpoints.js';
import { DEFAULT_WEBHOOKS_PER_ACCOUNT } from '../../core/webhooks/webhook.js';
import { DEFAULT_RATE_LIMITS } from '../../core/shared/rate-limits.js';
import { DEFAULT_API_KEYS_PER_ACCOUNT } from '../../core/api-keys/create-api-key.js';
import { DEFAULT_RESUMABLE_UPLOADS_PER_ACCOUNT } from '../../core/files/resumable-uploads.js';
import { DEFAULT_SMALL_BLOB_MAX_BYTES, MAX_SMALL_BLOB_MAX_BYTES } from '../../adapters/blobs/small-blob-limits.js';
import { S3_LIMITS } from '../../adapters/blobs/s3-limits.js';
import { DEFAULT_UPLOAD_PACING } from '../http/upload-pacing.js';
import { DEFAULT_HEAP_GROWING_PERCENT } from './heap-growth.js';

/**
 * The configuration table: every environment variable Hangar reads, in the order docs/configuration.md
 * lists them, each with its TypeBox schema (what a value may be, and the value's type), its value when
 * unset and its row of that table. `loadConfig` (apps/server/config.ts) reads variables only through
 * `readVariable`, so a variable missing here does not compile, and the type of every configuration
 * field is the type its schema decodes to; the table of docs/configuration.md and `.env.example` are
 * rendered from here (`node scripts/config-docs.mjs`, checked by test/apps/config-table.test.ts).
 *
 * A variable's text becomes a value in three steps: `valueOfText` reads it strictly by the schema's
 * kind (decision 0019 in `docs/decisions/` says why not TypeBox's `Value.Convert`), `Value.Check`
 * checks it against the schema (ranges, literals, the formats registered below), and `Value.Decode`
 * applies the schema's transforms (trailing slashes, lower case, `off` → null).
 */

/** A configuration variable with an invalid value; the message names the variable. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`);
    this.name = 'ConfigError';
  }
}

/** One row of the table: `schema` checks the variable's text as read by `valueOfText` and decodes it to the setting's value. */
export interface ConfigVariable<S extends TSchema> {
  readonly schema: S;
  /** The "default" cell of docs/configuration.md (Markdown); when absent, the fallback in backticks, then `note`. */
  readonly shown?: string;
  /** Appended to a generated default cell, e.g. ` (1 GiB)`. */
  readonly note?: string;
  /** The "meaning" cell of docs/configuration.md (Markdown). */
  readonly meaning: string;
}

/** A row with a value when unset (a decoded value, as the schema's decode gives). */
export interface ConfigVariableWithDefault<S extends TSchema> extends ConfigVariable<S> {
  readonly fallback: StaticDecode<S>;
}

/** A row without a fixed value when unset: the loader derives one from other variables (`shown` says how), or the setting is off. */
function variable<S extends TSchema>(row: ConfigVariable<S>): ConfigVariable<S> {
  return row;
}

/** A row with a value when unset. */
function withDefault<S extends TSchema>(row: ConfigVariableWithDefault<S>): ConfigVariableWithDefault<S> {
  return row;
}

const GiB = 1024 * 1024 * 1024;
/** Cloudflare's API v4 base. */
const CLOUDFLARE_API_BASE_URL = 'https://api.cloudflare.com/client/v4';
/** Most connections one process opens to Postgres unless DATABASE_POOL_SIZE says otherwise. */
export const DEFAULT_DATABASE_POOL_SIZE = 10;
/** Most server processes `WORKERS` may ask for. */
export const MAX_WORKERS = 64;

// Formats: the string rules a schema cannot state with its own keywords, registered with TypeBox
// once. `problem` is the message for the person who set the variable (after "NAME: ").

/** A string format of the table: its check and the message when a text fails it. */
interface TextFormat {
  check(text: string): boolean;
  problem(text: string): string;
}

/** The URL `text` names when it is an absolute http(s) URL. */
function httpUrlOf(text: string): URL | undefined {
  if (!URL.canParse(text)) return undefined;
  const url = new URL(text);
  return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined;
}

function httpUrlProblem(text: string): string {
  return URL.canParse(text) ? `"${text}" must be an http(s) URL.` : `"${text}" is not an absolute URL.`;
}

const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]'];
const MIME_TYPE = /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/;
/** `name` or `name=ERRNO` of HANGAR_FAILPOINTS, spaces around `=` allowed. */
const FAILPOINT = /^([^=\s]+)\s*(?:=\s*(\S+))?$/;

const FORMATS = {
  /** An absolute http(s) URL. */
  'http-url': { check: (text) => httpUrlOf(text) !== undefined, problem: httpUrlProblem },
  /** The issuer of single sign-on: https, or plain http on the loopback interface only (development, tests). */
  'oidc-issuer': {
    check: (text) => {
      const url = httpUrlOf(text);
      return url !== undefined && (url.protocol === 'https:' || LOOPBACK_HOSTS.includes(url.hostname));
    },
    problem: (text) => (httpUrlOf(text) ? `"${text}" must be an https URL (plain http only on localhost).` : httpUrlProblem(text)),
  },
  /** An origin as browsers send it in `Origin`: `scheme://host[:port]`, nothing after it. */
  origin: {
    check: (text) => httpUrlOf(text)?.origin === text.replace(/\/$/, ''),
    problem: (text) => (httpUrlOf(text) ? `"${text}" is not an origin; write scheme://host[:port] only.` : httpUrlProblem(text)),
  },
  /** A MIME type `type/subtype`, any case. */
  'mime-type': { check: (text) => MIME_TYPE.test(text.toLowerCase()), problem: (text) => `"${text.toLowerCase()}" is not a MIME type.` },
  /** An HS256 key: at least 32 UTF-8 bytes (a 256-bit key, RFC 7518 §3.2); any characters count, by their UTF-8 bytes. */
  'hs256-key': {
    check: (text) => Buffer.byteLength(text, 'utf8') >= 32,
    problem: (text) => `must be at least 32 bytes long in UTF-8 (HS256 needs a 256-bit key, RFC 7518 §3.2); this one has ${Buffer.byteLength(text, 'utf8')}.`,
  },
  /** A failpoint of FAILPOINT_NAMES, alone (SIGKILL when reached) or `=ERRNO`. */
  failpoint: {
    check: (text) => {
      const [, point, action = 'kill'] = FAILPOINT.exec(text) ?? [];
      return (FAILPOINT_NAMES as readonly string[]).includes(point) && (action === 'kill' || /^E[A-Z]+$/.test(action));
    },
    problem: (text) => {
      const [, point = text, action = 'kill'] = FAILPOINT.exec(text) ?? [];
      return (FAILPOINT_NAMES as readonly string[]).includes(point)
        ? `"${action}" is neither kill nor an errno such as ENOSPC or EIO.`
        : `"${point}" is not a failpoint; failpoints: ${FAILPOINT_NAMES.join(', ')}.`;
    },
  },
} satisfies Record<string, TextFormat>;
type FormatName = keyof typeof FORMATS;
for (const [name, format] of Object.entries(FORMATS)) FormatRegistry.Set(name, format.check);

function isFormatName(name: unknown): name is FormatName {
  return typeof name === 'string' && Object.hasOwn(FORMATS, name);
}

// Schemas of the table's rows.

const text = Type.String();

/** A whole number in [min, max]. */
function wholeNumber(min: number, max = Number.MAX_SAFE_INTEGER) {
  return Type.Integer({ minimum: min, maximum: max });
}

const port = wholeNumber(0, 65535);

/** `true` or `false`, any case. */
const trueOrFalse = Type.Boolean();

/** An absolute http(s) URL, kept as written. */
const httpUrlText = Type.String({ format: 'http-url' });

/** An absolute http(s) URL without its trailing slashes ({base_url}, {cdn_url}). */
const baseUrl = Type.Transform(Type.String({ format: 'http-url' }))
  .Decode((url) => url.replace(/\/+$/, ''))
  .Encode((url) => url);

/** The issuer of single sign-on, kept as written. */
const oidcIssuer = Type.String({ format: 'oidc-issuer' });

/** An origin, as the URL API writes it (`https://app.example.com`). */
const origin = Type.Transform(Type.String({ format: 'origin' }))
  .Decode((text) => new URL(text).origin)
  .Encode((origin) => origin);

/** A MIME type, in lower case. */
const mimeType = Type.Transform(Type.String({ format: 'mime-type' }))
  .Decode((type) => type.toLowerCase())
  .Encode((type) => type);

/** Text in lower case (host names, e-mail addresses). */
const lowerCase = Type.Transform(Type.String())
  .Decode((text) => text.toLowerCase())
  .Encode((text) => text);

/** Comma-separated items, each `item`; none (only commas and spaces) counts as unset. */
function listOf<S extends TSchema>(item: S) {
  return Type.Array(item);
}

/** `auto`, or a number of processes 1–64. */
const workerCount = Type.Union([Type.Literal('auto'), wholeNumber(1, MAX_WORKERS)]);

/** Days 0–36500, or `off` (null: no trial end). */
const trialDays = Type.Transform(Type.Union([Type.Literal('off'), wholeNumber(0, 36_500)]))
  .Decode((days) => (days === 'off' ? null : days))
  .Encode((days) => days ?? 'off');

/**
 * Reverse proxies that append to `X-Forwarded-For`: `false`/`0` none, `true` one, or 1–10 (the
 * client is that many entries from the right).
 */
const proxyHops = Type.Transform(Type.Union([Type.Boolean(), wholeNumber(0, 10)]))
  .Decode((hops) => (hops === true ? 1 : hops === false ? 0 : hops))
  .Encode((hops) => hops);

/** Sizes in px 1–4096, in any order: ascending without repeats once read (checkSizeLadder). */
const sizeLadder = Type.Transform(Type.Array(wholeNumber(1, 4096)))
  .Decode((steps) => checkSizeLadder(steps))
  .Encode((steps) => steps);

/** A failpoint armed by HANGAR_FAILPOINTS: its name and what reaching it does. */
export interface FailpointSetting {
  name: (typeof FAILPOINT_NAMES)[number];
  /** `kill`: SIGKILL at once; `{ errno }`: fail like the system call would (`ENOSPC`, `EIO`…). */
  action: 'kill' | { errno: string };
}

/** `name` (SIGKILL when reached) or `name=ERRNO`, comma-separated. */
const failpoints = listOf(
  Type.Transform(Type.String({ format: 'failpoint' }))
    .Decode((item): FailpointSetting => {
      const [, point, action = 'kill'] = FAILPOINT.exec(item) ?? [];
      const name = FAILPOINT_NAMES.find((known) => known === point);
      if (name === undefined) throw new Error(`"${point}" is not a failpoint.`); // the format refused it already
      return { name, action: action === 'kill' ? 'kill' : { errno: action } };
    })
    .Encode(({ name, action }) => (action === 'kill' ? name : `${name}=${action.errno}`)),
);

/** The table (in the order docs/configuration.md lists it). */
export const CONFIG_VARIABLES = {
  ENV_FILE: variable({
    schema: text,
    shown: '`.env` (when present)',
    meaning:
      "a file of `NAME=value` lines read at start by the server and the CLI (dotenv syntax, as Node's `util.parseEnv` reads it); a variable set in the environment wins over the file. When set, the file must exist. `.env.example` and this table are generated from the configuration table in `apps/server/config-variables.ts` (`node scripts/config-docs.mjs`)",
  }),
  WORKERS: withDefault({
    schema: workerCount,
    fallback: 'auto',
    meaning:
      'server processes: `auto` is one per CPU (`os.availableParallelism()`, at most 8) on a machine with more than 2 CPUs and one on a machine with 1 or 2 (where a second worker costs more CPU per request than it gains: decision 0009 in `docs/decisions/`), or a number 1–64. With more than one, `npm start` is a supervisor that forks that many workers sharing both ports (`docs/operations.md`, "Worker processes"); `1` runs the service in the one process',
  }),
  HEAP_GROWING_PERCENT: withDefault({
    schema: wholeNumber(0, 400),
    fallback: DEFAULT_HEAP_GROWING_PERCENT,
    meaning:
      "how far V8's old generation may grow past the live heap before the next full garbage collection starts, in percent (200: to 3 × the live heap); `0` leaves V8's own heuristic, which after an idle spell runs a full collection every 32 MB of a large upload (apps/server/heap-growth.ts; decision 0008 in `docs/decisions/`)",
  }),
  HOST: withDefault({
    schema: text,
    fallback: '0.0.0.0',
    meaning: 'listen address of both servers',
  }),
  PORT: withDefault({
    schema: port,
    fallback: 3000,
    meaning: 'API',
  }),
  CONTENT_PORT: withDefault({
    schema: port,
    fallback: 3001,
    meaning: 'public content server',
  }),
  PUBLIC_API_URL: variable({
    schema: baseUrl,
    shown: '`http://localhost:$PORT`',
    meaning: '{base_url}, used in e-mail links',
  }),
  PUBLIC_CONTENT_URL: variable({
    schema: baseUrl,
    shown: '`http://localhost:$CONTENT_PORT`',
    meaning: '{cdn_url}, used in file addresses',
  }),
  DATA_DIR: withDefault({
    schema: text,
    fallback: './data',
    meaning: 'where embedded defaults keep their files',
  }),
  DATABASE_URL: variable({
    schema: text,
    shown: '`sqlite:$DATA_DIR/hangar.db`',
    meaning:
      "`sqlite:<path>`, or a libpq URL `postgres://user:password@host:5432/database` (`postgresql://` too). Its query parameters are node-postgres's: `sslmode` with libpq's meaning (`disable`; `require` encrypts without checking the certificate; `verify-ca` with `sslrootcert=<file>`; `verify-full`), `sslrootcert`, `sslcert`, `sslkey`, `application_name`, and `options=-c%20search_path%3D<schema>` to keep the tables in a schema other than `public` (it must exist). Migrations run at start, under an advisory lock, so processes may start together",
  }),
  DATABASE_POOL_SIZE: withDefault({
    schema: wholeNumber(1, 1000),
    fallback: DEFAULT_DATABASE_POOL_SIZE,
    meaning:
      'Postgres connections per process (1–1000); several processes share the server\'s `max_connections` (100 by default), so keep processes × (pool size + 1) below it (the +1 is the change feed\'s connection; `docs/scale-out.md`, "Pool sizing")',
  }),
  DATABASE_LISTEN_URL: variable({
    schema: text,
    shown: '`DATABASE_URL`',
    meaning:
      'Postgres only: where the change feed `LISTEN`s (a session of its own). Set it when `DATABASE_URL` goes through a transaction-mode pooler such as PgBouncer (`docs/scale-out.md`)',
  }),
  DATABASE_GROUP_COMMIT: variable({
    schema: trueOrFalse,
    shown: '`true`',
    meaning:
      'Postgres only: sessions start with `synchronous_commit=off` (sent as the `options` startup parameter) and every write waits for one synchronous flush shared with the writes committed before it, as durable as synchronous commits (`docs/reliability.md`). `false`: plain synchronous commits and no `options` parameter, for a pooler that refuses it (PgBouncer unless `ignore_startup_parameters` lists `options`; with it listed, commits stay synchronous and group commit only adds its flush)',
  }),
  SQLITE_FAST_PATH: variable({
    schema: trueOrFalse,
    shown: '`true`',
    meaning:
      'SQLite only: lookups, upload transactions and activity-log batches run on the connection directly, and repeated lookups are answered from a cache checked against every commit (`docs/architecture.md`, "The SQLite fast path"). `false`: every statement goes through Kysely; the same answers, slower (for diagnosis)',
  }),
  SQLITE_CACHE_BYTES: variable({
    schema: wholeNumber(0, 2 ** 40),
    shown: '`67108864` (64 MiB)',
    meaning:
      "SQLite only: the page cache of each process's connection (SQLite's `cache_size`), filled only as pages are read, so a database smaller than it never fills it. A search that reads thousands of rows of a large database finds them there when asked again instead of reading each page from the file system. Each worker process (`WORKERS`) has its own. `0`: the SQLite build's default (better-sqlite3's: 16,000 KiB)",
  }),
  BLOB_STORE_URL: variable({
    schema: text,
    shown: '`file:$DATA_DIR/blobs`',
    meaning:
      "`file:<dir>`, `s3://<bucket>/<optional prefix>` for S3-compatible storage (`docs/storage.md`, `docs/s3.md`), or `gs://<bucket>/<optional prefix>` for Google Cloud Storage (objects `<prefix>/<account id>/<file id>`; the bucket must exist). GCS credentials are Google's Application Default Credentials (`GOOGLE_APPLICATION_CREDENTIALS`, `gcloud auth application-default login`, or the metadata server on Google Cloud); the account needs `storage.objects.create/get/delete` and `storage.buckets.get` (health check) on the bucket",
  }),
  SMALL_BLOB_MAX_BYTES: withDefault({
    schema: wholeNumber(0, MAX_SMALL_BLOB_MAX_BYTES),
    fallback: DEFAULT_SMALL_BLOB_MAX_BYTES,
    meaning:
      "with `file:` blobs: contents of at most this many bytes (0–1,048,576) are kept as rows of one SQLite database, `<blob dir>/small-blobs.db`, instead of one file each: a file costs nine file-system calls and two disk flushes to store durably, a row one insert and a share of one flush (decision 0005 in `docs/decisions/`). `0`: every blob a file. Either way every blob, stored under any earlier setting, stays readable. Not used (every blob a file) when the directory is on a network file system (NFS, SMB, FUSE, 9p, Ceph…), where SQLite's WAL is unsafe",
  }),
  GCS_API_ENDPOINT: variable({
    schema: baseUrl,
    shown: '— (`https://storage.googleapis.com`)',
    meaning:
      "with `gs://`: base URL of the GCS JSON API, for an emulator or the test fake; with it set no credentials are sent (the client library's rule for custom endpoints)",
  }),
  GCS_RESUMABLE_THRESHOLD_BYTES: variable({
    schema: wholeNumber(1),
    shown: '`8388608` (8 MiB)',
    meaning:
      'with `gs://`: bodies that end before this size go in one request (retried whole); longer ones as a resumable upload in chunks of this size rounded up to 256 KiB (each chunk retried). Also about what one upload holds in memory, and the chunk size of resumable (tus) uploads on GCS',
  }),
  S3_ENDPOINT: variable({
    schema: baseUrl,
    shown: '— (AWS)',
    meaning: 'with `s3://<bucket>/<optional prefix>` (S3-compatible storage, `docs/s3.md`): base URL of MinIO, R2, B2, Garage, Wasabi…',
  }),
  S3_REGION: withDefault({
    schema: text,
    fallback: S3_LIMITS.defaultRegion,
    meaning: "with `s3://`: the bucket's region; `auto` for R2",
  }),
  S3_FORCE_PATH_STYLE: withDefault({
    schema: trueOrFalse,
    fallback: false,
    meaning: 'with `s3://`: `true` for `<endpoint>/<bucket>/<key>` addresses (MinIO, Garage)',
  }),
  AWS_ACCESS_KEY_ID: variable({
    schema: text,
    shown: '—',
    meaning:
      "with `s3://`: the access key id of static keys (with `AWS_SECRET_ACCESS_KEY`: both or neither); without them the AWS SDK's default chain (profiles, SSO, web identity, ECS/EC2 roles)",
  }),
  AWS_SECRET_ACCESS_KEY: variable({
    schema: text,
    shown: '—',
    meaning: 'with `s3://`: the secret of the static keys',
  }),
  AWS_SESSION_TOKEN: variable({
    schema: text,
    shown: '—',
    meaning: 'with `s3://`: the session token of temporary static keys',
  }),
  S3_PART_SIZE_BYTES: withDefault({
    schema: wholeNumber(S3_LIMITS.minPartSizeBytes, S3_LIMITS.maxPartSizeBytes),
    fallback: S3_LIMITS.defaultPartSizeBytes,
    note: ' (5 MiB)',
    meaning:
      "with `s3://`: bodies up to this size go as one PutObject, longer ones as a multipart upload in parts of this size (5 MiB–5 GiB; larger when an upload's size limit needs more than 10,000 parts)",
  }),
  S3_UPLOAD_QUEUE_SIZE: withDefault({
    schema: wholeNumber(1, 64),
    fallback: S3_LIMITS.defaultQueueSize,
    meaning: 'with `s3://`: parts of one upload in flight at once (1–64); an upload holds at most part size × (queue size + 1) bytes',
  }),
  S3_IF_NONE_MATCH: withDefault({
    schema: trueOrFalse,
    fallback: true,
    meaning:
      'with `s3://`: creates carry `If-None-Match: *` so the store refuses to overwrite; `false` for stores that lack it (a HeadObject check instead; `docs/s3.md` says how to tell)',
  }),
  MAIL_URL: variable({
    schema: text,
    shown: '`file:$DATA_DIR/outbox`',
    meaning: '`file:<dir>` writes each message as one JSON file `{ to, subject, text, html, created_at }`; `smtp://user:pass@host:port` sends with nodemailer',
  }),
  MAIL_FROM: withDefault({
    schema: text,
    fallback: 'Hangar <no-reply@localhost>',
    meaning: 'sender of every e-mail',
  }),
  CONTENT_HOSTS: withDefault({
    schema: listOf(lowerCase),
    fallback: [],
    shown: '—',
    meaning:
      'comma-separated extra hostnames the content server answers as itself (besides the host of `PUBLIC_CONTENT_URL` and loopback names), e.g. the name a reverse proxy sends',
  }),
  EDGE_PROVIDER: withDefault({
    schema: Type.Union([Type.Literal('mock'), Type.Literal('cloudflare')]),
    fallback: 'mock',
    meaning: 'where custom hostnames live: `mock` (in-process, `docs/behaviour.md`, "Custom domains") or `cloudflare` (Cloudflare for SaaS)',
  }),
  CLOUDFLARE_API_TOKEN: variable({
    schema: text,
    shown: '—',
    meaning: "with `cloudflare`: an API token allowed to edit the zone's custom hostnames (SSL and Certificates: Edit)",
  }),
  CLOUDFLARE_ZONE_ID: variable({
    schema: text,
    shown: '—',
    meaning: 'with `cloudflare`: the zone that serves the custom hostnames',
  }),
  CLOUDFLARE_API_BASE_URL: withDefault({
    schema: baseUrl,
    fallback: CLOUDFLARE_API_BASE_URL,
    meaning: 'with `cloudflare`: API base (tests point it at a local fake)',
  }),
  CUSTOM_DOMAIN_CNAME_TARGET: variable({
    schema: text,
    shown: '`CLOUDFLARE_FALLBACK_ORIGIN`; for `mock`, the host of `PUBLIC_CONTENT_URL`',
    meaning:
      'what account holders point their CNAME at (required with `cloudflare`, one of the two); an IP address makes it an A/AAAA record instead, with a warning at start',
  }),
  CLOUDFLARE_FALLBACK_ORIGIN: variable({
    schema: text,
    shown: '—',
    meaning: "the zone's fallback origin, used as the CNAME target when `CUSTOM_DOMAIN_CNAME_TARGET` is unset",
  }),
  JWT_SECRET: variable({
    schema: Type.String({ format: 'hs256-key' }),
    shown: 'generated once, kept in the database (`service_secrets`), shared by every process on it',
    meaning:
      'HS256 key for session tokens; its UTF-8 bytes, at least 32 bytes. A key an older release kept in `$DATA_DIR/jwt-secret` is adopted (`docs/scale-out.md`)',
  }),
  ALLOWED_REDIRECT_URLS: variable({
    schema: listOf(httpUrlText),
    shown: '`PUBLIC_API_URL`',
    meaning: "comma-separated URLs a `redirect_to` may point under (same origin, path under the entry's path; anything else is 400 `INVALID_REDIRECT_URL`)",
  }),
  REGISTRATION: withDefault({
    schema: Type.Union([Type.Literal('open'), Type.Literal('invite'), Type.Literal('closed')]),
    fallback: 'open',
    meaning:
      'who may create an account: `open` (anyone), `invite` (only with a single-use invite link from `npm run cli -- invites create`; the invite\'s plan applies), `closed` (nobody). It covers registration with a password and a first single sign-on alike (`docs/security.md`, "Single sign-on and invites")',
  }),
  OIDC_ISSUER: variable({
    schema: oidcIssuer,
    shown: '— (off)',
    meaning:
      'single sign-on: the issuer URL of an OpenID Connect provider (its discovery document is read under it); turns on "Sign in with …". Register `$PUBLIC_API_URL/auth/oidc/callback` as the redirect URI at the provider. https only, except on localhost',
  }),
  OIDC_CLIENT_ID: variable({
    schema: text,
    shown: '—',
    meaning: "with `OIDC_ISSUER`: Hangar's client id at the provider (required)",
  }),
  OIDC_CLIENT_SECRET: variable({
    schema: text,
    shown: '—',
    meaning: "with `OIDC_ISSUER`: the client's secret (required), sent with HTTP Basic authentication to the token endpoint",
  }),
  OIDC_NAME: variable({
    schema: Type.String({ maxLength: 64 }),
    shown: "the issuer's host name",
    meaning: 'with `OIDC_ISSUER`: the provider\'s name on the button, "Sign in with <name>" (at most 64 characters)',
  }),
  ALLOWED_CONTENT_TYPES: withDefault({
    schema: listOf(mimeType),
    fallback: [...DEFAULT_ALLOWED_CONTENT_TYPES],
    shown: 'a built-in list (images, video, audio, PDF, text; see `core/files/content-types.ts`)',
    meaning: 'comma-separated MIME types allowed for upload',
  }),
  DEFAULT_MAX_UPLOAD_SIZE_BYTES: withDefault({
    schema: wholeNumber(1),
    fallback: DEFAULT_MAX_UPLOAD_SIZE_BYTES,
    note: ' (100 MiB)',
    meaning: "an account's `max_upload_size_bytes` until it sets its own",
  }),
  UPLOAD_IDLE_TIMEOUT_SECONDS: withDefault({
    schema: wholeNumber(0, 86_400),
    fallback: DEFAULT_UPLOAD_PACING.idleTimeoutMs / 1000,
    meaning:
      'a request body (upload, tus PATCH, JSON, form) that sends nothing for this long is answered 408 `REQUEST_TIMEOUT`, and what an upload sent is removed; `0` turns this off',
  }),
  UPLOAD_MIN_BYTES_PER_SECOND: withDefault({
    schema: wholeNumber(0, 1_000_000_000),
    fallback: DEFAULT_UPLOAD_PACING.minBytesPerSecond,
    meaning:
      'a request body (upload, tus PATCH, JSON, form) that averages less than this over `UPLOAD_MIN_RATE_WINDOW_SECONDS` of waiting for the client is answered 408 `REQUEST_TIMEOUT` (time the server spends storing is not counted); `0` turns this off',
  }),
  UPLOAD_MIN_RATE_WINDOW_SECONDS: withDefault({
    schema: wholeNumber(1, 86_400),
    fallback: DEFAULT_UPLOAD_PACING.windowMs / 1000,
    meaning: 'the window of `UPLOAD_MIN_BYTES_PER_SECOND`',
  }),
  SLOW_BODY_AFTER_SECONDS: withDefault({
    schema: wholeNumber(0, 86_400),
    fallback: (DEFAULT_UPLOAD_PACING.slowAfterMs ?? 0) / 1000,
    meaning: 'a request body still arriving after this much waiting for its client counts as slow, against `SLOW_BODIES_PER_CLIENT`; `0`: none counts',
  }),
  SLOW_BODIES_PER_CLIENT: withDefault({
    schema: wholeNumber(0, 1_000_000),
    fallback: DEFAULT_RATE_LIMITS.slowBodiesPerClient!,
    meaning:
      'slow request bodies one client address (after `TRUST_PROXY`) may send at once, counted across processes; the next is answered 429 `TOO_MANY_SLOW_BODIES`; `0` turns the cap off',
  }),
  PLANS_FILE: variable({
    schema: text,
    shown: 'unset: one built-in plan named `default`, from the four variables below',
    meaning:
      'JSON file of the plans on offer (format below); when set, `TRIAL_DAYS`, `STORAGE_LIMIT_BYTES`, `FILE_COUNT_LIMIT` and `MAX_UPLOAD_SIZE_LIMIT_BYTES` are ignored',
  }),
  DEFAULT_PLAN: variable({
    schema: text,
    shown: "the file's `default_plan`, else its first plan (`default` without a file)",
    meaning: 'name of the plan new accounts get; must be one of the plans',
  }),
  TRIAL_DAYS: withDefault({
    schema: trialDays,
    fallback: 14,
    meaning: 'built-in plan: days from sign-up until the trial ends (0–36500); `0` ends it at sign-up, `off` means no trial end',
  }),
  STORAGE_LIMIT_BYTES: withDefault({
    schema: wholeNumber(0),
    fallback: GiB,
    note: ' (1 GiB)',
    meaning: 'built-in plan: bytes an account may store in all (`0` allows none)',
  }),
  FILE_COUNT_LIMIT: withDefault({
    schema: wholeNumber(0),
    fallback: 10_000,
    meaning: 'built-in plan: files an account may hold at once',
  }),
  MAX_UPLOAD_SIZE_LIMIT_BYTES: withDefault({
    schema: wholeNumber(1),
    fallback: GiB,
    note: ' (1 GiB)',
    meaning: "built-in plan's ceiling: the highest `max_upload_size_bytes` an account may set (above it `PATCH /settings` answers 400)",
  }),
  ADMIN_EMAILS: withDefault({
    schema: listOf(lowerCase),
    fallback: [],
    shown: '—',
    meaning: 'comma-separated e-mail addresses whose accounts become administrators when they confirm their address (`docs/admin.md`)',
  }),
  ADMIN_AUDIT_RETENTION_DAYS: withDefault({
    schema: wholeNumber(1),
    fallback: DEFAULT_ADMIN_AUDIT_RETENTION_DAYS,
    meaning: 'administrator audit entries (`GET /admin/audit`) older than this many days are pruned (at start, then hourly); at least 1',
  }),
  LOG_RETENTION_DAYS: withDefault({
    schema: wholeNumber(1),
    fallback: DEFAULT_LOG_RETENTION_DAYS,
    meaning: 'activity log entries (`GET /logs`) older than this many days are pruned (at start, then hourly); at least 1',
  }),
  WEBHOOKS_PER_ACCOUNT: withDefault({
    schema: wholeNumber(1, 1000),
    fallback: DEFAULT_WEBHOOKS_PER_ACCOUNT,
    meaning: 'webhook endpoints an account may have (1–1000; `docs/webhooks.md`); one more answers 409 `WEBHOOK_LIMIT_REACHED`',
  }),
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: withDefault({
    schema: trueOrFalse,
    fallback: false,
    meaning:
      '`true` lets webhooks go to loopback, private, link-local and other non-public addresses (a LAN, tests); by default they are refused at creation and at each delivery (`docs/webhooks.md`)',
  }),
  WEBHOOK_ALLOW_HTTP: withDefault({
    schema: trueOrFalse,
    fallback: false,
    meaning: '`true` accepts `http://` webhook URLs besides `https://` (a LAN, tests; `docs/webhooks.md`)',
  }),
  EXPIRY_SWEEP_INTERVAL_SECONDS: withDefault({
    schema: wholeNumber(1, 60),
    fallback: 30,
    meaning: 'seconds between runs of the expiry sweep (1–60), which deletes files whose `expires_at` has come (`docs/private-files.md`)',
  }),
  RESUMABLE_UPLOAD_EXPIRY_HOURS: withDefault({
    schema: wholeNumber(1, 24 * 30),
    fallback: 24,
    meaning:
      'hours (1–720) after its creation an unfinished resumable (tus) upload is removed with its bytes and reservation, by the expiry sweep (`docs/api.md`, "Resumable uploads")',
  }),
  RESUMABLE_UPLOADS_PER_ACCOUNT: withDefault({
    schema: wholeNumber(1, 1_000_000),
    fallback: DEFAULT_RESUMABLE_UPLOADS_PER_ACCOUNT,
    meaning:
      'unfinished resumable (tus) uploads one account may have at once; the next creation is refused with 403 `RESUMABLE_UPLOAD_LIMIT_REACHED` until one completes, is terminated or expires',
  }),
  API_KEYS_PER_ACCOUNT: withDefault({
    schema: wholeNumber(1, 1_000_000),
    fallback: DEFAULT_API_KEYS_PER_ACCOUNT,
    meaning:
      'API keys (not expired) one account may hold; the next is refused with 403 `API_KEY_LIMIT_REACHED` until one is revoked or expires (`docs/api-keys.md`)',
  }),
  SESSION_IDLE_DAYS: withDefault({
    schema: wholeNumber(1, 3650),
    fallback: SESSION_IDLE_DAYS,
    meaning:
      'a session (a signed-in device) unused for longer than this many days ends by itself: its refresh token and access tokens are refused; 1–3650 (docs/account-security.md)',
  }),
  PASSWORD_HASH_MEMORY_KIB: withDefault({
    schema: wholeNumber(1024),
    fallback: 19_456,
    meaning: "argon2id memory cost in KiB (OWASP's minimum; tests use 1024)",
  }),
  PASSWORD_HASH_CONCURRENCY: variable({
    schema: wholeNumber(1, 256),
    shown: 'CPUs ÷ `WORKERS` (rounded up)',
    meaning:
      'argon2 hashes (register, login, reset) running at once per process; the rest wait. Memory for hashing stays below this × `PASSWORD_HASH_MEMORY_KIB`',
  }),
  TRUST_PROXY: withDefault({
    schema: proxyHops,
    fallback: 0,
    shown: '`false`',
    meaning:
      "reverse proxies in front of the API that append the client's address to `X-Forwarded-For`: `false`/`0` none (the socket's address is the client's; `X-Forwarded-For` is ignored), `true` one, or a number up to 10; the client is that many entries from the right. Used by rate limits (the content server's image rate limit too) and the activity log's `ip`",
  }),
  CORS_ORIGINS: withDefault({
    schema: listOf(origin),
    fallback: [],
    shown: '— (none)',
    meaning:
      'comma-separated origins (`https://app.example.com`) whose pages may call the API from a browser: answered with that origin in `Access-Control-Allow-Origin` (never `*`, no credentials); other origins get no CORS headers',
  }),
  RATE_LIMIT_LOGIN_FREE_FAILURES: withDefault({
    schema: wholeNumber(0),
    fallback: DEFAULT_RATE_LIMITS.loginFreeFailuresPerAccount,
    meaning:
      'failed logins per (e-mail address, client address) before delays start: from that failure on, each makes the next attempt wait 1 s, 2 s, 4 s… (429 `RATE_LIMITED` with `Retry-After`). Attempts are counted before the password is checked, so simultaneous attempts get no more checks than sequential ones; `0` turns this off',
  }),
  RATE_LIMIT_LOGIN_CLIENT_FREE_FAILURES: withDefault({
    schema: wholeNumber(0),
    fallback: DEFAULT_RATE_LIMITS.loginFreeFailuresPerClient,
    meaning:
      'failed logins per client address, all accounts together, before delays start; also the requests with unknown API keys per client address (counted apart, `docs/api-keys.md`)',
  }),
  RATE_LIMIT_LOGIN_MAX_DELAY_SECONDS: withDefault({
    schema: wholeNumber(1, 86_400),
    fallback: DEFAULT_RATE_LIMITS.loginMaxDelaySeconds,
    meaning: 'longest delay between attempts after repeated failures',
  }),
  RATE_LIMIT_REGISTER_PER_HOUR: withDefault({
    schema: wholeNumber(0),
    fallback: DEFAULT_RATE_LIMITS.registrationsPerClientPerHour,
    meaning: 'registrations per client address per hour (`0`: no limit, as for every `RATE_LIMIT_*`)',
  }),
  RATE_LIMIT_FORGOT_PASSWORD_PER_HOUR: withDefault({
    schema: wholeNumber(0),
    fallback: DEFAULT_RATE_LIMITS.passwordResetsPerClientPerHour,
    meaning: 'password reset requests per client address per hour',
  }),
  RATE_LIMIT_EMAIL_PER_ADDRESS_PER_HOUR: withDefault({
    schema: wholeNumber(0),
    fallback: DEFAULT_RATE_LIMITS.emailRequestsPerAddressPerHour,
    meaning: 'registrations and reset requests naming one e-mail address per hour, whether or not it has an account',
  }),
  RATE_LIMIT_UPLOADS_PER_MINUTE: withDefault({
    schema: wholeNumber(0),
    fallback: DEFAULT_RATE_LIMITS.uploadsPerAccountPerMinute,
    meaning: 'uploads and resumable-upload creations per account per minute, whichever API keys or sessions send them',
  }),
  LOG_LEVEL: withDefault({
    schema: Type.Union([Type.Literal('debug'), Type.Literal('info'), Type.Literal('warn'), Type.Literal('error')]),
    fallback: 'info',
    meaning:
      'lowest level logged: `debug`, `info` (one line per request, starts and stops), `warn` (problems the service works around), `error` (bugs and outages); `docs/operations.md`',
  }),
  LOG_FORMAT: withDefault({
    schema: Type.Union([Type.Literal('json'), Type.Literal('pretty'), Type.Literal('auto')]),
    fallback: 'auto',
    meaning: '`json` (one pino JSON line per entry on stdout), `pretty` (one readable line), or `auto`: pretty when stdout is a terminal, JSON otherwise',
  }),
  METRICS_PORT: variable({
    schema: port,
    shown: '— (off)',
    meaning:
      'port of a separate listener answering `GET /metrics` in Prometheus text format (requests by route and status, durations, bytes, uploads in flight, blob-store operations, image transforms, rate-limit refusals, Postgres pool, event-loop lag, process metrics; `docs/operations.md`). With workers, the supervisor answers with the sum of all of them',
  }),
  METRICS_HOST: withDefault({
    schema: text,
    fallback: '127.0.0.1',
    meaning: 'listen address of the metrics listener (keep it private: it needs no credential)',
  }),
  IMAGE_CONCURRENCY: withDefault({
    schema: wholeNumber(1, 256),
    fallback: 2,
    meaning: 'image transformations running at once per process (1–256); more wait for a slot (`docs/images.md`)',
  }),
  IMAGE_QUEUE_TIMEOUT_MS: withDefault({
    schema: wholeNumber(0, 600_000),
    fallback: 2_000,
    meaning: 'how long a transformation waits for a slot before 503 `IMAGE_BUSY` with `Retry-After` (0–600000)',
  }),
  IMAGE_MAX_INPUT_PIXELS: withDefault({
    schema: wholeNumber(1, 1_000_000_000),
    fallback: 40_000_000,
    meaning:
      'largest source image (width × height, all frames) that is decoded; above it 422 `IMAGE_TOO_LARGE`, read from the header, so decompression bombs cost nothing',
  }),
  IMAGE_MAX_VARIANTS_PER_FILE: withDefault({
    schema: wholeNumber(0, 10_000),
    fallback: DEFAULT_MAX_VARIANTS_PER_FILE,
    meaning:
      'transformed variants of one file kept in the blob store (0–10,000; counted in the owner\'s `storage_bytes`); a new variant beyond it is computed and served on each request but not stored (`docs/images.md`, "Bounds")',
  }),
  IMAGE_SIZE_LADDER: withDefault({
    schema: sizeLadder,
    fallback: [...DEFAULT_SIZE_LADDER],
    meaning:
      'comma-separated sizes in px (1–4096) that `w` and `h` of image requests are snapped up to (above the largest: the largest), so arbitrary sizes share a few stored variants',
  }),
  MEDIA_PROBE_CONCURRENCY: withDefault({
    schema: wholeNumber(0, 64),
    fallback: 2,
    meaning:
      'new uploads whose media facts (width, height, duration, thumbhash) are computed at once per process, after they are stored (0–64; `0`: none are computed at upload, `hangar files backfill-media` computes them; `docs/media.md`)',
  }),
  RATE_LIMIT_IMAGE_TRANSFORMS_PER_MINUTE: withDefault({
    schema: wholeNumber(0),
    fallback: DEFAULT_RATE_LIMITS.imageTransformsPerClientPerMinute,
    meaning:
      'requests per client address per minute for image variants not yet stored (computed ones); past it 429 `RATE_LIMITED` with `Retry-After`; stored variants and originals are never limited',
  }),
  IMAGE_OPS_LIMIT: variable({
    schema: wholeNumber(0),
    shown: 'unset (unlimited)',
    meaning: 'built-in plan: image transformations (`image_ops`) per billing period; past it new ones answer 403 `IMAGE_OPS_LIMIT_REACHED`',
  }),
  HANGAR_FAILPOINTS: withDefault({
    schema: failpoints,
    fallback: [],
    shown: '—',
    meaning:
      'tests only, never in production: comma-separated failpoints; `name` kills the process with SIGKILL when reached, `name=ERRNO` fails there like the system call (e.g. `blob_write=ENOSPC`). Names: `after_blob_before_record`, `after_record_before_response`, `after_records_deleted_before_blobs`, `before_blob_link`, `blob_write`, `between_account_deletion_steps` (`docs/reliability.md`)',
  }),
};

/** The name of a variable in the table. */
export type VariableName = keyof typeof CONFIG_VARIABLES;

/** What `readVariable` gives for `K`: its schema's decoded type, or undefined too when unset and without a fallback. */
export type VariableValue<K extends VariableName> =
  (typeof CONFIG_VARIABLES)[K] extends ConfigVariableWithDefault<infer S>
    ? StaticDecode<S>
    : (typeof CONFIG_VARIABLES)[K] extends ConfigVariable<infer S>
      ? StaticDecode<S> | undefined
      : never;

/** Environment variables by name, as `process.env` holds them. */
export type Env = Record<string, string | undefined>;

/** Comma-separated items, trimmed; none (only commas and spaces) counts as unset. */
export function commaItems(value: string | undefined): string[] | undefined {
  const items = value
    ?.split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  return items && items.length > 0 ? items : undefined;
}

/**
 * A variable's text as the value `schema` checks, read strictly by the schema's kind: a whole number
 * only from digits, `true`/`false` and literals in any case, a list from comma-separated items (each
 * read by the item schema), a union by its first member whose reading checks. Text that does not
 * read stays text, for the check to refuse.
 */
function valueOfText(schema: TSchema, text: string): unknown {
  if (KindGuard.IsInteger(schema)) return /^\d+$/.test(text) ? Number(text) : text;
  if (KindGuard.IsBoolean(schema)) return /^true$/i.test(text) ? true : /^false$/i.test(text) ? false : text;
  if (KindGuard.IsLiteralString(schema)) return text.toLowerCase() === schema.const.toLowerCase() ? schema.const : text;
  if (KindGuard.IsArray(schema)) return (commaItems(text) ?? []).map((item) => valueOfText(schema.items, item));
  if (KindGuard.IsUnion(schema)) {
    for (const member of schema.anyOf) {
      const value = valueOfText(member, text);
      if (Value.Check(member, value)) return value;
    }
  }
  return text;
}

/** "must be between 1 and 256." for a whole number schema (or "at least" when it has no real upper bound). */
function rangeProblem(schema: TInteger, text: string): string {
  const { minimum, maximum } = schema;
  if (maximum === Number.MAX_SAFE_INTEGER && Number(text) < (minimum ?? 0)) return `must be at least ${minimum}.`;
  return `must be between ${minimum} and ${maximum}.`;
}

/** The readings of `schema` in words, for messages: ["auto"], ["true", "false"], ["a whole number between 0 and 10"]. */
function readings(schema: TSchema): string[] {
  if (KindGuard.IsUnion(schema)) return schema.anyOf.flatMap(readings);
  if (KindGuard.IsLiteral(schema)) return [String(schema.const)];
  if (KindGuard.IsBoolean(schema)) return ['true', 'false'];
  if (KindGuard.IsInteger(schema)) return [`a whole number between ${schema.minimum} and ${schema.maximum}`];
  return ['valid'];
}

/** Why `text` does not check against `schema`, for the person who set the variable. */
function problemOf(schema: TSchema, text: string): string {
  if (KindGuard.IsInteger(schema)) return /^\d+$/.test(text) ? rangeProblem(schema, text) : `"${text}" is not a whole number.`;
  if (KindGuard.IsBoolean(schema)) return `"${text}" is neither true nor false.`;
  if (KindGuard.IsUnion(schema) || KindGuard.IsLiteral(schema)) {
    const members = KindGuard.IsUnion(schema) ? schema.anyOf : [schema];
    const numeric = members.find(KindGuard.IsInteger);
    if (numeric !== undefined && /^\d+$/.test(text)) return rangeProblem(numeric, text);
    const words = readings(schema);
    if (members.every((member) => KindGuard.IsLiteral(member))) return `"${text}" is not one of ${words.join(', ')}.`;
    return `"${text}" is not ${words.slice(0, -1).join(', ')} or ${words.at(-1)}.`;
  }
  if (KindGuard.IsString(schema)) {
    if (isFormatName(schema.format)) return FORMATS[schema.format].problem(text);
    if (schema.maxLength !== undefined && text.length > schema.maxLength) return `must be at most ${schema.maxLength} characters long.`;
  }
  const error = Value.Errors(schema, valueOfText(schema, text)).First();
  return `"${text}" is not valid${error ? ` (${error.message})` : ''}.`;
}

/**
 * `text` read (valueOfText) and checked against `schema`: the value to decode.
 * @throws ConfigError naming `name`, about the first list item that fails when `schema` is a list
 */
function checkedValue(schema: TSchema, text: string, name: string): unknown {
  if (KindGuard.IsArray(schema)) return (commaItems(text) ?? []).map((item) => checkedValue(schema.items, item, name));
  const value = valueOfText(schema, text);
  if (!Value.Check(schema, value)) throw new ConfigError(name, problemOf(schema, text));
  return value;
}

/**
 * The value of variable `name` in `env`: its trimmed text read, checked and decoded by the row's
 * schema, or the row's fallback when unset, empty or an empty list (undefined when it has none).
 * @throws ConfigError naming the variable when its text is invalid
 */
export function readVariable<K extends VariableName>(env: Env, name: K): VariableValue<K> {
  const row: ConfigVariable<TSchema> & { fallback?: unknown } = CONFIG_VARIABLES[name];
  const text = env[name]?.trim();
  const items = KindGuard.IsArray(row.schema) && text !== undefined ? commaItems(text) : [];
  if (text === undefined || text === '' || items === undefined) {
    // A fresh copy of a list fallback, so that no configuration shares (and may change) another's.
    const fallback = row.fallback;
    return (Array.isArray(fallback) ? [...(fallback as unknown[])] : fallback) as VariableValue<K>;
  }
  const value = checkedValue(row.schema, text, name);
  try {
    return Value.Decode<TSchema, VariableValue<K>>(row.schema, value);
  } catch (error) {
    throw new ConfigError(name, error instanceof Error ? error.message : String(error));
  }
}

/** The "default" cell of one row of docs/configuration.md. */
export function shownDefault(row: ConfigVariable<TSchema> & { fallback?: unknown }): string {
  if (row.shown !== undefined) return row.shown;
  const value = Array.isArray(row.fallback) ? row.fallback.join(',') : String(row.fallback);
  return `\`${value}\`${row.note ?? ''}`;
}

/** The configuration table of docs/configuration.md, header included, one line per variable. */
export function renderReadmeTable(): string {
  const rows = Object.entries(CONFIG_VARIABLES).map(([name, row]) => `| \`${name}\` | ${shownDefault(row)} | ${row.meaning} |`);
  return ['| variable | default | meaning |', '|---|---|---|', ...rows].join('\n');
}

/** Markdown cell text as plain text: no backticks, no bold. */
function plain(markdown: string): string {
  return markdown.replace(/`/g, '').replace(/\*\*/g, '');
}

/** `text` as `# ` comment lines of at most 100 characters. */
function comment(words: string): string {
  const lines: string[] = [];
  let current = '#';
  for (const word of words.split(/\s+/)) {
    if (current.length + 1 + word.length > 100 && current !== '#') {
      lines.push(current);
      current = '#';
    }
    current += ` ${word}`;
  }
  lines.push(current);
  return lines.join('\n');
}

/** `.env.example`: each variable commented out under its meaning and default. */
export function renderEnvExample(): string {
  return [
    '# Hangar configuration: copy to .env (or point ENV_FILE at a copy) and uncomment what you change.',
    '# Variables set in the real environment win over this file. Generated from the configuration',
    '# table (apps/server/config-variables.ts) by `node scripts/config-docs.mjs`; do not edit by hand.',
    '',
    ...Object.entries(CONFIG_VARIABLES).map(([name, row]) => `${comment(plain(row.meaning))}\n${comment(`Default: ${plain(shownDefault(row))}`)}\n#${name}=\n`),
  ].join('\n');
}
