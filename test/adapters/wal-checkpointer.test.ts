import { copyFile, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { expect } from 'chai';
import { createSqlRepositories } from '../../adapters/persistence/sql/create-sql-repositories.js';
import { openSqliteDatabase, type SqliteDatabase } from '../../adapters/persistence/sqlite/sqlite-database.js';
import {
  backgroundCheckpoints,
  CHECKPOINT_INTERVAL_MS,
  CHECKPOINT_WORKER_IDLE_MS,
  checkpointWorkerRunning,
  SAFETY_NET_AUTOCHECKPOINT_PAGES,
  setCheckpointWorkerIdleMs,
  type WalCheckpoints,
} from '../../adapters/persistence/sqlite/wal-checkpointer.js';
import { aUser } from '../contracts/persistence-fixtures.js';
import { type Kysely, sql } from 'kysely';
import type { ActivityLogEntry } from '../../core/activity/activity-log.js';
import type { HangarDatabase } from '../../adapters/persistence/sql/schema.js';

const exists = (file: string) =>
  stat(file).then(
    () => true,
    () => false,
  );

/** Waits (up to 10 s) until `condition` holds. @throws AssertionError naming `what` when it never does */
async function until(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await condition())) {
    if (Date.now() > deadline) expect.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * The database at `databasePath` created, then opened again as a service restarts (the file exists,
 * its WAL is empty) without a checkpoint worker of its own, and the background checkpoints the test
 * drives by hand; a checkpoint failure throws.
 */
async function reopenedWithCheckpoints(databasePath: string): Promise<{ database: SqliteDatabase; checkpoints: WalCheckpoints }> {
  await (await openSqliteDatabase({ path: databasePath })).close();
  const database = await openSqliteDatabase({ path: databasePath, checkpointWorker: false });
  const checkpoints = backgroundCheckpoints(databasePath, (error) => {
    throw error;
  });
  return { database, checkpoints };
}

/** A write that changes nothing (as a service's first ones: secrets kept, outboxes claimed, old rows pruned), flushed and said. */
async function writeNothing(database: SqliteDatabase, checkpoints: WalCheckpoints): Promise<void> {
  await sql`delete from users where email = ${'nobody@example.com'}`.execute(database.db);
  checkpoints.wrote();
}

/** Users as seen in a copy of the database file alone: what checkpoints have put there, without the WAL. */
async function usersInDatabaseFile(databasePath: string, directory: string): Promise<number> {
  const copy = path.join(directory, `copy-${Math.random().toString(36).slice(2)}.db`);
  await copyFile(databasePath, copy);
  const reader = new BetterSqlite3(copy, { readonly: true });
  try {
    // Before the first checkpoint even the migrations' tables are only in the WAL.
    const table = reader.prepare("select 1 from sqlite_master where type = 'table' and name = 'users'").get();
    return table ? (reader.prepare('select count(*) as n from users').get() as { n: number }).n : 0;
  } finally {
    reader.close();
    await rm(copy, { force: true });
  }
}

describe('WAL checkpoints off the event loop (SQLite file database)', () => {
  let directory: string;
  beforeEach(async () => {
    directory = await mkdtemp(path.join(os.tmpdir(), 'hangar-checkpoints-'));
  });
  afterEach(() => rm(directory, { recursive: true, force: true }));

  it('moves committed writes from the WAL into the database file soon after they are made, while the service keeps its connection open', async () => {
    const databasePath = path.join(directory, 'hangar.db');
    const database = await openSqliteDatabase({ path: databasePath });
    try {
      const { users } = createSqlRepositories(database);
      // A few writes, far below the service connection's own checkpoint threshold (its safety net):
      // only the background checkpointer can bring them into the file.
      for (let i = 0; i < 5; i += 1) await users.create(aUser({ email: `user${i}@example.com` }));
      expect((await stat(`${databasePath}-wal`)).size, 'the WAL holds the writes').to.be.greaterThan(0);
      expect((await stat(`${databasePath}-wal`)).size).to.be.lessThan(SAFETY_NET_AUTOCHECKPOINT_PAGES * 4096);
      let seen = 0;
      const deadline = Date.now() + 20 * CHECKPOINT_INTERVAL_MS + 5000;
      while (seen < 5 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, CHECKPOINT_INTERVAL_MS / 2));
        // A copy taken while a checkpoint writes the file may be torn: look again.
        seen = await usersInDatabaseFile(databasePath, directory).catch(() => seen);
      }
      expect(seen, 'users in the database file without its WAL').to.equal(5);
    } finally {
      await database.close();
    }
  });

  it('leaves no WAL behind on close, as SQLite does when its last connection closes', async () => {
    const databasePath = path.join(directory, 'hangar.db');
    const database = await openSqliteDatabase({ path: databasePath });
    const { users } = createSqlRepositories(database);
    for (let i = 0; i < 3; i += 1) await users.create(aUser({ email: `user${i}@example.com` }));
    // Let a background checkpoint open the worker's connection before closing.
    await new Promise((resolve) => setTimeout(resolve, CHECKPOINT_INTERVAL_MS * 3));
    await database.close();
    expect(await exists(`${databasePath}-wal`), 'the -wal file after close').to.equal(false);
    const reader = new BetterSqlite3(databasePath, { readonly: true });
    try {
      expect((reader.prepare('select count(*) as n from users').get() as { n: number }).n).to.equal(3);
    } finally {
      reader.close();
    }
  });

  it('starts no worker thread while the WAL is empty (writes that changed nothing), and starts it once a write leaves frames', async () => {
    const databasePath = path.join(directory, 'hangar.db');
    const { database, checkpoints } = await reopenedWithCheckpoints(databasePath);
    try {
      for (let i = 0; i < 3; i += 1) {
        await writeNothing(database, checkpoints);
        await new Promise((resolve) => setTimeout(resolve, CHECKPOINT_INTERVAL_MS * 1.5));
      }
      expect((await exists(`${databasePath}-wal`)) ? (await stat(`${databasePath}-wal`)).size : 0, 'the WAL').to.equal(0);
      expect(checkpoints.usedWorker, 'the worker asked for while the WAL is empty').to.equal(false);
      await createSqlRepositories(database).users.create(aUser({ email: 'someone@example.com' }));
      checkpoints.wrote();
      const deadline = Date.now() + 20 * CHECKPOINT_INTERVAL_MS;
      while (!checkpoints.usedWorker && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(checkpoints.usedWorker, 'the worker asked for once the WAL holds a write').to.equal(true);
    } finally {
      await checkpoints.close();
      await database.close();
    }
  });

  it('asks for no checkpoint after writes that changed nothing once every frame was copied, so the idle worker ends and stays ended', async () => {
    const databasePath = path.join(directory, 'hangar.db');
    const { database, checkpoints } = await reopenedWithCheckpoints(databasePath);
    setCheckpointWorkerIdleMs(300);
    try {
      await createSqlRepositories(database).users.create(aUser({ email: 'someone@example.com' }));
      checkpoints.wrote();
      await until(checkpointWorkerRunning, 'the worker to start for a write');
      await until(() => !checkpointWorkerRunning(), 'the worker to end once idle');
      // Writes that change nothing, flushed and said, for longer than the worker's idle time.
      for (let i = 0; i < 6; i += 1) {
        await writeNothing(database, checkpoints);
        await new Promise((resolve) => setTimeout(resolve, CHECKPOINT_INTERVAL_MS));
        expect(checkpointWorkerRunning(), `the worker after ${i + 1} writes that changed nothing`).to.equal(false);
      }
      await createSqlRepositories(database).users.create(aUser({ email: 'another@example.com' }));
      checkpoints.wrote();
      await until(checkpointWorkerRunning, 'a new worker to start for a write that changed a row');
    } finally {
      setCheckpointWorkerIdleMs(CHECKPOINT_WORKER_IDLE_MS);
      await checkpoints.close();
      await database.close();
    }
  });

  it('reports once that it cannot checkpoint a file, and then ignores further writes', async () => {
    const failures: Error[] = [];
    const missing = path.join(directory, 'no-such-database.db');
    // A WAL with frames to checkpoint, for a database file the worker cannot open.
    await writeFile(`${missing}-wal`, Buffer.alloc(4096, 1));
    const checkpoints = backgroundCheckpoints(missing, (error) => failures.push(error));
    checkpoints.wrote();
    const deadline = Date.now() + 10_000;
    while (failures.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    checkpoints.wrote();
    await new Promise((resolve) => setTimeout(resolve, CHECKPOINT_INTERVAL_MS * 2));
    await checkpoints.close();
    expect(failures).to.have.length(1);
    expect(failures[0].message).to.include(missing);
    expect(await exists(missing), 'the checkpointer creates no database').to.equal(false);
  });

  describe('batch writes on the worker’s connection (the activity log’s)', () => {
    /** `PRAGMA data_version` of the service's connection: it changes only when *another* connection commits. */
    const dataVersion = async (db: Kysely<HangarDatabase>) => (await sql<{ data_version: number }>`pragma data_version`.execute(db)).rows[0].data_version;
    const entries = (userId: string, count: number, from = 0): ActivityLogEntry[] =>
      Array.from({ length: count }, (_, i) => ({
        id: `log-${from + i}`,
        userId,
        method: 'GET',
        path: '/settings',
        statusCode: 200,
        requestSizeBytes: null,
        createdAt: new Date(1_700_000_000_000 + from + i),
        metadata: { n: from + i },
      }));

    it('writes an activity-log batch on another connection than the service’s, and the service reads it at once', async () => {
      const database = await openSqliteDatabase({ path: path.join(directory, 'hangar.db') });
      try {
        const { users, logs } = createSqlRepositories(database);
        const user = aUser();
        await users.create(user);
        const before = await dataVersion(database.db);
        await logs.insertMany(entries(user.id, 1234));
        expect(await dataVersion(database.db), 'data_version: committed by another connection').to.not.equal(before);
        const page = await logs.list({ userId: user.id, window: { offset: 0, limit: 5 } });
        expect(page.total).to.equal(1234);
        expect(page.items[0]).to.deep.include({
          id: 'log-1233',
          method: 'GET',
          path: '/settings',
          statusCode: 200,
          requestSizeBytes: null,
          metadata: { n: 1233 },
        });
      } finally {
        await database.close();
      }
    });

    it('stores nothing of a batch that fails (a duplicate id), reports the database’s error, and skips entries of unknown accounts', async () => {
      const database = await openSqliteDatabase({ path: path.join(directory, 'hangar.db') });
      try {
        const { users, logs } = createSqlRepositories(database);
        const user = aUser();
        await users.create(user);
        await logs.insertMany(entries(user.id, 10));
        const error = await logs.insertMany([...entries(user.id, 20, 10), ...entries(user.id, 1, 5)]).then(
          () => undefined,
          (e: unknown) => e as { code?: string },
        );
        expect(error?.code).to.match(/^SQLITE_CONSTRAINT/);
        await logs.insertMany([...entries('no-such-user', 3, 100), ...entries(user.id, 2, 200)]);
        expect((await logs.list({ userId: user.id, window: { offset: 0, limit: 1 } })).total).to.equal(12);
      } finally {
        await database.close();
      }
    });

    it('ends the worker thread once it has been idle, and the next writes start a new one: their checkpoints and batches go on, and close leaves no WAL', async () => {
      const idleMs = 300;
      setCheckpointWorkerIdleMs(idleMs);
      const databasePath = path.join(directory, 'hangar.db');
      const database = await openSqliteDatabase({ path: databasePath });
      try {
        const { users, logs } = createSqlRepositories(database);
        const user = aUser();
        await users.create(user);
        await until(checkpointWorkerRunning, 'the worker to start for the first write');
        await until(() => !checkpointWorkerRunning(), `the worker to end after ${idleMs} ms idle`);
        for (let i = 0; i < 3; i += 1) await users.create(aUser({ email: `later${i}@example.com` }));
        await until(
          async () => (await usersInDatabaseFile(databasePath, directory).catch(() => 0)) === 4,
          'the later users in the database file without its WAL',
        );
        await logs.insertMany(entries(user.id, 5));
        expect((await logs.list({ userId: user.id, window: { offset: 0, limit: 1 } })).total).to.equal(5);
        await until(() => !checkpointWorkerRunning(), 'the new worker to end once idle too');
      } finally {
        await database.close();
        setCheckpointWorkerIdleMs(CHECKPOINT_WORKER_IDLE_MS);
      }
      expect(await exists(`${databasePath}-wal`), 'the -wal file after close').to.equal(false);
    });

    it('rejects a write to a file the worker cannot open with SQLite’s code, creates no file, and takes no writes after close', async () => {
      const missing = path.join(directory, 'gone.db');
      const failures: Error[] = [];
      const checkpoints = backgroundCheckpoints(missing, (e) => failures.push(e));
      const error = await checkpoints.write([{ sql: 'select 1', parameters: [] }])!.then(
        () => undefined,
        (e: unknown) => e as { code?: string },
      );
      expect(error?.code).to.equal('SQLITE_CANTOPEN');
      await checkpoints.close();
      expect(checkpoints.write([{ sql: 'select 1', parameters: [] }]), 'a write after close: the caller writes itself').to.equal(undefined);
      expect(await exists(missing), 'the worker creates no database').to.equal(false);
    });
  });
});
