import { type Static, Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { parseEnv } from 'node:util';
import { EMAIL_MIN_INTERVAL_MS, REFRESH_TOKEN_REUSE_INTERVAL_MS } from '../../core/accounts/account-options.js';
import { BUILT_IN_PLAN_NAME, type Plan } from '../../core/plans/plan.js';
import type { HangarOptions } from '../../core/hangar.js';
import { ConfigError, DEFAULT_DATABASE_POOL_SIZE, type Env, readVariable, type VariableName, type VariableValue } from './config-variables.js';

export { ConfigError, type Env } from './config-variables.js';

/** Most server processes `WORKERS=auto` starts, however many CPUs there are (each holds its own caches, database connections and heap). */
const MAX_AUTO_WORKERS = 8;
/** `WORKERS=auto` runs one process on a machine with this many CPUs or fewer. */
const ONE_PROCESS_UP_TO_CPUS = 2;

/** The server processes `WORKERS=auto` means on a machine with `cpus` CPUs (see workersOf). */
export function autoWorkers(cpus: number): number {
  return cpus <= ONE_PROCESS_UP_TO_CPUS ? 1 : Math.min(cpus, MAX_AUTO_WORKERS);
}

/** Which database holds the records: a SQLite file, or a Postgres server (several processes may share one). */
export type DatabaseConfig =
  /**
   * `fastPath`: SQLITE_FAST_PATH (absent: on), statements on every request's path without Kysely's executor;
   * `cacheBytes`: SQLITE_CACHE_BYTES, the connection's page cache (absent: DEFAULT_SQLITE_CACHE_BYTES).
   */
  | { kind: 'sqlite'; path: string; fastPath?: boolean; cacheBytes?: number }
  /**
   * `url`: the libpq URL as given (`postgres://` or `postgresql://`); `poolSize`: DATABASE_POOL_SIZE;
   * `listenUrl`: DATABASE_LISTEN_URL, where the change feed listens when not at `url`;
   * `groupCommit`: DATABASE_GROUP_COMMIT (default on; adapters/persistence/postgres/group-commit.ts).
   */
  | { kind: 'postgres'; url: string; poolSize: number; listenUrl?: string; groupCommit?: boolean };

/**
 * Where file contents live: a local directory, a Google Cloud Storage bucket (objects under
 * `prefix`, '' for none; `apiEndpoint` for an emulator, where no credentials are sent;
 * `resumableThresholdBytes` for the single-request/resumable split), or an S3-compatible bucket
 * (docs/s3.md: `endpoint` unset for AWS; `credentials` from AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY
 * when set, else the SDK's default chain; `partSizeBytes` and `queueSize` bound an upload's memory,
 * part size × (queue size + 1); `ifNoneMatch` false for stores without conditional writes).
 */
export type BlobStoreConfig =
  /** `smallBlobMaxBytes`: blobs up to this size are rows of `<directory>/small-blobs.db` (`SMALL_BLOB_MAX_BYTES`); 0 = every blob a file. */
  | { kind: 'file'; directory: string; smallBlobMaxBytes: number }
  | { kind: 'gcs'; bucket: string; prefix: string; apiEndpoint?: string; resumableThresholdBytes?: number }
  | {
      kind: 's3';
      bucket: string;
      prefix: string;
      endpoint?: string;
      region: string;
      forcePathStyle: boolean;
      credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
      partSizeBytes: number;
      queueSize: number;
      ifNoneMatch: boolean;
    };

/** How e-mail leaves: a directory of JSON files, or SMTP. */
export type MailConfig = { kind: 'file'; directory: string } | { kind: 'smtp'; url: string };

/** Where custom hostnames are managed: the in-process mock, or Cloudflare for SaaS. */
export type EdgeConfig = { kind: 'mock'; cnameTarget: string } | { kind: 'cloudflare'; apiToken: string; zoneId: string; baseUrl: string; cnameTarget: string };

/** The HS256 key: given (at least 32 UTF-8 bytes), or generated once and kept in the database (a file under DATA_DIR is adopted). */
export type JwtSecretConfig = { kind: 'value'; value: string } | { kind: 'file'; path: string };

/** One plan as written in `PLANS_FILE` (snake_case, like the API); its rules are the core's `Plan`. */
const PlanFileEntry = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 64 }),
    trial_days: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]),
    storage_limit_bytes: Type.Integer({ minimum: 0 }),
    file_count_limit: Type.Integer({ minimum: 0 }),
    max_upload_size_bytes: Type.Integer({ minimum: 1 }),
    /** Image transformations per billing period; absent or null: unlimited (docs/images.md). */
    image_ops_limit: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.Null()])),
  },
  { additionalProperties: false },
);
/** `PLANS_FILE`: `{ "plans": [ … ], "default_plan"?: "name" }`. */
const PlansFile = Type.Object(
  { plans: Type.Array(PlanFileEntry, { minItems: 1 }), default_plan: Type.Optional(Type.String()) },
  { additionalProperties: false },
);

