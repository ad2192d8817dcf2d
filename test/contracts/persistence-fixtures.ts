// Builders and database openers shared by the repository contract suites.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { OneTimeToken } from '../../core/accounts/one-time-token-repository.js';
import type { RefreshToken, Session } from '../../core/accounts/session-repository.js';
import type { User } from '../../core/accounts/user.js';
import { DEFAULT_IMAGE_METADATA_MODE } from '../../core/files/image-metadata/image-metadata-mode.js';
import type { ActivityLogEntry } from '../../core/activity/activity-log.js';
import type { UserRepository } from '../../core/accounts/user-repository.js';
import type { ApiKey } from '../../core/api-keys/api-key.js';
import type { FileFilter } from '../../core/files/file-repository.js';
import type { StoredFile } from '../../core/files/stored-file.js';
import { createMemoryRepositories } from '../../adapters/persistence/memory/create-memory-repositories.js';
import { createSqlRepositories, type SqlDatabaseHandle } from '../../adapters/persistence/sql/create-sql-repositories.js';
import type { Repositories } from '../../adapters/persistence/repositories.js';
import { SqlExecutor } from '../../adapters/persistence/sql/sql-executor.js';
import type { SqlFileRepositoryOptions } from '../../adapters/persistence/sql/sql-file-repository.js';
import { openSqliteDatabase, type SqliteDatabase } from '../../adapters/persistence/sqlite/sqlite-database.js';
import { type Kysely, sql } from 'kysely';
import type { HangarDatabase } from '../../adapters/persistence/sql/schema.js';
import { openPostgresDatabase, type PostgresDatabase } from '../../adapters/persistence/postgres/postgres-database.js';
import { COPIED_TABLES } from '../../adapters/persistence/sql/copy-database.js';
import { createTestSchema, type TestSchema } from '../support/test-database.js';

/** A fixed instant the suites count from, so expectations do not depend on the wall clock. */
export const T0 = new Date('2025-03-01T12:00:00.000Z');

/** `T0` plus `ms` milliseconds. */
export function at(ms: number): Date {
  return new Date(T0.getTime() + ms);
}

