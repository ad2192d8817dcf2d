import { copyFile, mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { expect } from 'chai';
import { createSqlRepositories } from '../../adapters/persistence/sql/create-sql-repositories.js';
import { openSqliteDatabase } from '../../adapters/persistence/sqlite/sqlite-database.js';
import { backgroundCheckpoints, CHECKPOINT_INTERVAL_MS, SAFETY_NET_AUTOCHECKPOINT_PAGES } from '../../adapters/persistence/sqlite/wal-checkpointer.js';
import { aUser } from '../contracts/persistence-fixtures.js';

const exists = (file: string) => stat(file).then(() => true, () => false);

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
      const { users } = createSqlRepositories(database.db);
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
    const { users } = createSqlRepositories(database.db);
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

  it('reports once that it cannot checkpoint a file, and then ignores further writes', async () => {
    const failures: Error[] = [];
    const missing = path.join(directory, 'no-such-database.db');
    const checkpoints = backgroundCheckpoints(missing, (error) => failures.push(error));
    checkpoints.wrote();
    const deadline = Date.now() + 10_000;
    while (failures.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    checkpoints.wrote();
    await new Promise((resolve) => setTimeout(resolve, CHECKPOINT_INTERVAL_MS * 2));
    await checkpoints.close();
    expect(failures).to.have.length(1);
    expect(failures[0]!.message).to.include(missing);
    expect(await exists(missing), 'the checkpointer creates no database').to.equal(false);
  });
});