/** Reads one variable of the table from `env`. */
type Read = <K extends VariableName>(name: K) => VariableValue<K>;

/**
 * The environment with a configuration file's variables beneath it: the file `ENV_FILE` names
 * (relative to `cwd`; it must exist), else `.env` in `cwd` when there is one. A variable set in
 * the real environment wins over the file's, even when set to ''. The file's syntax is dotenv's
 * as Node reads it (`util.parseEnv`, Node 20.12+): `NAME=value` lines, `#` comments, quoted values,
 * an optional `export ` prefix.
 * @throws ConfigError ENV_FILE when the file it names cannot be read
 */
export function withEnvFile(env: Env, cwd: string = process.cwd()): Env {
  const named = readVariable(env, 'ENV_FILE');
  const file = path.resolve(cwd, named ?? '.env');
  if (named === undefined && !existsSync(file)) return env;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError('ENV_FILE', `cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? String(error)}).`);
  }
  return { ...parseEnv(text), ...env };
}

/**
 * The whole configuration of a Hangar process, read once from the environment by `loadConfig`: the
 * type of what it returns, each field's type the one its variable's schema decodes to (the table,
 * apps/server/config-variables.ts). `core` is the core's options (HangarOptions, core/hangar.ts),
 * handed to `createHangar` as they are; the other fields are the adapters' and the delivery's.
 */
export type Config = ReturnType<typeof loadConfig>;

/**
 * Parses the configuration from environment variables. Every variable, its schema, default and
 * meaning is a row of the configuration table (apps/server/config-variables.ts), from which the
 * table of docs/configuration.md is rendered; this function says only where each value goes and
 * what one variable's value means for another's. The only place that reads `process.env` is
 * apps/server/main.ts (and the CLI's), which passes it here.
 * @throws ConfigError naming the first invalid variable
 */
