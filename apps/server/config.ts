import { type Static, Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import path from 'node:path';
import { EMAIL_MIN_INTERVAL_MS } from '../../core/accounts/account-options.js';
import { DEFAULT_ALLOWED_CONTENT_TYPES } from '../../core/files/content-types.js';
import { existsSync, readFileSync } from 'node:fs';
import { parseEnv } from 'node:util';
import { DEFAULT_LOG_RETENTION_DAYS } from '../../core/activity/prune-logs.js';
import { DEFAULT_MAX_UPLOAD_SIZE_BYTES } from '../../core/files/file-options.js';
import { BUILT_IN_PLAN_NAME, type Plan } from '../../core/plans/plan.js';
import { REFRESH_TOKEN_REUSE_INTERVAL_MS } from '../../core/accounts/account-options.js';
import { DEFAULT_RATE_LIMITS } from '../../core/shared/rate-limits.js';
import { checkSizeLadder, DEFAULT_SIZE_LADDER } from '../../core/images/image-params.js';
import { DEFAULT_MAX_VARIANTS_PER_FILE } from '../../core/images/transform-public-image.js';
import { availableParallelism } from 'node:os';
import { FAILPOINT_NAMES } from '../../core/shared/failpoints.js';
import { DEFAULT_SMALL_BLOB_MAX_BYTES, MAX_SMALL_BLOB_MAX_BYTES } from '../../adapters/blobs/small-blob-limits.js';
import { S3_LIMITS } from '../../adapters/blobs/s3-limits.js';
import { DEFAULT_UPLOAD_PACING } from '../http/upload-pacing.js';

const S3_MIN_PART_SIZE_BYTES = S3_LIMITS.minPartSizeBytes;

/** Most server processes `WORKERS` may ask for. */
const MAX_WORKERS = 64;
/** Most server processes `WORKERS=auto` starts, however many CPUs there are (each holds its own caches, database connections and heap). */
const MAX_AUTO_WORKERS = 8;

/** Which database holds the records: a SQLite file, or a Postgres server (several processes may share one). */
const DatabaseConfig = Type.Union([
  Type.Object({ kind: Type.Literal('sqlite'), path: Type.String({ minLength: 1 }) }),
  /**
   * `url`: the libpq URL as given (`postgres://` or `postgresql://`); `poolSize`: DATABASE_POOL_SIZE;
   * `listenUrl`: DATABASE_LISTEN_URL, where the change feed listens when not at `url`.
   */
  Type.Object({
    kind: Type.Literal('postgres'),
    url: Type.String({ minLength: 1 }),
    poolSize: Type.Integer({ minimum: 1 }),
    listenUrl: Type.Optional(Type.String({ minLength: 1 })),
  }),
]);
/**
 * Where file contents live: a local directory, or a Google Cloud Storage bucket (objects under
 * `prefix`, '' for none; `apiEndpoint` for an emulator, where no credentials are sent;
 * `resumableThresholdBytes` for the single-request/resumable split).
 */
const BlobStoreConfig = Type.Union([
  Type.Object({
    kind: Type.Literal('file'),
    directory: Type.String({ minLength: 1 }),
    /** Bytes: blobs up to this size are rows of `<directory>/small-blobs.db` (`SMALL_BLOB_MAX_BYTES`); 0 = every blob a file. */
    smallBlobMaxBytes: Type.Integer({ minimum: 0, maximum: MAX_SMALL_BLOB_MAX_BYTES }),
  }),
  Type.Object({
    kind: Type.Literal('gcs'),
    bucket: Type.String({ minLength: 3 }),
    prefix: Type.String(),
    apiEndpoint: Type.Optional(Type.String()),
    resumableThresholdBytes: Type.Optional(Type.Integer({ minimum: 1 })),
  }),
  /**
   * An S3-compatible bucket (docs/s3.md): `endpoint` unset for AWS; `credentials` from
   * AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY when set, else the SDK's default chain; `partSizeBytes`
   * and `queueSize` bound an upload's memory (part size × (queue size + 1)); `ifNoneMatch` false for
   * stores without conditional writes.
   */
  Type.Object({
    kind: Type.Literal('s3'),
    bucket: Type.String({ minLength: 3 }),
    prefix: Type.String(),
    endpoint: Type.Optional(Type.String()),
    region: Type.String({ minLength: 1 }),
    forcePathStyle: Type.Boolean(),
    credentials: Type.Optional(Type.Object({ accessKeyId: Type.String({ minLength: 1 }), secretAccessKey: Type.String({ minLength: 1 }), sessionToken: Type.Optional(Type.String()) })),
    partSizeBytes: Type.Integer({ minimum: S3_MIN_PART_SIZE_BYTES }),
    queueSize: Type.Integer({ minimum: 1, maximum: 64 }),
    ifNoneMatch: Type.Boolean(),
  }),
]);
/** How e-mail leaves: a directory of JSON files, or SMTP. */
const MailConfig = Type.Union([
  Type.Object({ kind: Type.Literal('file'), directory: Type.String({ minLength: 1 }) }),
  Type.Object({ kind: Type.Literal('smtp'), url: Type.String({ minLength: 1 }) }),
]);
/** Where custom hostnames are managed: the in-process mock, or Cloudflare for SaaS. */
const EdgeConfig = Type.Union([
  Type.Object({ kind: Type.Literal('mock'), cnameTarget: Type.String() }),
  Type.Object({
    kind: Type.Literal('cloudflare'),
    apiToken: Type.String({ minLength: 1 }),
    zoneId: Type.String({ minLength: 1 }),
    baseUrl: Type.String(),
    cnameTarget: Type.String({ minLength: 1 }),
  }),
]);
/** The HS256 key: given, or generated once and kept in a file under DATA_DIR. */
const JwtSecretConfig = Type.Union([
  // At least 32 UTF-8 bytes, checked in loadConfig (a schema's minLength counts UTF-16 units, not bytes).
  Type.Object({ kind: Type.Literal('value'), value: Type.String({ minLength: 1 }) }),
  Type.Object({ kind: Type.Literal('file'), path: Type.String({ minLength: 1 }) }),
]);

const PlanSchema = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 64 }),
  trialDays: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]),
  storageLimitBytes: Type.Integer({ minimum: 0 }),
  fileCountLimit: Type.Integer({ minimum: 0 }),
  maxUploadSizeBytes: Type.Integer({ minimum: 1 }),
  imageOpsLimit: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.Null()])),
});

