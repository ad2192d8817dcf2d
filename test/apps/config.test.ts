import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { autoWorkers, ConfigError, loadConfig } from '../../apps/server/config.js';
import { DEFAULT_ALLOWED_CONTENT_TYPES } from '../../core/files/content-types.js';
import { startServerProcess } from '../support/server-process.js';

describe('configuration from the environment', () => {
  it('has the documented defaults: ports 3000/3001, SQLite, local disk and a file outbox under ./data', () => {
    const config = loadConfig({});
    const data = path.resolve('./data');
    expect(config).to.deep.include({
      host: '0.0.0.0',
      port: 3000,
      contentPort: 3001,
      dataDir: data,
      database: { kind: 'sqlite', path: path.join(data, 'hangar.db') },
      blobs: { kind: 'file', directory: path.join(data, 'blobs'), smallBlobMaxBytes: 65536 },
      mail: { kind: 'file', directory: path.join(data, 'outbox') },
      jwtSecret: { kind: 'file', path: path.join(data, 'jwt-secret') },
    });
    expect(config.core).to.deep.include({
      publicApiUrl: 'http://localhost:3000',
      publicContentUrl: 'http://localhost:3001',
      allowedRedirectUrls: ['http://localhost:3000'],
      defaultMaxUploadSizeBytes: 104857600,
    });
    expect(config.core.allowedContentTypes).to.deep.equal([...DEFAULT_ALLOWED_CONTENT_TYPES]);
  });

  it('runs WORKERS=auto by default: one process on 1 or 2 CPUs, else one per CPU (at most 8); or WORKERS of them; one for a SQLite database in memory', () => {
    expect([1, 2, 3, 4, 8, 16, 64].map(autoWorkers)).to.deep.equal([1, 1, 3, 4, 8, 8, 8]);
    expect(loadConfig({}).workers).to.equal(autoWorkers(availableParallelism()));
    expect(loadConfig({ WORKERS: 'auto' }).workers).to.equal(autoWorkers(availableParallelism()));
    expect(loadConfig({ WORKERS: '3' }).workers).to.equal(3);
    expect(loadConfig({ WORKERS: '1' }).workers).to.equal(1);
    expect(loadConfig({ DATABASE_URL: 'sqlite::memory:' }).workers).to.equal(1);
    expect(loadConfig({ DATABASE_URL: 'sqlite::memory:', WORKERS: '1' }).workers).to.equal(1);
    expect(() => loadConfig({ DATABASE_URL: 'sqlite::memory:', WORKERS: '2' })).to.throw(ConfigError, /^WORKERS: .*in memory/);
    for (const value of ['0', '65', 'two', '-1', '1.5']) expect(() => loadConfig({ WORKERS: value }), value).to.throw(ConfigError, /^WORKERS: /);
  });

  it('shares the CPUs out among the workers for password hashing, unless PASSWORD_HASH_CONCURRENCY says otherwise', () => {
    expect(loadConfig({ WORKERS: '1' }).passwordHasher.concurrency).to.equal(availableParallelism());
    expect(loadConfig({ WORKERS: String(availableParallelism()) }).passwordHasher.concurrency).to.equal(1);
    expect(loadConfig({ WORKERS: '64' }).passwordHasher.concurrency).to.equal(1);
    expect(loadConfig({ WORKERS: '4', PASSWORD_HASH_CONCURRENCY: '3' }).passwordHasher.concurrency).to.equal(3);
  });

  it('reads REGISTRATION (open by default) and turns single sign-on on with OIDC_ISSUER, which needs the client id and secret', () => {
    expect(loadConfig({}).core.registration).to.equal('open');
    expect(loadConfig({ REGISTRATION: 'Invite' }).core.registration).to.equal('invite');
    expect(() => loadConfig({ REGISTRATION: 'friends' })).to.throw(ConfigError, /^REGISTRATION: /);
    expect(loadConfig({}).oidc).to.equal(null);
    const oidc = { OIDC_ISSUER: 'https://login.example.com/realms/x', OIDC_CLIENT_ID: 'hangar', OIDC_CLIENT_SECRET: 'secret' };
    expect(loadConfig(oidc).oidc).to.deep.equal({
      issuer: 'https://login.example.com/realms/x',
      clientId: 'hangar',
      clientSecret: 'secret',
      displayName: 'login.example.com',
      redirectUri: 'http://localhost:3000/auth/oidc/callback',
      allowHttp: false,
    });
    expect(loadConfig({ ...oidc, OIDC_NAME: 'Example SSO' }).oidc?.displayName).to.equal('Example SSO');
    expect(loadConfig({ ...oidc, OIDC_ISSUER: 'http://127.0.0.1:9000' }).oidc?.allowHttp).to.equal(true);
    expect(() => loadConfig({ ...oidc, OIDC_ISSUER: 'http://login.example.com' })).to.throw(ConfigError, /^OIDC_ISSUER: .*https/);
    expect(() => loadConfig({ ...oidc, OIDC_CLIENT_SECRET: '' })).to.throw(ConfigError, /^OIDC_CLIENT_SECRET: is required/);
    expect(() => loadConfig({ OIDC_CLIENT_ID: 'hangar' })).to.throw(ConfigError, /^OIDC_ISSUER: is required/);
  });

  it('derives addresses from PORT/CONTENT_PORT and DATA_DIR, and reads lists and URLs', () => {
    const config = loadConfig({
      PORT: '8080',
      CONTENT_PORT: '8081',
      DATA_DIR: '/srv/hangar',
      PUBLIC_CONTENT_URL: 'https://cdn.example.com/',
      ALLOWED_CONTENT_TYPES: 'image/png, Image/JPEG',
      MAIL_URL: 'smtp://u:p@mail.example.com:587',
      ALLOWED_REDIRECT_URLS: 'https://a.example.com/x,https://b.example.com',
    });
    expect(config.core.publicApiUrl).to.equal('http://localhost:8080');
    expect(config.core.publicContentUrl).to.equal('https://cdn.example.com');
    expect(config.database).to.deep.equal({ kind: 'sqlite', path: '/srv/hangar/hangar.db' });
    expect(config.core.allowedContentTypes).to.deep.equal(['image/png', 'image/jpeg']);
    expect(config.mail).to.deep.equal({ kind: 'smtp', url: 'smtp://u:p@mail.example.com:587' });
    expect(config.core.allowedRedirectUrls).to.deep.equal(['https://a.example.com/x', 'https://b.example.com']);
  });

  it('takes a postgres:// or postgresql:// DATABASE_URL as it is, with DATABASE_POOL_SIZE connections (default 10)', () => {
    const url = 'postgres://hangar:s3cret@db.internal:5432/hangar?sslmode=require';
    expect(loadConfig({ DATABASE_URL: url }).database).to.deep.equal({ kind: 'postgres', url, poolSize: 10 });
    expect(loadConfig({ DATABASE_URL: 'postgresql://db/hangar', DATABASE_POOL_SIZE: '25' }).database).to.deep.equal({
      kind: 'postgres',
      url: 'postgresql://db/hangar',
      poolSize: 25,
    });
    // A Unix socket: libpq's empty host with a host parameter.
    expect(loadConfig({ DATABASE_URL: 'postgres://hangar@/hangar?host=/run/postgresql' }).database.kind).to.equal('postgres');
  });

  it('turns the SQLite fast path off with SQLITE_FAST_PATH=false (on unless set), and refuses another value', () => {
    expect(loadConfig({ DATABASE_URL: 'sqlite:/srv/hangar.db' }).database).to.deep.equal({ kind: 'sqlite', path: '/srv/hangar.db' });
    expect(loadConfig({ DATABASE_URL: 'sqlite:/srv/hangar.db', SQLITE_FAST_PATH: 'false' }).database).to.deep.equal({
      kind: 'sqlite',
      path: '/srv/hangar.db',
      fastPath: false,
    });
    expect(loadConfig({ DATABASE_URL: 'sqlite:/srv/hangar.db', SQLITE_FAST_PATH: 'TRUE' }).database).to.deep.equal({
      kind: 'sqlite',
      path: '/srv/hangar.db',
      fastPath: true,
    });
    expect(() => loadConfig({ SQLITE_FAST_PATH: 'off' })).to.throw(ConfigError, /^SQLITE_FAST_PATH: "off" is neither true nor false/);
  });

  it('sizes the SQLite page cache with SQLITE_CACHE_BYTES (64 MiB unless set), and refuses what is not a whole number of bytes', () => {
    expect(loadConfig({ DATABASE_URL: 'sqlite:/srv/hangar.db', SQLITE_CACHE_BYTES: '268435456' }).database).to.deep.equal({
      kind: 'sqlite',
      path: '/srv/hangar.db',
      cacheBytes: 268435456,
    });
    expect(loadConfig({ DATABASE_URL: 'sqlite:/srv/hangar.db', SQLITE_CACHE_BYTES: '0' }).database).to.deep.equal({
      kind: 'sqlite',
      path: '/srv/hangar.db',
      cacheBytes: 0,
    });
    expect(() => loadConfig({ SQLITE_CACHE_BYTES: '64MB' })).to.throw(ConfigError, /^SQLITE_CACHE_BYTES: "64MB" is not a whole number/);
  });

  it('takes DATABASE_LISTEN_URL, where the change feed listens, for Postgres only', () => {
    const listenUrl = 'postgres://hangar:s3cret@db.internal:5432/hangar';
    expect(loadConfig({ DATABASE_URL: 'postgres://hangar:s3cret@pgbouncer:6432/hangar', DATABASE_LISTEN_URL: listenUrl }).database).to.deep.equal({
      kind: 'postgres',
      url: 'postgres://hangar:s3cret@pgbouncer:6432/hangar',
      poolSize: 10,
      listenUrl,
    });
    expect(() => loadConfig({ DATABASE_LISTEN_URL: listenUrl })).to.throw(ConfigError, /^DATABASE_LISTEN_URL: is for Postgres only/);
    expect(() => loadConfig({ DATABASE_URL: 'postgres://db/hangar', DATABASE_LISTEN_URL: 'mysql://x' })).to.throw(ConfigError, /^DATABASE_LISTEN_URL: /);
  });

  it('takes DATABASE_GROUP_COMMIT for Postgres only', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://db/hangar', DATABASE_GROUP_COMMIT: 'false' }).database).to.deep.equal({
      kind: 'postgres',
      url: 'postgres://db/hangar',
      poolSize: 10,
      groupCommit: false,
    });
    expect(loadConfig({ DATABASE_URL: 'postgres://db/hangar' }).database).to.deep.equal({ kind: 'postgres', url: 'postgres://db/hangar', poolSize: 10 });
    expect(() => loadConfig({ DATABASE_GROUP_COMMIT: 'false' })).to.throw(ConfigError, /^DATABASE_GROUP_COMMIT: is for Postgres only/);
    expect(() => loadConfig({ DATABASE_URL: 'postgres://db/hangar', DATABASE_GROUP_COMMIT: 'off' })).to.throw(ConfigError, /^DATABASE_GROUP_COMMIT: /);
  });

  it('names DATABASE_POOL_SIZE when it is not a whole number from 1 to 1000, and never repeats a DATABASE_URL password', () => {
    for (const size of ['0', 'ten', '-1', '1001', '2.5']) {
      expect(() => loadConfig({ DATABASE_URL: 'postgres://db/hangar', DATABASE_POOL_SIZE: size }), size).to.throw(ConfigError, /^DATABASE_POOL_SIZE: /);
    }
    let message = '';
    try {
      loadConfig({ DATABASE_URL: 'postgres://hangar:s3cret@db:notaport/hangar' });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).to.match(/^DATABASE_URL: is not a valid postgres:\/\/ URL/);
    expect(message).not.to.include('s3cret');
  });

  it('takes a JWT_SECRET of non-ASCII characters by its UTF-8 bytes, and names the 32-byte rule when it is shorter', () => {
    // 16 × "é" is 16 characters but 32 bytes of UTF-8; 11 × "€" is 33 bytes.
    expect(loadConfig({ JWT_SECRET: 'é'.repeat(16) }).jwtSecret).to.deep.equal({ kind: 'value', value: 'é'.repeat(16) });
    expect(loadConfig({ JWT_SECRET: '€'.repeat(11) }).jwtSecret).to.deep.equal({ kind: 'value', value: '€'.repeat(11) });
    expect(() => loadConfig({ JWT_SECRET: 'é'.repeat(15) })).to.throw(ConfigError, /^JWT_SECRET: must be at least 32 bytes long in UTF-8 .*this one has 30\.$/);
  });

  for (const [variable, value] of [
    ['PORT', 'abc'],
    ['CONTENT_PORT', '70000'],
    ['PUBLIC_API_URL', 'not a url'],
    ['DATABASE_URL', 'mysql://x'],
    ['BLOB_STORE_URL', 'azure://container'],
    ['DATABASE_POOL_SIZE', '0'],
    ['MAIL_URL', 'pigeon://x'],
    ['JWT_SECRET', 'too-short'],
    ['ALLOWED_REDIRECT_URLS', 'ftp://x'],
    ['ALLOWED_CONTENT_TYPES', 'png'],
    ['DEFAULT_MAX_UPLOAD_SIZE_BYTES', '-1'],
    ['TRIAL_DAYS', 'soon'],
    ['STORAGE_LIMIT_BYTES', '1GB'],
    ['FILE_COUNT_LIMIT', '-5'],
    ['MAX_UPLOAD_SIZE_LIMIT_BYTES', '0'],
    ['LOG_RETENTION_DAYS', '0'],
  ] as const) {
    it(`refuses ${variable}=${value} with an error naming ${variable}`, () => {
      expect(() => loadConfig({ [variable]: value })).to.throw(ConfigError, new RegExp(`^${variable}:`));
    });
  }

  it('reads BLOB_STORE_URL=gs://bucket/prefix as a GCS store, with GCS_API_ENDPOINT and GCS_RESUMABLE_THRESHOLD_BYTES when given', () => {
    expect(loadConfig({ BLOB_STORE_URL: 'gs://my-bucket' }).blobs).to.deep.equal({ kind: 'gcs', bucket: 'my-bucket', prefix: '' });
    expect(loadConfig({ BLOB_STORE_URL: 'gs://my.bucket_1/hangar/prod/' }).blobs).to.deep.equal({ kind: 'gcs', bucket: 'my.bucket_1', prefix: 'hangar/prod' });
    expect(
      loadConfig({ BLOB_STORE_URL: 'gs://b-1/p', GCS_API_ENDPOINT: 'http://127.0.0.1:4443/', GCS_RESUMABLE_THRESHOLD_BYTES: '1048576' }).blobs,
    ).to.deep.equal({
      kind: 'gcs',
      bucket: 'b-1',
      prefix: 'p',
      apiEndpoint: 'http://127.0.0.1:4443',
      resumableThresholdBytes: 1048576,
    });
  });

  it('reads BLOB_STORE_URL=s3://bucket/prefix as an S3 store, with the S3_* variables and the AWS keys when given', () => {
    expect(loadConfig({ BLOB_STORE_URL: 's3://my-bucket' }).blobs).to.deep.equal({
      kind: 's3',
      bucket: 'my-bucket',
      prefix: '',
      region: 'us-east-1',
      forcePathStyle: false,
      partSizeBytes: 5 * 1024 * 1024,
      queueSize: 2,
      ifNoneMatch: true,
    });
    expect(
      loadConfig({
        BLOB_STORE_URL: 's3://Hangar_Files/prod/blobs/',
        S3_ENDPOINT: 'http://127.0.0.1:9000/',
        S3_REGION: 'auto',
        S3_FORCE_PATH_STYLE: 'TRUE',
        S3_PART_SIZE_BYTES: String(16 * 1024 * 1024),
        S3_UPLOAD_QUEUE_SIZE: '2',
        S3_IF_NONE_MATCH: 'false',
        AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE',
        AWS_SECRET_ACCESS_KEY: 'secret',
        AWS_SESSION_TOKEN: 'token',
      }).blobs,
    ).to.deep.equal({
      kind: 's3',
      bucket: 'Hangar_Files',
      prefix: 'prod/blobs',
      endpoint: 'http://127.0.0.1:9000',
      region: 'auto',
      forcePathStyle: true,
      credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret', sessionToken: 'token' },
      partSizeBytes: 16 * 1024 * 1024,
      queueSize: 2,
      ifNoneMatch: false,
    });
  });

  it('keeps blobs of up to SMALL_BLOB_MAX_BYTES (default 64 KiB, 0 = none, at most 1 MiB) in small-blobs.db with file: blobs', () => {
    expect(loadConfig({ BLOB_STORE_URL: 'file:/srv/blobs', SMALL_BLOB_MAX_BYTES: '0' }).blobs).to.deep.equal({
      kind: 'file',
      directory: '/srv/blobs',
      smallBlobMaxBytes: 0,
    });
    expect(loadConfig({ SMALL_BLOB_MAX_BYTES: '1048576' }).blobs).to.include({ smallBlobMaxBytes: 1048576 });
  });

  for (const [env, variable] of [
    [{ SMALL_BLOB_MAX_BYTES: '1048577' }, 'SMALL_BLOB_MAX_BYTES'],
    [{ SMALL_BLOB_MAX_BYTES: '64KiB' }, 'SMALL_BLOB_MAX_BYTES'],
    [{ BLOB_STORE_URL: 'gs://' }, 'BLOB_STORE_URL'],
    [{ BLOB_STORE_URL: 'gs://My_Bucket' }, 'BLOB_STORE_URL'],
    [{ BLOB_STORE_URL: 'gs://ab' }, 'BLOB_STORE_URL'],
    [{ BLOB_STORE_URL: 'gs://bucket/../x' }, 'BLOB_STORE_URL'],
    [{ BLOB_STORE_URL: 'gs://bucket/a b' }, 'BLOB_STORE_URL'],
    [{ BLOB_STORE_URL: 'gs://bucket', GCS_API_ENDPOINT: 'localhost:4443' }, 'GCS_API_ENDPOINT'],
    [{ BLOB_STORE_URL: 'gs://bucket', GCS_RESUMABLE_THRESHOLD_BYTES: '8MiB' }, 'GCS_RESUMABLE_THRESHOLD_BYTES'],
    [{ BLOB_STORE_URL: 'gs://bucket', GCS_RESUMABLE_THRESHOLD_BYTES: '0' }, 'GCS_RESUMABLE_THRESHOLD_BYTES'],
    [{ BLOB_STORE_URL: 's3://' }, 'BLOB_STORE_URL'],
    [{ BLOB_STORE_URL: 's3://ab' }, 'BLOB_STORE_URL'],
    [{ BLOB_STORE_URL: 's3://bucket/../x' }, 'BLOB_STORE_URL'],
    [{ BLOB_STORE_URL: 's3://bucket', S3_ENDPOINT: 'minio:9000' }, 'S3_ENDPOINT'],
    [{ BLOB_STORE_URL: 's3://bucket', S3_FORCE_PATH_STYLE: 'yes' }, 'S3_FORCE_PATH_STYLE'],
    [{ BLOB_STORE_URL: 's3://bucket', S3_IF_NONE_MATCH: '1' }, 'S3_IF_NONE_MATCH'],
    [{ BLOB_STORE_URL: 's3://bucket', S3_PART_SIZE_BYTES: String(5 * 1024 * 1024 - 1) }, 'S3_PART_SIZE_BYTES'],
    [{ BLOB_STORE_URL: 's3://bucket', S3_UPLOAD_QUEUE_SIZE: '0' }, 'S3_UPLOAD_QUEUE_SIZE'],
    [{ BLOB_STORE_URL: 's3://bucket', AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE' }, 'AWS_SECRET_ACCESS_KEY'],
    [{ BLOB_STORE_URL: 's3://bucket', AWS_SECRET_ACCESS_KEY: 'secret' }, 'AWS_ACCESS_KEY_ID'],
  ] as const) {
    it(`refuses ${JSON.stringify(env)} with an error naming ${variable}`, () => {
      expect(() => loadConfig(env)).to.throw(ConfigError, new RegExp(`^${variable}:`));
    });
  }

  it('builds the default plan from TRIAL_DAYS, STORAGE_LIMIT_BYTES, FILE_COUNT_LIMIT and MAX_UPLOAD_SIZE_LIMIT_BYTES', () => {
    expect(loadConfig({}).core.plans).to.deep.equal([
      { name: 'default', trialDays: 14, storageLimitBytes: 1024 ** 3, fileCountLimit: 10000, maxUploadSizeBytes: 1024 ** 3 },
    ]);
    const config = loadConfig({
      TRIAL_DAYS: 'off',
      STORAGE_LIMIT_BYTES: '500',
      FILE_COUNT_LIMIT: '3',
      MAX_UPLOAD_SIZE_LIMIT_BYTES: '100',
      LOG_RETENTION_DAYS: '7',
    });
    expect(config.core.plans).to.deep.equal([{ name: 'default', trialDays: null, storageLimitBytes: 500, fileCountLimit: 3, maxUploadSizeBytes: 100 }]);
    expect(config.core.defaultPlan).to.equal('default');
    expect(config.core.logRetentionDays).to.equal(7);
    expect(loadConfig({ TRIAL_DAYS: '0' }).core.plans[0].trialDays).to.equal(0);
  });

  it('reads the image settings: IMAGE_CONCURRENCY (2), IMAGE_QUEUE_TIMEOUT_MS (2000), IMAGE_MAX_INPUT_PIXELS (40 MP), IMAGE_OPS_LIMIT (unlimited)', () => {
    const defaults = loadConfig({});
    expect(defaults.core.images).to.deep.include({ concurrency: 2, queueTimeoutMs: 2000 });
    expect(defaults.imageTransformer).to.deep.equal({ maxInputPixels: 40_000_000 });
    const set = loadConfig({ IMAGE_CONCURRENCY: '4', IMAGE_QUEUE_TIMEOUT_MS: '0', IMAGE_MAX_INPUT_PIXELS: '1000000' });
    expect(set.core.images).to.deep.include({ concurrency: 4, queueTimeoutMs: 0 });
    expect(set.imageTransformer).to.deep.equal({ maxInputPixels: 1_000_000 });
    expect(loadConfig({}).core.plans[0].imageOpsLimit).to.equal(undefined);
    expect(loadConfig({ IMAGE_OPS_LIMIT: '500' }).core.plans[0].imageOpsLimit).to.equal(500);
    for (const [variable, value] of [
      ['IMAGE_CONCURRENCY', '0'],
      ['IMAGE_QUEUE_TIMEOUT_MS', '-1'],
      ['IMAGE_MAX_INPUT_PIXELS', 'lots'],
      ['IMAGE_OPS_LIMIT', '1.5'],
    ]) {
      expect(() => loadConfig({ [variable]: value }), variable).to.throw(ConfigError, new RegExp(`^${variable}:`));
    }
  });

  it('reads the variant bounds: IMAGE_MAX_VARIANTS_PER_FILE (20), IMAGE_SIZE_LADDER (16…3840 px), RATE_LIMIT_IMAGE_TRANSFORMS_PER_MINUTE (300)', () => {
    expect(loadConfig({}).core.images).to.deep.include({
      maxVariantsPerFile: 20,
      sizeLadder: [16, 32, 64, 128, 256, 320, 480, 640, 768, 1024, 1280, 1536, 1920, 2560, 3840],
    });
    expect(loadConfig({}).core.rateLimits.imageTransformsPerClientPerMinute).to.equal(300);
    const set = loadConfig({ IMAGE_MAX_VARIANTS_PER_FILE: '0', IMAGE_SIZE_LADDER: '400, 100,200,100', RATE_LIMIT_IMAGE_TRANSFORMS_PER_MINUTE: '0' });
    expect(set.core.images).to.deep.include({ maxVariantsPerFile: 0, sizeLadder: [100, 200, 400] });
    expect(set.core.rateLimits.imageTransformsPerClientPerMinute).to.equal(0);
    for (const [variable, value] of [
      ['IMAGE_MAX_VARIANTS_PER_FILE', '-1'],
      ['IMAGE_SIZE_LADDER', '100,4097'],
      ['IMAGE_SIZE_LADDER', '0'],
      ['IMAGE_SIZE_LADDER', 'big'],
      ['RATE_LIMIT_IMAGE_TRANSFORMS_PER_MINUTE', 'x'],
    ]) {
      expect(() => loadConfig({ [variable]: value }), `${variable}=${value}`).to.throw(ConfigError, new RegExp(`^${variable}:`));
    }
  });

  it('reads image_ops_limit per plan from PLANS_FILE (absent or null: unlimited)', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'hangar-plans-'));
    const file = path.join(dir, 'plans.json');
    writeFileSync(
      file,
      JSON.stringify({
        plans: [
          { name: 'free', trial_days: null, storage_limit_bytes: 1000, file_count_limit: 10, max_upload_size_bytes: 100, image_ops_limit: 1000 },
          { name: 'pro', trial_days: null, storage_limit_bytes: 1000, file_count_limit: 10, max_upload_size_bytes: 100, image_ops_limit: null },
        ],
      }),
    );
    try {
      expect(loadConfig({ PLANS_FILE: file }).core.plans.map((p) => p.imageOpsLimit)).to.deep.equal([1000, undefined]);
      writeFileSync(
        file,
        JSON.stringify({ plans: [{ name: 'x', trial_days: 1, storage_limit_bytes: 1, file_count_limit: 1, max_upload_size_bytes: 1, image_ops_limit: -1 }] }),
      );
      expect(() => loadConfig({ PLANS_FILE: file })).to.throw(ConfigError, /^PLANS_FILE: .*image_ops_limit/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads plans from PLANS_FILE and gives new accounts DEFAULT_PLAN, else the file’s default_plan, else its first', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'hangar-plans-'));
    const file = path.join(dir, 'plans.json');
    writeFileSync(
      file,
      JSON.stringify({
        plans: [
          { name: 'trial', trial_days: 14, storage_limit_bytes: 1000, file_count_limit: 10, max_upload_size_bytes: 100 },
          { name: 'pro', trial_days: null, storage_limit_bytes: 10 ** 12, file_count_limit: 10 ** 6, max_upload_size_bytes: 10 ** 10 },
        ],
      }),
    );
    try {
      const config = loadConfig({ PLANS_FILE: file });
      expect(config.core.plans.map((p) => p.name)).to.deep.equal(['trial', 'pro']);
      expect(config.core.plans[1]).to.deep.equal({
        name: 'pro',
        trialDays: null,
        storageLimitBytes: 10 ** 12,
        fileCountLimit: 10 ** 6,
        maxUploadSizeBytes: 10 ** 10,
      });
      expect(config.core.defaultPlan).to.equal('trial');
      expect(loadConfig({ PLANS_FILE: file, DEFAULT_PLAN: 'pro' }).core.defaultPlan).to.equal('pro');
      expect(() => loadConfig({ PLANS_FILE: file, DEFAULT_PLAN: 'gold' })).to.throw(ConfigError, /^DEFAULT_PLAN: "gold" is not a plan; plans: trial, pro\./);
      writeFileSync(file, JSON.stringify({ plans: [{ name: 'x', trial_days: 1, storage_limit_bytes: -1, file_count_limit: 1, max_upload_size_bytes: 1 }] }));
      expect(() => loadConfig({ PLANS_FILE: file })).to.throw(ConfigError, /^PLANS_FILE: .*storage_limit_bytes/);
      writeFileSync(file, '{ not json');
      expect(() => loadConfig({ PLANS_FILE: file })).to.throw(ConfigError, /^PLANS_FILE: cannot read/);
      expect(() => loadConfig({ PLANS_FILE: path.join(dir, 'missing.json') })).to.throw(ConfigError, /^PLANS_FILE:/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('stops the start with one clear line naming the variable', async () => {
    let message = '';
    try {
      await startServerProcess({ PORT: 'abc' });
    } catch (error) {
      message = String(error);
    }
    expect(message).to.match(/hangar: invalid configuration: PORT: "abc" is not a whole number\./);
  });
});