export function loadConfig(env: Env) {
  const read: Read = (name) => readVariable(env, name);
  const port = read('PORT');
  const contentPort = read('CONTENT_PORT');
  const publicApiUrl = read('PUBLIC_API_URL') ?? `http://localhost:${port}`;
  const publicContentUrl = read('PUBLIC_CONTENT_URL') ?? `http://localhost:${contentPort}`;
  const dataDir = path.resolve(read('DATA_DIR'));
  const database = databaseOf(read, dataDir);
  const workers = workersOf(read('WORKERS'), database);
  const metricsPort = read('METRICS_PORT');
  return {
    /**
     * Server processes (`WORKERS`): 1 runs the service in this process; more make this process the
     * primary of a `node:cluster` that forks that many workers sharing both ports (apps/server/supervisor.ts).
     */
    workers,
    /** V8's old-generation growing factor − 1, in percent (0: V8's own; apps/server/heap-growth.ts). */
    heapGrowingPercent: read('HEAP_GROWING_PERCENT'),
    host: read('HOST'),
    /** TCP ports; 0 picks a free one (tests). */
    port,
    contentPort,
    dataDir,
    database,
    blobs: blobStoreOf(read('BLOB_STORE_URL') ?? `file:${path.join(dataDir, 'blobs')}`, read),
    mail: mailOf(read('MAIL_URL') ?? `file:${path.join(dataDir, 'outbox')}`),
    /** Sender of every e-mail. */
    mailFrom: read('MAIL_FROM'),
    edge: edgeOf(read, publicContentUrl),
    jwtSecret: jwtSecretOf(read('JWT_SECRET'), dataDir),
    /** Single sign-on: the options of the OpenID provider (adapters/sso/openid-client-provider.ts); null when OIDC_ISSUER is not set. */
    oidc: oidcOf(read, publicApiUrl),
    /** The options of the password hasher (adapters/crypto/argon2-password-hasher.ts): memory in KiB; hashes at once in this process, by default the CPUs shared out among the workers. */
    passwordHasher: {
      memoryCost: read('PASSWORD_HASH_MEMORY_KIB'),
      concurrency: read('PASSWORD_HASH_CONCURRENCY') ?? Math.ceil(availableParallelism() / workers),
    },
    /** The options of the image transformer (adapters/images/sharp-image-transformer.ts): largest source in px. */
    imageTransformer: { maxInputPixels: read('IMAGE_MAX_INPUT_PIXELS') },
    /** The options of the webhook address policy (adapters/webhooks/public-addresses.ts). */
    webhookTargets: { allowPrivateNetworks: read('WEBHOOK_ALLOW_PRIVATE_NETWORKS') },
    /** Failpoints armed by `HANGAR_FAILPOINTS` (tests only; empty in production). */
    failpoints: read('HANGAR_FAILPOINTS'),
    expirySweepIntervalSeconds: read('EXPIRY_SWEEP_INTERVAL_SECONDS'),
    /** Reverse proxies in front of the API that append the client's address to `X-Forwarded-For` (0: none, the socket's address is the client's). */
    trustProxyHops: read('TRUST_PROXY'),
    /** Origins allowed to call the API from browsers (none by default). */
    corsOrigins: read('CORS_ORIGINS'),
    /** How slowly a request body may arrive before 408 (apps/http/upload-pacing.ts), in ms; 0 turns a rule off. */
    uploadPacing: {
      idleTimeoutMs: 1000 * read('UPLOAD_IDLE_TIMEOUT_SECONDS'),
      minBytesPerSecond: read('UPLOAD_MIN_BYTES_PER_SECOND'),
      windowMs: 1000 * read('UPLOAD_MIN_RATE_WINDOW_SECONDS'),
      slowAfterMs: 1000 * read('SLOW_BODY_AFTER_SECONDS'),
    },
    /** Prometheus metrics: off (null) unless METRICS_PORT is set; port 0 picks a free one (tests). */
    metrics: metricsPort === undefined ? null : { host: read('METRICS_HOST'), port: metricsPort },
    /** The log: lowest level written, and `json` lines, `pretty` lines for a person, or `auto` (pretty when stdout is a terminal). */
    log: { level: read('LOG_LEVEL'), format: read('LOG_FORMAT') },
    /** The core's options, as `createHangar` takes them (core/hangar.ts; apps/server/container.ts adds only `onBackgroundError`). */
    core: {
      /** {base_url} and {cdn_url}, no trailing slash. */
      publicApiUrl,
      publicContentUrl,
      allowedRedirectUrls: read('ALLOWED_REDIRECT_URLS') ?? [publicApiUrl],
      allowedContentTypes: read('ALLOWED_CONTENT_TYPES'),
      /** Extra hostnames the content server answers as itself, lower case. */
      contentHosts: read('CONTENT_HOSTS'),
      defaultMaxUploadSizeBytes: read('DEFAULT_MAX_UPLOAD_SIZE_BYTES'),
      /** Least time between two e-mails to one address, in ms (not an environment variable; embedding hosts and tests may lower it). */
      emailMinIntervalMs: EMAIL_MIN_INTERVAL_MS,
      /** A rotated refresh token presented again within this many ms is a concurrent refresh, not theft (not an environment variable). */
      refreshTokenReuseIntervalMs: REFRESH_TOKEN_REUSE_INTERVAL_MS,
      sessionIdleDays: read('SESSION_IDLE_DAYS'),
      registration: read('REGISTRATION'),
      /** The RATE_LIMIT_* variables and SLOW_BODIES_PER_CLIENT (core/shared/rate-limits.ts; 0 turns one off). */
      rateLimits: {
        loginFreeFailuresPerAccount: read('RATE_LIMIT_LOGIN_FREE_FAILURES'),
        loginFreeFailuresPerClient: read('RATE_LIMIT_LOGIN_CLIENT_FREE_FAILURES'),
        loginMaxDelaySeconds: read('RATE_LIMIT_LOGIN_MAX_DELAY_SECONDS'),
        registrationsPerClientPerHour: read('RATE_LIMIT_REGISTER_PER_HOUR'),
        passwordResetsPerClientPerHour: read('RATE_LIMIT_FORGOT_PASSWORD_PER_HOUR'),
        emailRequestsPerAddressPerHour: read('RATE_LIMIT_EMAIL_PER_ADDRESS_PER_HOUR'),
        uploadsPerAccountPerMinute: read('RATE_LIMIT_UPLOADS_PER_MINUTE'),
        imageTransformsPerClientPerMinute: read('RATE_LIMIT_IMAGE_TRANSFORMS_PER_MINUTE'),
        slowBodiesPerClient: read('SLOW_BODIES_PER_CLIENT'),
      },
      /** The plans on offer (from `PLANS_FILE`, or one built from TRIAL_DAYS & co.) and the plan of new accounts. */
      ...plansOf(read),
      logRetentionDays: read('LOG_RETENTION_DAYS'),
      adminAuditRetentionDays: read('ADMIN_AUDIT_RETENTION_DAYS'),
      /** Normalised (lower-case) addresses promoted to administrators when they confirm. */
      adminEmails: read('ADMIN_EMAILS'),
      resumableUploadExpiryHours: read('RESUMABLE_UPLOAD_EXPIRY_HOURS'),
      resumableUploadsPerAccount: read('RESUMABLE_UPLOADS_PER_ACCOUNT'),
      apiKeysPerAccount: read('API_KEYS_PER_ACCOUNT'),
      /** Image transformations (docs/images.md): slots (IMAGE_CONCURRENCY), wait in ms, stored variants per file, the size ladder in px (ascending). */
      images: {
        concurrency: read('IMAGE_CONCURRENCY'),
        queueTimeoutMs: read('IMAGE_QUEUE_TIMEOUT_MS'),
        maxVariantsPerFile: read('IMAGE_MAX_VARIANTS_PER_FILE'),
        sizeLadder: read('IMAGE_SIZE_LADDER'),
      },
      /** Webhooks (docs/webhooks.md): endpoints per account, and whether http:// URLs are accepted. */
      webhooks: { maxPerAccount: read('WEBHOOKS_PER_ACCOUNT'), allowHttp: read('WEBHOOK_ALLOW_HTTP') },
      /** Media facts (docs/media.md): new uploads probed at once per process (MEDIA_PROBE_CONCURRENCY); 0: none at upload. */
      media: { concurrency: read('MEDIA_PROBE_CONCURRENCY') },
    } satisfies HangarOptions,
  };
}