/** One plan as written in `PLANS_FILE` (snake_case, like the API). */
const PlanFileEntry = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 64 }),
  trial_days: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]),
  storage_limit_bytes: Type.Integer({ minimum: 0 }),
  file_count_limit: Type.Integer({ minimum: 0 }),
  max_upload_size_bytes: Type.Integer({ minimum: 1 }),
  /** Image transformations per billing period; absent or null: unlimited (docs/images.md). */
  image_ops_limit: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.Null()])),
}, { additionalProperties: false });
/** `PLANS_FILE`: `{ "plans": [ … ], "default_plan"?: "name" }`. */
const PlansFile = Type.Object({ plans: Type.Array(PlanFileEntry, { minItems: 1 }), default_plan: Type.Optional(Type.String()) }, { additionalProperties: false });

/** The whole configuration of a Hangar process, parsed once from the environment. */
export const ConfigSchema = Type.Object({
  host: Type.String(),
  /**
   * Server processes (`WORKERS`): 1 runs the service in this process; more make this process the
   * primary of a `node:cluster` that forks that many workers sharing both ports (apps/server/supervisor.ts).
   */
  workers: Type.Integer({ minimum: 1, maximum: MAX_WORKERS }),
  /** TCP ports; 0 picks a free one (tests). */
  port: Type.Integer({ minimum: 0, maximum: 65535 }),
  contentPort: Type.Integer({ minimum: 0, maximum: 65535 }),
  /** {base_url}, no trailing slash. */
  publicApiUrl: Type.String(),
  /** {cdn_url}, no trailing slash. */
  publicContentUrl: Type.String(),
  dataDir: Type.String(),
  database: DatabaseConfig,
  blobs: BlobStoreConfig,
  mail: MailConfig,
  /** Custom hostnames (`EDGE_PROVIDER` and the CLOUDFLARE_* variables). */
  edge: EdgeConfig,
  /** Sender of every e-mail (`MAIL_FROM`). */
  mailFrom: Type.String(),
  jwtSecret: JwtSecretConfig,
  allowedRedirectUrls: Type.Array(Type.String()),
  /** Who may create an account (`REGISTRATION`): `open`, `invite` (with an invite from `cli invites create`) or `closed`. */
  registration: Type.Union([Type.Literal('open'), Type.Literal('invite'), Type.Literal('closed')]),
  /**
   * Single sign-on through an OpenID provider (`OIDC_ISSUER`, `OIDC_CLIENT_ID`, `OIDC_CLIENT_SECRET`,
   * `OIDC_NAME`); null when OIDC_ISSUER is not set. `allowHttp`: the issuer is plain HTTP on the loopback interface.
   */
  oidc: Type.Union([Type.Null(), Type.Object({
    issuer: Type.String(),
    clientId: Type.String({ minLength: 1 }),
    clientSecret: Type.String({ minLength: 1 }),
    displayName: Type.String({ minLength: 1, maxLength: 64 }),
    allowHttp: Type.Boolean(),
  })]),
  allowedContentTypes: Type.Array(Type.String(), { minItems: 1 }),
  /** Extra hostnames the content server answers as itself (`CONTENT_HOSTS`). */
  contentHosts: Type.Array(Type.String()),
  /** Bytes. */
  defaultMaxUploadSizeBytes: Type.Integer({ minimum: 1 }),
  /** The plans on offer (from `PLANS_FILE`, or one built from TRIAL_DAYS & co.). */
  plans: Type.Array(PlanSchema, { minItems: 1 }),
  /** Plan of new accounts (`DEFAULT_PLAN`). */
  defaultPlan: Type.String(),
  /** Days activity log entries are kept (`LOG_RETENTION_DAYS`). */
  logRetentionDays: Type.Integer({ minimum: 1 }),
  /** Seconds between runs of the expiry sweep (`EXPIRY_SWEEP_INTERVAL_SECONDS`, docs/private-files.md). */
  expirySweepIntervalSeconds: Type.Integer({ minimum: 1 }),
  /** Image transformations (docs/images.md): IMAGE_CONCURRENCY, IMAGE_QUEUE_TIMEOUT_MS (ms), IMAGE_MAX_INPUT_PIXELS (px). */
  images: Type.Object({
    concurrency: Type.Integer({ minimum: 1 }),
    queueTimeoutMs: Type.Integer({ minimum: 0 }),
    maxInputPixels: Type.Integer({ minimum: 1 }),
    /** Stored variants per file (`IMAGE_MAX_VARIANTS_PER_FILE`). */
    maxVariantsPerFile: Type.Integer({ minimum: 0 }),
    /** Sizes (px) unsigned `w`/`h` are snapped up to (`IMAGE_SIZE_LADDER`), ascending. */
    sizeLadder: Type.Array(Type.Integer({ minimum: 1, maximum: 4096 }), { minItems: 1 }),
  }),
  /** argon2id memory cost in KiB (`PASSWORD_HASH_MEMORY_KIB`). */
  passwordHashMemoryKib: Type.Integer({ minimum: 1024 }),
  /**
   * Failpoints armed by `HANGAR_FAILPOINTS` (tests only; empty in production): each point's name
   * and action, `kill` (SIGKILL at once) or an errno to inject (`ENOSPC`, `EIO`…).
   */
  failpoints: Type.Array(Type.Object({
    name: Type.Union(FAILPOINT_NAMES.map((name) => Type.Literal(name))),
    action: Type.Union([Type.Literal('kill'), Type.Object({ errno: Type.String({ pattern: '^E[A-Z]+$' }) })]),
  })),
  /** Least time between two e-mails to one address, in ms (not an environment variable; embedding hosts and tests may lower it). */
  emailMinIntervalMs: Type.Integer({ minimum: 0 }),
  /** argon2 hashes running at once in this process (`PASSWORD_HASH_CONCURRENCY`, default: the number of CPUs); the rest wait. */
  passwordHashConcurrency: Type.Integer({ minimum: 1 }),
  /**
   * Reverse proxies in front of the API that append the client's address to `X-Forwarded-For`
   * (`TRUST_PROXY`: 0 = none, the socket's address is the client's).
   */
  trustProxyHops: Type.Integer({ minimum: 0 }),
  /** Origins allowed to call the API from browsers (`CORS_ORIGINS`; none by default). */
  corsOrigins: Type.Array(Type.String()),
  /** The RATE_LIMIT_* variables (core/shared/rate-limits.ts; 0 turns one off). */
  rateLimits: Type.Object({
    loginFreeFailuresPerAccount: Type.Integer({ minimum: 0 }),
    loginFreeFailuresPerClient: Type.Integer({ minimum: 0 }),
    loginMaxDelaySeconds: Type.Integer({ minimum: 1 }),
    registrationsPerClientPerHour: Type.Integer({ minimum: 0 }),
    passwordResetsPerClientPerHour: Type.Integer({ minimum: 0 }),
    emailRequestsPerAddressPerHour: Type.Integer({ minimum: 0 }),
    uploadsPerKeyPerMinute: Type.Integer({ minimum: 0 }),
    imageTransformsPerClientPerMinute: Type.Integer({ minimum: 0 }),
  }),
  /**
   * How slowly an upload body may arrive before 408 (apps/http/upload-pacing.ts): UPLOAD_IDLE_TIMEOUT_SECONDS
   * (ms here), UPLOAD_MIN_BYTES_PER_SECOND over UPLOAD_MIN_RATE_WINDOW_SECONDS (ms here); 0 turns a rule off.
   */
  uploadPacing: Type.Object({
    idleTimeoutMs: Type.Integer({ minimum: 0 }),
    minBytesPerSecond: Type.Integer({ minimum: 0 }),
    windowMs: Type.Integer({ minimum: 1000 }),
  }),
  /** A rotated refresh token presented again within this many ms is a concurrent refresh, not theft (not an environment variable). */
  refreshTokenReuseIntervalMs: Type.Integer({ minimum: 0 }),
  /**
   * The log (`LOG_LEVEL`, `LOG_FORMAT`): lowest level written, and `json` lines, `pretty` lines for
   * a person, or `auto`: pretty when stdout is a terminal, else JSON.
   */
  /** Prometheus metrics (`METRICS_PORT`, `METRICS_HOST`): off (null) unless METRICS_PORT is set; 0 picks a free port (tests). */
  metrics: Type.Union([Type.Null(), Type.Object({ host: Type.String({ minLength: 1 }), port: Type.Integer({ minimum: 0, maximum: 65535 }) })]),
  log: Type.Object({
    level: Type.Union([Type.Literal('debug'), Type.Literal('info'), Type.Literal('warn'), Type.Literal('error')]),
    format: Type.Union([Type.Literal('json'), Type.Literal('pretty'), Type.Literal('auto')]),
  }),
});
export type Config = Static<typeof ConfigSchema>;

