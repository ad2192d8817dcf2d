import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { expect } from 'chai';
import { sql } from 'kysely';
import { createSqlRepositories } from '../../adapters/persistence/sql/create-sql-repositories.js';
import { openSqliteDatabase } from '../../adapters/persistence/sqlite/sqlite-database.js';
import { SAFETY_NET_AUTOCHECKPOINT_PAGES } from '../../adapters/persistence/sqlite/wal-checkpointer.js';
import { aUser } from '../contracts/persistence-fixtures.js';
import { dumpSqliteSchema } from '../support/schema-dump.js';

describe('opening a SQLite database that another process is creating at the same moment', () => {
  let directory: string;
  beforeEach(async () => {
    directory = await mkdtemp(path.join(os.tmpdir(), 'hangar-sqlite-open-'));
  });
  afterEach(() => rm(directory, { recursive: true, force: true }));

  it('waits while the other connection holds the new file’s write lock, then opens, migrates and works', async () => {
    const databasePath = path.join(directory, 'hangar.db');
    // What a second server process does while the first switches the new file to WAL: a write
    // transaction in rollback-journal mode. SQLite answers this connection's `journal_mode = WAL`
    // with SQLITE_BUSY at once here, without calling its busy handler.
    const other = new BetterSqlite3(databasePath);
    other.exec('BEGIN IMMEDIATE');
    const released = new Promise<void>((resolve) =>
      setTimeout(() => {
        other.exec('COMMIT');
        other.close();
        resolve();
      }, 150),
    );
    const started = Date.now();
    const database = await openSqliteDatabase({ path: databasePath });
    try {
      await released;
      expect(Date.now() - started).to.be.at.least(100);
      const { users } = createSqlRepositories(database);
      const user = aUser();
      await users.create(user);
      expect((await users.findById(user.id))?.email).to.equal(user.email);
    } finally {
      await database.close();
    }
  });

  it('still gives up with SQLITE_BUSY when the lock is never released (after about 5 s)', async function () {
    this.timeout(15_000);
    const databasePath = path.join(directory, 'hangar.db');
    const other = new BetterSqlite3(databasePath);
    other.exec('BEGIN IMMEDIATE');
    try {
      const started = Date.now();
      const error = await openSqliteDatabase({ path: databasePath }).then(
        () => undefined,
        (e: unknown) => e as { code?: string },
      );
      expect(error?.code).to.equal('SQLITE_BUSY');
      expect(Date.now() - started).to.be.within(4_500, 10_000);
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
  });
});

describe('a new SQLite database file', () => {
  it('is created readable and writable by its owner only (0600), like jwt-secret', async () => {
    const directory = await mkdtemp(path.join(os.tmpdir(), 'hangar-sqlite-mode-'));
    try {
      const file = path.join(directory, 'hangar.db');
      const opened = await openSqliteDatabase({ path: file });
      await opened.close();
      expect((await stat(file)).mode & 0o777).to.equal(0o600);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});

describe('private in-memory SQLite databases (copies of the first one the process migrated)', () => {
  it('each starts empty at the schema of a database file migrated from nothing, and none sees what another wrote', async () => {
    const directory = await mkdtemp(path.join(os.tmpdir(), 'hangar-sqlite-memory-'));
    const first = await openSqliteDatabase({ path: ':memory:' });
    const second = await openSqliteDatabase({ path: ':memory:' });
    const migrated = await openSqliteDatabase({ path: path.join(directory, 'hangar.db') });
    try {
      await createSqlRepositories(first).users.create(aUser({ email: 'first@example.com' }));
      const third = await openSqliteDatabase({ path: ':memory:' });
      try {
        // Made after the first one holds a user: a copy of the schema, not of what was written since.
        for (const [name, opened] of [
          ['second', second],
          ['third', third],
        ] as const) {
          expect(await createSqlRepositories(opened).users.findByEmail('first@example.com'), `the user in the ${name} database`).to.equal(undefined);
          expect(await dumpSqliteSchema(opened.db), `the ${name} database's schema`).to.deep.equal(await dumpSqliteSchema(migrated.db));
          const applied = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(opened.db);
          const expected = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(migrated.db);
          expect(applied.rows, `the ${name} database's migrations`).to.deep.equal(expected.rows);
        }
        await createSqlRepositories(third).users.create(aUser({ email: 'first@example.com' }));
        expect(await createSqlRepositories(second).users.findByEmail('first@example.com')).to.equal(undefined);
      } finally {
        await third.close();
      }
    } finally {
      await Promise.all([first.close(), second.close(), migrated.close()]);
      await rm(directory, { recursive: true, force: true });
    }
  });
});

describe('the page cache of the service’s SQLite connection', () => {
  let directory: string;
  beforeEach(async () => {
    directory = await mkdtemp(path.join(os.tmpdir(), 'hangar-sqlite-cache-'));
  });
  afterEach(() => rm(directory, { recursive: true, force: true }));

  /** SQLite's `cache_size` of the open connection, in KiB (SQLite gives a size in KiB as a negative number). */
  const cacheKib = async (options: { cacheBytes?: number }) => {
    const database = await openSqliteDatabase({ path: path.join(directory, 'hangar.db'), ...options });
    try {
      const { rows } = await sql<{ cache_size: number }>`pragma cache_size`.execute(database.db);
      return -rows[0].cache_size;
    } finally {
      await database.close();
    }
  };

  it('holds 64 MiB by default, the size given, or SQLite’s own default with 0', async () => {
    expect(await cacheKib({})).to.equal(65_536);
    expect(await cacheKib({ cacheBytes: 256 * 1024 * 1024 })).to.equal(262_144);
    const plain = new BetterSqlite3(':memory:');
    const sqliteDefault = -(plain.pragma('cache_size', { simple: true }) as number);
    plain.close();
    expect(await cacheKib({ cacheBytes: 0 })).to.equal(sqliteDefault);
  });
});

describe('a SQLite database opened for one command (the admin CLI: no checkpoint worker)', () => {
  let directory: string;
  beforeEach(async () => {
    directory = await mkdtemp(path.join(os.tmpdir(), 'hangar-sqlite-cli-'));
  });
  afterEach(() => rm(directory, { recursive: true, force: true }));

  /** The connection's `wal_autocheckpoint`, in pages. */
  const autocheckpoint = async (database: Awaited<ReturnType<typeof openSqliteDatabase>>) =>
    (await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(database.db)).rows[0].wal_autocheckpoint;

  it('checkpoints on its own connection as SQLite does, keeps what it wrote, and leaves no WAL behind at close', async () => {
    const databasePath = path.join(directory, 'hangar.db');
    const server = await openSqliteDatabase({ path: databasePath });
    // A server hands checkpoints to its worker and keeps a safety net far above SQLite's 1,000 pages.
    expect(await autocheckpoint(server)).to.equal(SAFETY_NET_AUTOCHECKPOINT_PAGES);
    await server.close();

    const cli = await openSqliteDatabase({ path: databasePath, checkpointWorker: false });
    expect(await autocheckpoint(cli)).to.equal(1000);
    const user = aUser();
    await createSqlRepositories(cli).users.create(user);
    await cli.close();
    await stat(`${databasePath}-wal`).then(
      () => expect.fail('the WAL file is still there after close'),
      (error: NodeJS.ErrnoException) => expect(error.code).to.equal('ENOENT'),
    );

    const again = await openSqliteDatabase({ path: databasePath });
    try {
      expect((await createSqlRepositories(again).users.findById(user.id))?.email).to.equal(user.email);
    } finally {
      await again.close();
    }
  });
});