/**
 * DATABASE_URL (default: `sqlite:$DATA_DIR/hangar.db`) with the variables that go with its kind:
 * DATABASE_POOL_SIZE, DATABASE_LISTEN_URL and DATABASE_GROUP_COMMIT for Postgres (the last two are
 * refused with SQLite), SQLITE_FAST_PATH and SQLITE_CACHE_BYTES for SQLite (ignored with Postgres).
 */
function databaseOf(read: Read, dataDir: string): DatabaseConfig {
  const database = parseDatabaseUrl(read('DATABASE_URL') ?? `sqlite:${path.join(dataDir, 'hangar.db')}`, {
    name: 'DATABASE_URL',
    poolSize: read('DATABASE_POOL_SIZE'),
  });
  const listenUrl = read('DATABASE_LISTEN_URL');
  if (listenUrl !== undefined) {
    const listen = parseDatabaseUrl(listenUrl, { name: 'DATABASE_LISTEN_URL' });
    if (database.kind !== 'postgres' || listen.kind !== 'postgres')
      throw new ConfigError('DATABASE_LISTEN_URL', 'is for Postgres only: set it to a postgres:// URL of the database DATABASE_URL names.');
    database.listenUrl = listen.url;
  }
  const groupCommit = read('DATABASE_GROUP_COMMIT');
  if (groupCommit !== undefined) {
    if (database.kind !== 'postgres') throw new ConfigError('DATABASE_GROUP_COMMIT', 'is for Postgres only (SQLite always groups its commits).');
    database.groupCommit = groupCommit;
  }
  const sqliteFastPath = read('SQLITE_FAST_PATH');
  if (database.kind === 'sqlite' && sqliteFastPath !== undefined) database.fastPath = sqliteFastPath;
  const sqliteCacheBytes = read('SQLITE_CACHE_BYTES');
  if (database.kind === 'sqlite' && sqliteCacheBytes !== undefined) database.cacheBytes = sqliteCacheBytes;
  return database;
}