/** A configuration variable with an invalid value; the message names the variable. */
export class ConfigError extends Error {
  constructor(readonly variable: string, message: string) {
    super(`${variable}: ${message}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

/**
 * The environment with a configuration file's variables beneath it: the file `ENV_FILE` names
 * (relative to `cwd`; it must exist), else `.env` in `cwd` when there is one. A variable set in
 * the real environment wins over the file's, even when set to ''. The file's syntax is dotenv's
 * as Node reads it (`util.parseEnv`, Node 20.12+): `NAME=value` lines, `#` comments, quoted values,
 * an optional `export ` prefix.
 * @throws ConfigError ENV_FILE when the file it names cannot be read
 */
export function withEnvFile(env: Env, cwd: string = process.cwd()): Env {
  const named = env.ENV_FILE?.trim();
  const file = path.resolve(cwd, named || '.env');
  if (!named && !existsSync(file)) return env;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError('ENV_FILE', `cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? String(error)}).`);
  }
  return { ...parseEnv(text), ...env };
}

/**
 * Parses the configuration from environment variables (the README's table is the contract).
 * The only place that reads `process.env` is apps/server/main.ts, which passes it here.
 * @throws ConfigError naming the first invalid variable
 */
export function loadConfig(env: Env): Config {
  const read = (name: string): string | undefined => {
    const value = env[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  };
  const host = read('HOST') ?? '0.0.0.0';
  const port = portOf('PORT', read('PORT') ?? '3000');
  const contentPort = portOf('CONTENT_PORT', read('CONTENT_PORT') ?? '3001');
  const publicApiUrl = baseUrlOf('PUBLIC_API_URL', read('PUBLIC_API_URL') ?? `http://localhost:${port}`);
  const publicContentUrl = baseUrlOf('PUBLIC_CONTENT_URL', read('PUBLIC_CONTENT_URL') ?? `http://localhost:${contentPort}`);
  const dataDir = path.resolve(read('DATA_DIR') ?? './data');
  const databaseUrl = read('DATABASE_URL') ?? `sqlite:${path.join(dataDir, 'hangar.db')}`;
  const blobUrl = read('BLOB_STORE_URL') ?? `file:${path.join(dataDir, 'blobs')}`;
  const mailUrl = read('MAIL_URL') ?? `file:${path.join(dataDir, 'outbox')}`;
  const secret = read('JWT_SECRET');
  // RFC 7518 §3.2: an HS256 key has at least 256 bits; any characters count, by their UTF-8 bytes.
  if (secret !== undefined && Buffer.byteLength(secret, 'utf8') < 32) {
    throw new ConfigError('JWT_SECRET', `must be at least 32 bytes long in UTF-8 (HS256 needs a 256-bit key, RFC 7518 §3.2); this one has ${Buffer.byteLength(secret, 'utf8')}.`);
  }
  const redirects = list(read('ALLOWED_REDIRECT_URLS')) ?? [publicApiUrl];
  redirects.forEach((url) => absoluteHttpUrl('ALLOWED_REDIRECT_URLS', url));
  const contentTypes = list(read('ALLOWED_CONTENT_TYPES'))?.map((t) => t.toLowerCase()) ?? [...DEFAULT_ALLOWED_CONTENT_TYPES];
  for (const type of contentTypes) {
    if (!/^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/.test(type)) throw new ConfigError('ALLOWED_CONTENT_TYPES', `"${type}" is not a MIME type.`);
  }
  const database = databaseOf(databaseUrl, read('DATABASE_POOL_SIZE'));
  const listenUrl = read('DATABASE_LISTEN_URL');
  if (listenUrl !== undefined) {
    const listen = parseDatabaseUrl(listenUrl, { name: 'DATABASE_LISTEN_URL' });
    if (database.kind !== 'postgres' || listen.kind !== 'postgres') throw new ConfigError('DATABASE_LISTEN_URL', 'is for Postgres only: set it to a postgres:// URL of the database DATABASE_URL names.');
    database.listenUrl = listen.url;
  }
  const workers = workersOf(read('WORKERS'), database);
  const config: Config = {
    workers,
    host,
    port,
    contentPort,
    publicApiUrl,
    publicContentUrl,
    dataDir,
    database,
    blobs: blobStoreOf(blobUrl, read),
    mail: mailOf(mailUrl),
    edge: edgeOf(read, publicContentUrl),
    mailFrom: read('MAIL_FROM') ?? 'Hangar <no-reply@localhost>',
    jwtSecret: secret !== undefined ? { kind: 'value', value: secret } : { kind: 'file', path: path.join(dataDir, 'jwt-secret') },
    allowedRedirectUrls: redirects,
    registration: oneOf('REGISTRATION', read('REGISTRATION')?.toLowerCase() ?? 'open', ['open', 'invite', 'closed'] as const),
    oidc: oidcOf(read),
    allowedContentTypes: contentTypes,
    contentHosts: (list(read('CONTENT_HOSTS')) ?? []).map((host) => host.toLowerCase()),
    defaultMaxUploadSizeBytes: bytes('DEFAULT_MAX_UPLOAD_SIZE_BYTES', read('DEFAULT_MAX_UPLOAD_SIZE_BYTES'), DEFAULT_MAX_UPLOAD_SIZE_BYTES),
    ...plansOf(read),
    logRetentionDays: integer('LOG_RETENTION_DAYS', read('LOG_RETENTION_DAYS'), DEFAULT_LOG_RETENTION_DAYS, 1),
    expirySweepIntervalSeconds: integer('EXPIRY_SWEEP_INTERVAL_SECONDS', read('EXPIRY_SWEEP_INTERVAL_SECONDS'), 30, 1, 60),
    images: {
      concurrency: integer('IMAGE_CONCURRENCY', read('IMAGE_CONCURRENCY'), 2, 1, 256),
      queueTimeoutMs: integer('IMAGE_QUEUE_TIMEOUT_MS', read('IMAGE_QUEUE_TIMEOUT_MS'), 2_000, 0, 600_000),
      maxInputPixels: integer('IMAGE_MAX_INPUT_PIXELS', read('IMAGE_MAX_INPUT_PIXELS'), 40_000_000, 1, 1_000_000_000),
      maxVariantsPerFile: integer('IMAGE_MAX_VARIANTS_PER_FILE', read('IMAGE_MAX_VARIANTS_PER_FILE'), DEFAULT_MAX_VARIANTS_PER_FILE, 0, 10_000),
      sizeLadder: sizeLadderOf(read('IMAGE_SIZE_LADDER')),
    },
    passwordHashMemoryKib: integer('PASSWORD_HASH_MEMORY_KIB', read('PASSWORD_HASH_MEMORY_KIB'), 19456, 1024),
    failpoints: failpointsOf(read('HANGAR_FAILPOINTS')),
    emailMinIntervalMs: EMAIL_MIN_INTERVAL_MS,
    // The CPUs shared out among the workers: each process hashes on its own share.
    passwordHashConcurrency: integer('PASSWORD_HASH_CONCURRENCY', read('PASSWORD_HASH_CONCURRENCY'), Math.ceil(availableParallelism() / workers), 1, 256),
    trustProxyHops: trustProxyOf(read('TRUST_PROXY')),
    corsOrigins: (list(read('CORS_ORIGINS')) ?? []).map((origin) => originOf('CORS_ORIGINS', origin)),
    rateLimits: {
      loginFreeFailuresPerAccount: integer('RATE_LIMIT_LOGIN_FREE_FAILURES', read('RATE_LIMIT_LOGIN_FREE_FAILURES'), DEFAULT_RATE_LIMITS.loginFreeFailuresPerAccount, 0),
      loginFreeFailuresPerClient: integer('RATE_LIMIT_LOGIN_CLIENT_FREE_FAILURES', read('RATE_LIMIT_LOGIN_CLIENT_FREE_FAILURES'), DEFAULT_RATE_LIMITS.loginFreeFailuresPerClient, 0),
      loginMaxDelaySeconds: integer('RATE_LIMIT_LOGIN_MAX_DELAY_SECONDS', read('RATE_LIMIT_LOGIN_MAX_DELAY_SECONDS'), DEFAULT_RATE_LIMITS.loginMaxDelaySeconds, 1, 86_400),
      registrationsPerClientPerHour: integer('RATE_LIMIT_REGISTER_PER_HOUR', read('RATE_LIMIT_REGISTER_PER_HOUR'), DEFAULT_RATE_LIMITS.registrationsPerClientPerHour, 0),
      passwordResetsPerClientPerHour: integer('RATE_LIMIT_FORGOT_PASSWORD_PER_HOUR', read('RATE_LIMIT_FORGOT_PASSWORD_PER_HOUR'), DEFAULT_RATE_LIMITS.passwordResetsPerClientPerHour, 0),
      emailRequestsPerAddressPerHour: integer('RATE_LIMIT_EMAIL_PER_ADDRESS_PER_HOUR', read('RATE_LIMIT_EMAIL_PER_ADDRESS_PER_HOUR'), DEFAULT_RATE_LIMITS.emailRequestsPerAddressPerHour, 0),
      uploadsPerKeyPerMinute: integer('RATE_LIMIT_UPLOADS_PER_MINUTE', read('RATE_LIMIT_UPLOADS_PER_MINUTE'), DEFAULT_RATE_LIMITS.uploadsPerKeyPerMinute, 0),
      imageTransformsPerClientPerMinute: integer('RATE_LIMIT_IMAGE_TRANSFORMS_PER_MINUTE', read('RATE_LIMIT_IMAGE_TRANSFORMS_PER_MINUTE'), DEFAULT_RATE_LIMITS.imageTransformsPerClientPerMinute, 0),
    },
    uploadPacing: {
      idleTimeoutMs: 1000 * integer('UPLOAD_IDLE_TIMEOUT_SECONDS', read('UPLOAD_IDLE_TIMEOUT_SECONDS'), DEFAULT_UPLOAD_PACING.idleTimeoutMs / 1000, 0, 86_400),
      minBytesPerSecond: integer('UPLOAD_MIN_BYTES_PER_SECOND', read('UPLOAD_MIN_BYTES_PER_SECOND'), DEFAULT_UPLOAD_PACING.minBytesPerSecond, 0, 1_000_000_000),
      windowMs: 1000 * integer('UPLOAD_MIN_RATE_WINDOW_SECONDS', read('UPLOAD_MIN_RATE_WINDOW_SECONDS'), DEFAULT_UPLOAD_PACING.windowMs / 1000, 1, 86_400),
    },
    refreshTokenReuseIntervalMs: REFRESH_TOKEN_REUSE_INTERVAL_MS,
    metrics: read('METRICS_PORT') === undefined ? null : { host: read('METRICS_HOST') ?? '127.0.0.1', port: portOf('METRICS_PORT', read('METRICS_PORT')!) },
    log: {
      level: oneOf('LOG_LEVEL', read('LOG_LEVEL')?.toLowerCase() ?? 'info', ['debug', 'info', 'warn', 'error'] as const),
      format: oneOf('LOG_FORMAT', read('LOG_FORMAT')?.toLowerCase() ?? 'auto', ['json', 'pretty', 'auto'] as const),
    },
  };
  const problem = Value.Errors(ConfigSchema, config).First();
  if (problem) throw new ConfigError('configuration', `${problem.path} ${problem.message}`);
  return config;
}

const GiB = 1024 * 1024 * 1024;

/**
 * WORKERS: `auto` (default): one server process per CPU this process may use
 * (`os.availableParallelism()`), at most 8; or a number 1–64. A SQLite database in memory
 * (`sqlite::memory:`) belongs to one process, so `auto` means 1 there and more is refused.
 */
function workersOf(value: string | undefined, database: Config['database']): number {
  const inMemory = database.kind === 'sqlite' && database.path === ':memory:';
  if (value === undefined || value.toLowerCase() === 'auto') return inMemory ? 1 : Math.min(availableParallelism(), MAX_AUTO_WORKERS);
  const workers = integer('WORKERS', value, 1, 1, MAX_WORKERS);
  if (workers > 1 && inMemory) throw new ConfigError('WORKERS', 'a SQLite database in memory belongs to one process; use WORKERS=1 or a database file.');
  return workers;
}

/**
 * Single sign-on: OIDC_ISSUER turns it on and then needs OIDC_CLIENT_ID and OIDC_CLIENT_SECRET;
 * OIDC_NAME names the button (default: the issuer's host name). The issuer must be https, except on
 * the loopback interface (localhost, 127.0.0.1, [::1]) for development and tests.
 */
function oidcOf(read: (name: string) => string | undefined): Config['oidc'] {
  const issuer = read('OIDC_ISSUER');
  if (issuer === undefined) {
    for (const name of ['OIDC_CLIENT_ID', 'OIDC_CLIENT_SECRET']) {
      if (read(name) !== undefined) throw new ConfigError('OIDC_ISSUER', `is required when ${name} is set.`);
    }
    return null;
  }
  const url = absoluteHttpUrl('OIDC_ISSUER', issuer);
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  if (url.protocol !== 'https:' && !loopback) throw new ConfigError('OIDC_ISSUER', `"${issuer}" must be an https URL (plain http only on localhost).`);
  const required = (name: string) => {
    const value = read(name);
    if (value === undefined) throw new ConfigError(name, 'is required when OIDC_ISSUER is set.');
    return value;
  };
  const clientId = required('OIDC_CLIENT_ID');
  const clientSecret = required('OIDC_CLIENT_SECRET');
  const displayName = read('OIDC_NAME') ?? url.hostname;
  if (displayName.length > 64) throw new ConfigError('OIDC_NAME', 'must be at most 64 characters long.');
  return { issuer, clientId, clientSecret, displayName, allowHttp: url.protocol === 'http:' };
}

/** Cloudflare's API v4 base. */
const CLOUDFLARE_API_BASE_URL = 'https://api.cloudflare.com/client/v4';

/**
 * The edge provider: `EDGE_PROVIDER=mock` (default) or `cloudflare`, which needs
 * CLOUDFLARE_API_TOKEN, CLOUDFLARE_ZONE_ID and a CNAME target (CUSTOM_DOMAIN_CNAME_TARGET, else
 * CLOUDFLARE_FALLBACK_ORIGIN); CLOUDFLARE_API_BASE_URL defaults to Cloudflare's v4 base. The
 * mock's CNAME target defaults to the content URL's host.
 */
function edgeOf(read: (name: string) => string | undefined, publicContentUrl: string): Config['edge'] {
  const kind = (read('EDGE_PROVIDER') ?? 'mock').toLowerCase();
  const target = read('CUSTOM_DOMAIN_CNAME_TARGET') ?? read('CLOUDFLARE_FALLBACK_ORIGIN');
  if (kind === 'mock') return { kind: 'mock', cnameTarget: target ?? new URL(publicContentUrl).hostname };
  if (kind !== 'cloudflare') throw new ConfigError('EDGE_PROVIDER', `"${kind}" is not an edge provider; use mock or cloudflare.`);
  const required = (name: string) => {
    const value = read(name);
    if (value === undefined) throw new ConfigError(name, 'is required when EDGE_PROVIDER=cloudflare.');
    return value;
  };
  const apiToken = required('CLOUDFLARE_API_TOKEN');
  const zoneId = required('CLOUDFLARE_ZONE_ID');
  if (target === undefined) throw new ConfigError('CUSTOM_DOMAIN_CNAME_TARGET', 'is required when EDGE_PROVIDER=cloudflare (or set CLOUDFLARE_FALLBACK_ORIGIN).');
  const baseUrl = baseUrlOf('CLOUDFLARE_API_BASE_URL', read('CLOUDFLARE_API_BASE_URL') ?? CLOUDFLARE_API_BASE_URL);
  return { kind: 'cloudflare', apiToken, zoneId, baseUrl, cnameTarget: target };
}

/**
 * The plans: from the JSON file `PLANS_FILE` when set, else one built-in plan named "default" from
 * TRIAL_DAYS (14; 0 ends the trial at sign-up; `off` means no trial), STORAGE_LIMIT_BYTES (1 GiB),
 * FILE_COUNT_LIMIT (10000), MAX_UPLOAD_SIZE_LIMIT_BYTES (1 GiB) and IMAGE_OPS_LIMIT (unset: unlimited). New accounts get DEFAULT_PLAN
 * (else the file's `default_plan`, else its first plan).
 */
function plansOf(read: (name: string) => string | undefined): { plans: Plan[]; defaultPlan: string } {
  const file = read('PLANS_FILE');
  let plans: Plan[];
  let fileDefault: string | undefined;
  if (file !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(file, 'utf8'));
    } catch (error) {
      throw new ConfigError('PLANS_FILE', `cannot read ${file} as JSON (${error instanceof Error ? error.message : String(error)}).`);
    }
    const problem = Value.Errors(PlansFile, parsed).First();
    if (problem) throw new ConfigError('PLANS_FILE', `${file}: ${problem.path || '/'} ${problem.message}.`);
    const body = parsed as Static<typeof PlansFile>;
    plans = body.plans.map((p) => ({
      name: p.name,
      trialDays: p.trial_days,
      storageLimitBytes: p.storage_limit_bytes,
      fileCountLimit: p.file_count_limit,
      maxUploadSizeBytes: p.max_upload_size_bytes,
      ...(p.image_ops_limit === undefined || p.image_ops_limit === null ? {} : { imageOpsLimit: p.image_ops_limit }),
    }));
    if (new Set(plans.map((p) => p.name)).size !== plans.length) throw new ConfigError('PLANS_FILE', `${file}: plan names must be unique.`);
    fileDefault = body.default_plan ?? plans[0].name;
  } else {
    const trial = read('TRIAL_DAYS') ?? '14';
    plans = [{
      name: BUILT_IN_PLAN_NAME,
      trialDays: trial.toLowerCase() === 'off' ? null : integer('TRIAL_DAYS', trial, 14, 0, 36_500),
      storageLimitBytes: integer('STORAGE_LIMIT_BYTES', read('STORAGE_LIMIT_BYTES'), GiB, 0),
      fileCountLimit: integer('FILE_COUNT_LIMIT', read('FILE_COUNT_LIMIT'), 10_000, 0),
      maxUploadSizeBytes: bytes('MAX_UPLOAD_SIZE_LIMIT_BYTES', read('MAX_UPLOAD_SIZE_LIMIT_BYTES'), GiB),
      ...(read('IMAGE_OPS_LIMIT') === undefined ? {} : { imageOpsLimit: integer('IMAGE_OPS_LIMIT', read('IMAGE_OPS_LIMIT'), 0, 0) }),
    }];
    fileDefault = BUILT_IN_PLAN_NAME;
  }
  const defaultPlan = read('DEFAULT_PLAN') ?? fileDefault;
  if (!plans.some((p) => p.name === defaultPlan)) {
    throw new ConfigError('DEFAULT_PLAN', `"${defaultPlan}" is not a plan; plans: ${plans.map((p) => p.name).join(', ')}.`);
  }
  return { plans, defaultPlan };
}

/**
 * HANGAR_FAILPOINTS (crash and fault tests only): comma-separated `name` (SIGKILL when reached) or
 * `name=ERRNO` (reaching it fails like the system call would, e.g. `blob_write=ENOSPC`).
 */
function failpointsOf(value: string | undefined): Config['failpoints'] {
  return (list(value) ?? []).map((item) => {
    const [name, action = 'kill'] = item.split('=').map((part) => part.trim());
    if (!(FAILPOINT_NAMES as readonly string[]).includes(name)) {
      throw new ConfigError('HANGAR_FAILPOINTS', `"${name}" is not a failpoint; failpoints: ${FAILPOINT_NAMES.join(', ')}.`);
    }
    if (action !== 'kill' && !/^E[A-Z]+$/.test(action)) throw new ConfigError('HANGAR_FAILPOINTS', `"${action}" is neither kill nor an errno such as ENOSPC or EIO.`);
    return { name: name as (typeof FAILPOINT_NAMES)[number], action: action === 'kill' ? 'kill' : { errno: action } };
  });
}

/**
 * TRUST_PROXY: how many reverse proxies in front of the API append to `X-Forwarded-For`. Unset,
 * `false` or `0`: none (the socket's address is the client's; `X-Forwarded-For` is ignored);
 * `true`: 1; a number 1–10: that many (the client is that many entries from the right, the
 * entries further left being whatever the client sent).
 */
function trustProxyOf(value: string | undefined): number {
  if (value === undefined || value.toLowerCase() === 'false') return 0;
  if (value.toLowerCase() === 'true') return 1;
  return integer('TRUST_PROXY', value, 0, 0, 10);
}

/** An origin as browsers send it in `Origin`: `scheme://host[:port]`, nothing after it. */
function originOf(name: string, value: string): string {
  const url = absoluteHttpUrl(name, value);
  if (url.origin !== value.replace(/\/$/, '')) throw new ConfigError(name, `"${value}" is not an origin; write scheme://host[:port] only.`);
  return url.origin;
}

function oneOf<T extends string>(name: string, value: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(value)) throw new ConfigError(name, `"${value}" is not one of ${allowed.join(', ')}.`);
  return value as T;
}