/** 64 hex characters, like a SHA-256 digest. */
export function aHash(): string {
  return randomBytes(32).toString('hex');
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** A random 10-character base62 file id. */
export function aFileId(): string {
  return Array.from(randomBytes(10), (byte) => BASE62[byte % 62]).join('');
}

/** A user on the `default` plan without trial end or subscription; `overrides` replace fields. */
export function aUser(overrides: Partial<User> = {}): User {
  const id = overrides.id ?? randomUUID();
  return {
    id,
    email: `${id}@example.com`,
    passwordHash: '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA',
    emailConfirmedAt: null,
    maxUploadSizeBytes: null,
    imageMetadata: DEFAULT_IMAGE_METADATA_MODE,
    lastEmailSentAt: null,
    lastResetEmailSentAt: null,
    planName: 'default',
    trialEndsAt: null,
    accessUntil: null,
    subscriptionCanceledAt: null,
    role: 'user',
    suspendedAt: null,
    storageLimitBytes: null,
    fileCountLimit: null,
    createdAt: T0,
    updatedAt: T0,
    ...overrides,
  };
}

/** Stores a new user and returns it, for suites whose rows belong to a user (foreign keys). */
export async function givenUser(users: UserRepository, overrides: Partial<User> = {}): Promise<User> {
  const user = aUser(overrides);
  if (!(await users.create(user))) throw new Error('fixture user was not created');
  return user;
}

export function aToken(userId: string, overrides: Partial<OneTimeToken> = {}): OneTimeToken {
  return {
    id: randomUUID(),
    userId,
    purpose: 'email_confirmation',
    tokenHash: aHash(),
    redirectTo: null,
    expiresAt: at(24 * 3600_000),
    createdAt: T0,
    ...overrides,
  };
}

export function aSession(userId: string, overrides: Partial<Session> = {}): Session {
  return { id: randomUUID(), userId, createdAt: T0, revokedAt: null, lastUsedAt: T0, userAgent: null, ip: null, secondFactorAt: null, ...overrides };
}

export function aRefreshToken(sessionId: string, overrides: Partial<RefreshToken> = {}): RefreshToken {
  return { tokenHash: aHash(), sessionId, createdAt: T0, rotatedAt: null, ...overrides };
}

export function anApiKey(userId: string, overrides: Partial<ApiKey> = {}): ApiKey {
  return {
    id: randomUUID(),
    userId,
    name: 'API key',
    keyPrefix: 'hgr_abcdefgh',
    keyHash: aHash(),
    createdAt: T0,
    scopes: ['files:read', 'files:write', 'files:delete', 'account:read'],
    expiresAt: null,
    lastUsedAt: null,
    ...overrides,
  };
}

export function aFile(userId: string, overrides: Partial<StoredFile> = {}): StoredFile {
  const fileId = overrides.fileId ?? aFileId();
  return {
    id: randomUUID(),
    userId,
    fileId,
    name: 'report.pdf',
    contentType: 'application/pdf',
    size: 1024,
    sha256: aHash(),
    isPublic: true,
    createdAt: T0,
    blobKey: `${userId}/${fileId}`,
    expiresAt: null,
    viewCount: 0,
    downloadCount: 0,
    ...overrides,
  };
}

/**
 * Whether `file` belongs to `owner` and matches the content type, visibility, size (bytes) and
 * upload time filters of `filter` (spec 4.9), decided here in JavaScript: the brute force that
 * repository totals are checked against. `q` is not looked at.
 */
export function matchesRangeFilter(file: StoredFile, owner: string, filter: FileFilter): boolean {
  return (
    file.userId === owner &&
    (filter.type === undefined || file.contentType === filter.type) &&
    (filter.isPublic === undefined || file.isPublic === filter.isPublic) &&
    (filter.sizeMin === undefined || file.size >= filter.sizeMin) &&
    (filter.sizeMax === undefined || file.size <= filter.sizeMax) &&
    (filter.createdAfter === undefined || file.createdAt.getTime() >= filter.createdAfter.getTime()) &&
    (filter.createdBefore === undefined || file.createdAt.getTime() <= filter.createdBefore.getTime())
  );
}

/** An activity log entry of `userId` (a GET that answered 200), `overrides` replacing fields. */
export function aLogEntry(userId: string, overrides: Partial<ActivityLogEntry> = {}): ActivityLogEntry {
  return {
    id: randomUUID(),
    userId,
    method: 'GET',
    path: '/files',
    statusCode: 200,
    requestSizeBytes: null,
    createdAt: T0,
    metadata: { auth: 'jwt', duration_ms: 3 },
    ...overrides,
  };
}

/** Repositories over a fresh store; `close` releases it (and removes a temporary file). */
export interface OpenedRepositories extends Repositories {
  close: () => Promise<void>;
  /** The SQL database the repositories use (SQLite, Postgres); undefined for the in-memory ones. */
  db?: Kysely<HangarDatabase>;
  /** How the repositories run their statements (with the fast path or lookup cache when on); undefined for the in-memory ones. */
  executor?: SqlExecutor;
}

/** Fresh in-memory repositories sharing one MemoryDatabase, as createMemoryRepositories builds them. */
export async function openMemory(): Promise<OpenedRepositories> {
  return { ...createMemoryRepositories(), close: async () => {} };
}

/** The repositories over an opened SQL database, as the composition builds them, with its `db` and executor. */
function repositoriesOver(database: SqlDatabaseHandle, options: { files?: SqlFileRepositoryOptions } = {}): Omit<OpenedRepositories, 'close'> {
  return { ...createSqlRepositories(database, options), db: database.db, executor: new SqlExecutor(database.db, database) };
}

/** A private in-memory SQLite database (fast path on). */
export async function openInMemorySqlite(): Promise<OpenedRepositories> {
  const database = await openSqliteDatabase({ path: ':memory:' });
  return { ...repositoriesOver(database), close: database.close };
}

/**
 * A SQLite file in a new temporary directory, one level down so that `openSqliteDatabase` has to
 * create its parent. WAL mode and the file layout are then those of production.
 */
export async function openTemporarySqliteFile(options: { fastPath?: boolean } = {}): Promise<OpenedRepositories> {
  const dir = await mkdtemp(join(tmpdir(), 'hangar-contract-'));
  const database = await openSqliteDatabase({ path: join(dir, 'data', 'hangar.sqlite'), fastPath: options.fastPath });
  return {
    ...repositoriesOver(database),
    close: async () => {
      await database.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Registers a contract suite to run on SQLite in each way the server may use it: `register` gets an
 * opener to use as the suite's `makeSubject`, once per way, inside a `describe` naming it:
 * - a private `:memory:` database per test, fast path on;
 * - a database file in WAL mode (as in production: the lookup cache's WAL-index check, group
 *   commit, the background worker's batches), fast path on;
 * - the same with the fast path off (SQLITE_FAST_PATH=false): every statement through Kysely.
 * The file is opened (and migrated) once per suite; before each test every table is emptied.
 */
export function onSqlite(register: (open: () => Promise<OpenedRepositories>) => void): void {
  describe('on SQLite (:memory:, fast path on)', () => register(openInMemorySqlite));
  for (const fastPath of [true, false]) {
    describe(`on a SQLite file in WAL mode (fast path ${fastPath ? 'on' : 'off'})`, function () {
      let dir: string | undefined;
      let database: SqliteDatabase | undefined;
      let repositories: Omit<OpenedRepositories, 'close'>;
      before(async () => {
        dir = await mkdtemp(join(tmpdir(), 'hangar-contract-'));
        database = await openSqliteDatabase({ path: join(dir, 'hangar.sqlite'), fastPath });
        if ((database.direct !== undefined) !== fastPath) throw new Error(`openSqliteDatabase did not turn the fast path ${fastPath ? 'on' : 'off'}`);
        repositories = repositoriesOver(database);
      });
      after(async () => {
        await database?.close();
        if (dir) await rm(dir, { recursive: true, force: true });
      });
      register(async () => {
        await emptyEveryTable(database!.db);
        return { ...repositories, close: async () => {} };
      });
    });
  }
}

/**
 * Deletes every row of every table, children first (COPIED_TABLES lists every table, parents first;
 * the compiler keeps it complete), in one transaction: one commit before each test instead of one
 * per table (SQLite's WAL flush, Postgres's round trips).
 */
async function emptyEveryTable(db: Kysely<HangarDatabase>): Promise<void> {
  await db.transaction().execute(async (trx) => {
    for (const table of [...COPIED_TABLES].reverse()) await sql`delete from ${sql.table(table)}`.execute(trx);
  });
}

/**
 * Registers a contract suite to run on the Postgres at `url` (TEST_DATABASE_URL): `register` gets
 * an opener to use as the suite's `makeSubject`. The suite runs in a fresh schema, migrated once as
 * a server would migrate it, and dropped after the suite; before each test every table is emptied,
 * so each test starts from an empty database as with the other adapters, without paying for a
 * migration per test. `close` of an opened subject keeps the pool for the next test.
 * The suite runs twice: as the server runs (the lookup cache, PostgresLookupCache, invalidated by the
 * change feed and by the process's own writes; an upload in one statement), and with both off (every
 * lookup a round trip; an upload as the transaction script every database runs).
 */
export function onPostgres(url: string, register: (open: () => Promise<OpenedRepositories>) => void): void {
  for (const fastPaths of [true, false]) onPostgresWith(url, fastPaths, register);
}

function onPostgresWith(url: string, fastPaths: boolean, register: (open: () => Promise<OpenedRepositories>) => void): void {
  const name = fastPaths ? 'lookup cache on, upload in one statement' : 'lookup cache off, upload as a transaction script';
  describe(`on a fresh Postgres schema (${name})`, function () {
    let schema: TestSchema | undefined;
    let database: PostgresDatabase | undefined;
    let repositories: Omit<OpenedRepositories, 'close'>;

    before(async function () {
      this.timeout(30_000);
      schema = await createTestSchema(url);
      database = await openPostgresDatabase({ url, poolSize: 4, schema: schema.schema, lookupCache: fastPaths });
      repositories = repositoriesOver(database, { files: { singleStatementInsert: fastPaths } });
    });
    after(async () => {
      await database?.close();
      await schema?.drop();
    });

    register(async () => {
      await emptyEveryTable(database!.db);
      return { ...repositories, close: async () => {} };
    });
  });
}