/** JWT_SECRET when set, else the key generated once and kept in the database (a file `$DATA_DIR/jwt-secret` is adopted). */
function jwtSecretOf(secret: string | undefined, dataDir: string): JwtSecretConfig {
  return secret !== undefined ? { kind: 'value', value: secret } : { kind: 'file', path: path.join(dataDir, 'jwt-secret') };
}

/**
 * WORKERS: `auto` (default), or a number 1–64. `auto` is one server process per CPU this process
 * may use (`os.availableParallelism()`), at most 8, on a machine with more than
 * {@link ONE_PROCESS_UP_TO_CPUS} CPUs, and one process up to that: measured on 2 CPUs, a second
 * worker cost more CPU per request than one process (decision 0009, docs/decisions/). A SQLite
 * database in memory (`sqlite::memory:`) belongs to one process, so `auto` means 1 there and more
 * is refused.
 */
function workersOf(value: number | 'auto', database: DatabaseConfig): number {
  const inMemory = database.kind === 'sqlite' && database.path === ':memory:';
  if (value === 'auto') return inMemory ? 1 : autoWorkers(availableParallelism());
  if (value > 1 && inMemory) throw new ConfigError('WORKERS', 'a SQLite database in memory belongs to one process; use WORKERS=1 or a database file.');
  return value;
}

/**
 * Single sign-on: OIDC_ISSUER turns it on and then needs OIDC_CLIENT_ID and OIDC_CLIENT_SECRET;
 * OIDC_NAME names the button (default: the issuer's host name); the callback is `{PUBLIC_API_URL}/auth/oidc/callback`.
 */
function oidcOf(read: Read, publicApiUrl: string) {
  const issuer = read('OIDC_ISSUER');
  if (issuer === undefined) {
    for (const name of ['OIDC_CLIENT_ID', 'OIDC_CLIENT_SECRET'] as const) {
      if (read(name) !== undefined) throw new ConfigError('OIDC_ISSUER', `is required when ${name} is set.`);
    }
    return null;
  }
  const required = (name: 'OIDC_CLIENT_ID' | 'OIDC_CLIENT_SECRET') => {
    const value = read(name);
    if (value === undefined) throw new ConfigError(name, 'is required when OIDC_ISSUER is set.');
    return value;
  };
  const url = new URL(issuer);
  return {
    issuer,
    clientId: required('OIDC_CLIENT_ID'),
    clientSecret: required('OIDC_CLIENT_SECRET'),
    displayName: read('OIDC_NAME') ?? url.hostname,
    redirectUri: `${publicApiUrl}/auth/oidc/callback`,
    allowHttp: url.protocol === 'http:',
  };
}

/**
 * The edge provider: `EDGE_PROVIDER=mock` (default) or `cloudflare`, which needs
 * CLOUDFLARE_API_TOKEN, CLOUDFLARE_ZONE_ID and a CNAME target (CUSTOM_DOMAIN_CNAME_TARGET, else
 * CLOUDFLARE_FALLBACK_ORIGIN). The mock's CNAME target defaults to the content URL's host.
 */
function edgeOf(read: Read, publicContentUrl: string): EdgeConfig {
  const target = read('CUSTOM_DOMAIN_CNAME_TARGET') ?? read('CLOUDFLARE_FALLBACK_ORIGIN');
  if (read('EDGE_PROVIDER') === 'mock') return { kind: 'mock', cnameTarget: target ?? new URL(publicContentUrl).hostname };
  const required = (name: 'CLOUDFLARE_API_TOKEN' | 'CLOUDFLARE_ZONE_ID') => {
    const value = read(name);
    if (value === undefined) throw new ConfigError(name, 'is required when EDGE_PROVIDER=cloudflare.');
    return value;
  };
  const apiToken = required('CLOUDFLARE_API_TOKEN');
  const zoneId = required('CLOUDFLARE_ZONE_ID');
  if (target === undefined)
    throw new ConfigError('CUSTOM_DOMAIN_CNAME_TARGET', 'is required when EDGE_PROVIDER=cloudflare (or set CLOUDFLARE_FALLBACK_ORIGIN).');
  return { kind: 'cloudflare', apiToken, zoneId, baseUrl: read('CLOUDFLARE_API_BASE_URL'), cnameTarget: target };
}