function portOf(name: string, value: string): number {
  return integer(name, value, 0, 0, 65535);
}

function integer(name: string, value: string | undefined, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value)) throw new ConfigError(name, `"${value}" is not a whole number.`);
  const n = Number(value);
  if (n < min || n > max) throw new ConfigError(name, `must be between ${min} and ${max}.`);
  return n;
}

/** `IMAGE_SIZE_LADDER`: comma-separated whole numbers 1–4096 (px); the default ladder when unset. */
function sizeLadderOf(value: string | undefined): number[] {
  const steps = list(value);
  if (steps === undefined) return [...DEFAULT_SIZE_LADDER];
  return checkSizeLadder(steps.map((step) => integer('IMAGE_SIZE_LADDER', step, 0, 1, 4096)));
}

function bytes(name: string, value: string | undefined, fallback: number): number {
  return integer(name, value, fallback, 1);
}

function absoluteHttpUrl(name: string, value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(name, `"${value}" is not an absolute URL.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(name, `"${value}" must be an http(s) URL.`);
  return url;
}

function baseUrlOf(name: string, value: string): string {
  absoluteHttpUrl(name, value);
  return value.replace(/\/+$/, '');
}

function list(value: string | undefined): string[] | undefined {
  const items = value?.split(',').map((item) => item.trim()).filter((item) => item !== '');
  return items && items.length > 0 ? items : undefined;
}

/** Most connections one process opens to Postgres unless DATABASE_POOL_SIZE says otherwise. */
const DEFAULT_DATABASE_POOL_SIZE = 10;

/**
 * DATABASE_URL: `sqlite:<path>`, or a libpq URL `postgres://user:password@host:5432/database?sslmode=…`
 * (`postgresql://` too) with DATABASE_POOL_SIZE connections per process (1–1000, default 10; checked
 * but unused with SQLite).
 */
function databaseOf(url: string, poolSizeValue: string | undefined): Config['database'] {
  return parseDatabaseUrl(url, { name: 'DATABASE_URL', poolSize: integer('DATABASE_POOL_SIZE', poolSizeValue, DEFAULT_DATABASE_POOL_SIZE, 1, 1000) });
}

/**
 * A database as DATABASE_URL names it (`sqlite:<path>`, `postgres://…`, `postgresql://…`), for
 * other places that take one, such as the admin CLI's `db copy --from/--to`. Relative SQLite paths
 * are resolved against the working directory. Messages never repeat the URL, which may hold a password.
 * @param options.name what the URL was given as (a variable or an option), named by errors
 * @param options.poolSize connections for Postgres (default 10)
 * @throws ConfigError naming `options.name` when the URL is not one of those
 */
export function parseDatabaseUrl(url: string, options: { name: string; poolSize?: number }): Config['database'] {
  const { name, poolSize = DEFAULT_DATABASE_POOL_SIZE } = options;
  if (url.startsWith('sqlite:')) {
    const file = url.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    if (file === '') throw new ConfigError(name, 'sqlite: needs a file path, e.g. sqlite:./data/hangar.db');
    return { kind: 'sqlite', path: file === ':memory:' ? file : path.resolve(file) };
  }
  if (/^postgres(ql)?:\/\//.test(url)) {
    try {
      // An empty host (`postgres://user@/db?host=/run/postgresql`, a Unix socket) is valid for libpq.
      new URL(url.replace(/@\//, '@localhost/'));
    } catch {
      throw new ConfigError(name, 'is not a valid postgres:// URL; use postgres://user:password@host:5432/database.');
    }
    return { kind: 'postgres', url, poolSize };
  }
  throw new ConfigError(name, `unsupported "${url.split(':')[0]}:"; use sqlite:<path> or postgres://user:password@host:5432/database.`);
}

/**
 * A blob store URL as BLOB_STORE_URL takes it, with the variables that go with its kind read from
 * `env` (S3_*, AWS_*, GCS_*, SMALL_BLOB_MAX_BYTES): the target of `npm run cli -- blobs copy --to`.
 * @throws ConfigError naming the variable (BLOB_STORE_URL for the URL itself)
 */
export function parseBlobStoreUrl(url: string, env: Env): Config['blobs'] {
  return blobStoreOf(url, (name) => {
    const value = env[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  });
}

/**
 * BLOB_STORE_URL: `file:<directory>` with SMALL_BLOB_MAX_BYTES (optional, bytes, 0–1,048,576, default
 * 65,536), or `gs://<bucket>[/<prefix>]` with GCS_API_ENDPOINT (optional http(s) URL of an emulator)
 * and GCS_RESUMABLE_THRESHOLD_BYTES (optional, bytes), or `s3://<bucket>[/<prefix>]` (s3StoreOf).
 */
function blobStoreOf(url: string, read: (name: string) => string | undefined): Config['blobs'] {
  if (url.startsWith('file:')) {
    const dir = url.slice('file:'.length).replace(/^\/\/(?=\/)/, '');
    if (dir === '') throw new ConfigError('BLOB_STORE_URL', 'file: needs a directory, e.g. file:./data/blobs');
    return {
      kind: 'file',
      directory: path.resolve(dir),
      smallBlobMaxBytes: integer('SMALL_BLOB_MAX_BYTES', read('SMALL_BLOB_MAX_BYTES'), DEFAULT_SMALL_BLOB_MAX_BYTES, 0, MAX_SMALL_BLOB_MAX_BYTES),
    };
  }
  if (url.startsWith('gs://')) {
    const [bucket, ...rest] = url.slice('gs://'.length).split('/');
    // https://cloud.google.com/storage/docs/buckets#naming (dotted names up to 222 characters).
    if (!/^[a-z0-9][a-z0-9._-]{1,220}[a-z0-9]$/.test(bucket)) {
      throw new ConfigError('BLOB_STORE_URL', `"${bucket}" is not a GCS bucket name; use gs://my-bucket/optional/prefix.`);
    }
    const segments = rest.filter((segment) => segment !== '');
    if (segments.some((segment) => !/^[0-9A-Za-z._-]+$/.test(segment) || segment === '.' || segment === '..')) {
      throw new ConfigError('BLOB_STORE_URL', 'the prefix after the bucket may hold only [0-9A-Za-z._-] segments joined by "/".');
    }
    const endpoint = read('GCS_API_ENDPOINT');
    const threshold = read('GCS_RESUMABLE_THRESHOLD_BYTES');
    return {
      kind: 'gcs',
      bucket,
      prefix: segments.join('/'),
      ...(endpoint !== undefined ? { apiEndpoint: baseUrlOf('GCS_API_ENDPOINT', endpoint) } : {}),
      ...(threshold !== undefined ? { resumableThresholdBytes: bytes('GCS_RESUMABLE_THRESHOLD_BYTES', threshold, 0) } : {}),
    };
  }
  if (url.startsWith('s3://')) return s3StoreOf(url, read);
  throw new ConfigError('BLOB_STORE_URL', `unsupported "${url.split(':')[0]}:"; use file:<directory>, gs://<bucket>/<optional prefix> or s3://<bucket>/<optional prefix>.`);
}

/**
 * `s3://<bucket>[/<prefix>]` with S3_ENDPOINT (http(s) URL; unset for AWS), S3_REGION (default
 * us-east-1), S3_FORCE_PATH_STYLE, S3_PART_SIZE_BYTES, S3_UPLOAD_QUEUE_SIZE, S3_IF_NONE_MATCH and,
 * when set, AWS_ACCESS_KEY_ID with AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN). Without the keys
 * the AWS SDK's default credential chain applies (profiles, SSO, web identity, instance roles).
 */
function s3StoreOf(url: string, read: (name: string) => string | undefined): Config['blobs'] {
  const [bucket, ...rest] = url.slice('s3://'.length).split('/');
  // AWS's rule (3–63 of a-z 0-9 . -), loosened to the upper case and underscores some compatible stores allow.
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{1,61}[A-Za-z0-9]$/.test(bucket)) {
    throw new ConfigError('BLOB_STORE_URL', `"${bucket}" is not an S3 bucket name; use s3://my-bucket/optional/prefix.`);
  }
  const segments = rest.filter((segment) => segment !== '');
  if (segments.some((segment) => !/^[0-9A-Za-z._-]+$/.test(segment) || segment === '.' || segment === '..')) {
    throw new ConfigError('BLOB_STORE_URL', 'the prefix after the bucket may hold only [0-9A-Za-z._-] segments joined by "/".');
  }
  const endpoint = read('S3_ENDPOINT');
  const accessKeyId = read('AWS_ACCESS_KEY_ID');
  const secretAccessKey = read('AWS_SECRET_ACCESS_KEY');
  if ((accessKeyId === undefined) !== (secretAccessKey === undefined)) {
    throw new ConfigError(accessKeyId === undefined ? 'AWS_ACCESS_KEY_ID' : 'AWS_SECRET_ACCESS_KEY', 'set both AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or neither (the SDK\'s default credential chain).');
  }
  const sessionToken = read('AWS_SESSION_TOKEN');
  return {
    kind: 's3',
    bucket,
    prefix: segments.join('/'),
    ...(endpoint !== undefined ? { endpoint: baseUrlOf('S3_ENDPOINT', endpoint) } : {}),
    region: read('S3_REGION') ?? S3_LIMITS.defaultRegion,
    forcePathStyle: booleanOf('S3_FORCE_PATH_STYLE', read('S3_FORCE_PATH_STYLE'), false),
    ...(accessKeyId !== undefined && secretAccessKey !== undefined
      ? { credentials: { accessKeyId, secretAccessKey, ...(sessionToken !== undefined ? { sessionToken } : {}) } }
      : {}),
    partSizeBytes: integer('S3_PART_SIZE_BYTES', read('S3_PART_SIZE_BYTES'), S3_LIMITS.defaultPartSizeBytes, S3_MIN_PART_SIZE_BYTES, S3_LIMITS.maxPartSizeBytes),
    queueSize: integer('S3_UPLOAD_QUEUE_SIZE', read('S3_UPLOAD_QUEUE_SIZE'), S3_LIMITS.defaultQueueSize, 1, 64),
    ifNoneMatch: booleanOf('S3_IF_NONE_MATCH', read('S3_IF_NONE_MATCH'), true),
  };
}

/** `true` or `false` (any case); `fallback` when unset. @throws ConfigError otherwise */
function booleanOf(name: string, value: string | undefined, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (/^true$/i.test(value)) return true;
  if (/^false$/i.test(value)) return false;
  throw new ConfigError(name, `"${value}" is neither true nor false.`);
}

function mailOf(url: string): Config['mail'] {
  if (url.startsWith('file:')) {
    const dir = url.slice('file:'.length).replace(/^\/\/(?=\/)/, '');
    if (dir === '') throw new ConfigError('MAIL_URL', 'file: needs a directory, e.g. file:./data/outbox');
    return { kind: 'file', directory: path.resolve(dir) };
  }
  if (url.startsWith('smtp://') || url.startsWith('smtps://')) return { kind: 'smtp', url };
  throw new ConfigError('MAIL_URL', `unsupported "${url.split(':')[0]}:"; use file:<directory> or smtp://user:pass@host:port.`);
}