/**
 * The plans: from the JSON file `PLANS_FILE` when set, else one built-in plan named "default" from
 * TRIAL_DAYS, STORAGE_LIMIT_BYTES, FILE_COUNT_LIMIT, MAX_UPLOAD_SIZE_LIMIT_BYTES and IMAGE_OPS_LIMIT.
 * New accounts get DEFAULT_PLAN (else the file's `default_plan`, else its first plan).
 */
function plansOf(read: Read): { plans: Plan[]; defaultPlan: string } {
  const file = read('PLANS_FILE');
  let plans: Plan[];
  let fileDefault: string;
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
    const imageOpsLimit = read('IMAGE_OPS_LIMIT');
    plans = [
      {
        name: BUILT_IN_PLAN_NAME,
        trialDays: read('TRIAL_DAYS'),
        storageLimitBytes: read('STORAGE_LIMIT_BYTES'),
        fileCountLimit: read('FILE_COUNT_LIMIT'),
        maxUploadSizeBytes: read('MAX_UPLOAD_SIZE_LIMIT_BYTES'),
        ...(imageOpsLimit === undefined ? {} : { imageOpsLimit }),
      },
    ];
    fileDefault = BUILT_IN_PLAN_NAME;
  }
  const defaultPlan = read('DEFAULT_PLAN') ?? fileDefault;
  if (!plans.some((p) => p.name === defaultPlan)) {
    throw new ConfigError('DEFAULT_PLAN', `"${defaultPlan}" is not a plan; plans: ${plans.map((p) => p.name).join(', ')}.`);
  }
  return { plans, defaultPlan };
}

/**
 * A database as DATABASE_URL names it (`sqlite:<path>`, `postgres://…`, `postgresql://…`), for
 * other places that take one, such as the admin CLI's `db copy --from/--to`. Relative SQLite paths
 * are resolved against the working directory. Messages never repeat the URL, which may hold a password.
 * @param options.name what the URL was given as (a variable or an option), named by errors
 * @param options.poolSize connections for Postgres (default 10)
 * @throws ConfigError naming `options.name` when the URL is not one of those
 */
export function parseDatabaseUrl(url: string, options: { name: string; poolSize?: number }): DatabaseConfig {
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
export function parseBlobStoreUrl(url: string, env: Env): BlobStoreConfig {
  return blobStoreOf(url, (name) => readVariable(env, name));
}

/** Bucket prefix segments after `<scheme>://<bucket>/`: [0-9A-Za-z._-] each, joined by "/". */
function prefixOf(rest: string[]): string {
  const segments = rest.filter((segment) => segment !== '');
  if (segments.some((segment) => !/^[0-9A-Za-z._-]+$/.test(segment) || segment === '.' || segment === '..')) {
    throw new ConfigError('BLOB_STORE_URL', 'the prefix after the bucket may hold only [0-9A-Za-z._-] segments joined by "/".');
  }
  return segments.join('/');
}

/**
 * BLOB_STORE_URL: `file:<directory>` with SMALL_BLOB_MAX_BYTES, or `gs://<bucket>[/<prefix>]` with
 * GCS_API_ENDPOINT and GCS_RESUMABLE_THRESHOLD_BYTES, or `s3://<bucket>[/<prefix>]` (s3StoreOf).
 */
function blobStoreOf(url: string, read: Read): BlobStoreConfig {
  if (url.startsWith('file:')) {
    const dir = url.slice('file:'.length).replace(/^\/\/(?=\/)/, '');
    if (dir === '') throw new ConfigError('BLOB_STORE_URL', 'file: needs a directory, e.g. file:./data/blobs');
    return { kind: 'file', directory: path.resolve(dir), smallBlobMaxBytes: read('SMALL_BLOB_MAX_BYTES') };
  }
  if (url.startsWith('gs://')) {
    const [bucket, ...rest] = url.slice('gs://'.length).split('/');
    // https://cloud.google.com/storage/docs/buckets#naming (dotted names up to 222 characters).
    if (!/^[a-z0-9][a-z0-9._-]{1,220}[a-z0-9]$/.test(bucket)) {
      throw new ConfigError('BLOB_STORE_URL', `"${bucket}" is not a GCS bucket name; use gs://my-bucket/optional/prefix.`);
    }
    const prefix = prefixOf(rest);
    const apiEndpoint = read('GCS_API_ENDPOINT');
    const resumableThresholdBytes = read('GCS_RESUMABLE_THRESHOLD_BYTES');
    return {
      kind: 'gcs',
      bucket,
      prefix,
      ...(apiEndpoint !== undefined ? { apiEndpoint } : {}),
      ...(resumableThresholdBytes !== undefined ? { resumableThresholdBytes } : {}),
    };
  }
  if (url.startsWith('s3://')) return s3StoreOf(url, read);
  throw new ConfigError(
    'BLOB_STORE_URL',
    `unsupported "${url.split(':')[0]}:"; use file:<directory>, gs://<bucket>/<optional prefix> or s3://<bucket>/<optional prefix>.`,
  );
}

/**
 * `s3://<bucket>[/<prefix>]` with S3_ENDPOINT, S3_REGION, S3_FORCE_PATH_STYLE, S3_PART_SIZE_BYTES,
 * S3_UPLOAD_QUEUE_SIZE, S3_IF_NONE_MATCH and, when set, AWS_ACCESS_KEY_ID with AWS_SECRET_ACCESS_KEY
 * (and AWS_SESSION_TOKEN). Without the keys the AWS SDK's default credential chain applies
 * (profiles, SSO, web identity, instance roles).
 */
function s3StoreOf(url: string, read: Read): BlobStoreConfig {
  const [bucket, ...rest] = url.slice('s3://'.length).split('/');
  // AWS's rule (3–63 of a-z 0-9 . -), loosened to the upper case and underscores some compatible stores allow.
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{1,61}[A-Za-z0-9]$/.test(bucket)) {
    throw new ConfigError('BLOB_STORE_URL', `"${bucket}" is not an S3 bucket name; use s3://my-bucket/optional/prefix.`);
  }
  const prefix = prefixOf(rest);
  const endpoint = read('S3_ENDPOINT');
  const accessKeyId = read('AWS_ACCESS_KEY_ID');
  const secretAccessKey = read('AWS_SECRET_ACCESS_KEY');
  if ((accessKeyId === undefined) !== (secretAccessKey === undefined)) {
    throw new ConfigError(
      accessKeyId === undefined ? 'AWS_ACCESS_KEY_ID' : 'AWS_SECRET_ACCESS_KEY',
      "set both AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or neither (the SDK's default credential chain).",
    );
  }
  const sessionToken = read('AWS_SESSION_TOKEN');
  return {
    kind: 's3',
    bucket,
    prefix,
    ...(endpoint !== undefined ? { endpoint } : {}),
    region: read('S3_REGION'),
    forcePathStyle: read('S3_FORCE_PATH_STYLE'),
    ...(accessKeyId !== undefined && secretAccessKey !== undefined
      ? { credentials: { accessKeyId, secretAccessKey, ...(sessionToken !== undefined ? { sessionToken } : {}) } }
      : {}),
    partSizeBytes: read('S3_PART_SIZE_BYTES'),
    queueSize: read('S3_UPLOAD_QUEUE_SIZE'),
    ifNoneMatch: read('S3_IF_NONE_MATCH'),
  };
}

/** MAIL_URL: `file:<directory>` or `smtp(s)://user:pass@host:port`. */
function mailOf(url: string): MailConfig {
  if (url.startsWith('file:')) {
    const dir = url.slice('file:'.length).replace(/^\/\/(?=\/)/, '');
    if (dir === '') throw new ConfigError('MAIL_URL', 'file: needs a directory, e.g. file:./data/outbox');
    return { kind: 'file', directory: path.resolve(dir) };
  }
  if (url.startsWith('smtp://') || url.startsWith('smtps://')) return { kind: 'smtp', url };
  throw new ConfigError('MAIL_URL', `unsupported "${url.split(':')[0]}:"; use file:<directory> or smtp://user:pass@host:port.`);
}
