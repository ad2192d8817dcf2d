import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { expect } from 'chai';
import { sql } from 'kysely';
import { createSqlRepositories } from '../../adapters/persistence/sql/create-sql-repositories.js';
import { SqlExecutor } from '../../adapters/persistence/sql/sql-executor.js';
import { LookupCache } from '../../adapters/persistence/sqlite/lookup-cache.js';
import { WalIndexHeader } from '../../adapters/persistence/sqlite/wal-index-header.js';
import { openSqliteDatabase, type SqliteDatabase } from '../../adapters/persistence/sqlite/sqlite-database.js';
import { aHash, anApiKey, aUser, at } from '../contracts/persistence-fixtures.js';

describe('SQLite lookup cache', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'hangar-lookup-cache-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  describe('LookupCache', () => {
    let connection: BetterSqlite3.Database;
    let other: BetterSqlite3.Database;
    /** A statement double that counts how often SQLite was really asked. */
    let reads: number;
    const lookup = () => ({ all: () => [{ read: ++reads }] }) as unknown as BetterSqlite3.Statement;
    beforeEach(() => {
      reads = 0;
      const file = path.join(dir, 'cache.db');
      connection = new BetterSqlite3(file);
      connection.pragma('journal_mode = WAL');
      connection.exec('create table t (id text primary key, v text)');
      other = new BetterSqlite3(file);
    });
    afterEach(() => {
      other.close();
      connection.close();
    });

    it('answers the same lookup again without reading while nothing changed, and other lookups apart', () => {
      const cache = new LookupCache(connection);
      const statement = lookup();
      expect(cache.read(statement, 'q', ['a'])).to.deep.equal([{ read: 1 }]);
      expect(cache.read(statement, 'q', ['a'])).to.deep.equal([{ read: 1 }]);
      expect(cache.read(statement, 'q', ['b'])).to.deep.equal([{ read: 2 }]);
      expect(cache.read(statement, 'q2', ['a'])).to.deep.equal([{ read: 3 }]);
      expect(cache.read(statement, 'q', ['a', 'b'])).to.deep.equal([{ read: 4 }]);
      expect(cache.read(statement, 'q', ['a'])).to.deep.equal([{ read: 1 }]);
      expect(reads).to.equal(4);
    });

    it('reads again after a write on its own connection, even one rolled back', () => {
      const cache = new LookupCache(connection);
      const statement = lookup();
      cache.read(statement, 'q', ['a']);
      connection.prepare('insert into t values (?, ?)').run('x', '1');
      expect(cache.read(statement, 'q', ['a'])).to.deep.equal([{ read: 2 }]);
      try {
        connection.transaction(() => {
          connection.prepare('update t set v = ?').run('2');
          throw new Error('roll back');
        })();
      } catch {
        // rolled back on purpose
      }
      expect(cache.read(statement, 'q', ['a'])).to.deep.equal([{ read: 3 }]);
      expect(cache.read(statement, 'q', ['a'])).to.deep.equal([{ read: 3 }]);
    });

    it('reads again after another connection committed, from the next turn of the event loop on', async () => {
      const cache = new LookupCache(connection);
      const statement = lookup();
      cache.read(statement, 'q', ['a']);
      await new Promise((resolve) => setImmediate(resolve));
      other.prepare('insert into t values (?, ?)').run('x', '1');
      // A request received after that commit is handled in a later turn (its bytes are read by one).
      await new Promise((resolve) => setImmediate(resolve));
      expect(cache.read(statement, 'q', ['a'])).to.deep.equal([{ read: 2 }]);
      expect(cache.read(statement, 'q', ['a'])).to.deep.equal([{ read: 2 }]);
    });

    it('lets the lookups that reach its gate in one turn of the event loop wait for one shared check, which sees what another connection committed', async () => {
      const cache = new LookupCache(connection);
      const statement = lookup();
      cache.read(statement, 'q', ['a']);
      await new Promise((resolve) => setImmediate(resolve));
      other.prepare('insert into t values (?, ?)').run('x', '1');
      const checksBefore = cache.otherConnectionChecks;
      // Three requests, each handled in a task of its own within one phase of the event loop (three
      // immediates queued together always run in one check phase; timers of one turn may not fire together).
      const answers = await new Promise<unknown[][]>((resolve, reject) => {
        const rows: unknown[][] = [];
        for (let i = 0; i < 3; i++) {
          setImmediate(() => {
            const gate = cache.gate();
            if (!gate) return reject(new Error('a lookup in a new task did not wait at the gate'));
            gate.then(() => {
              rows.push(cache.read(statement, 'q', ['a']));
              if (rows.length === 3) resolve(rows);
            }, reject);
          });
        }
      });
      expect(answers).to.deep.equal([[{ read: 2 }], [{ read: 2 }], [{ read: 2 }]]);
      expect(cache.otherConnectionChecks - checksBefore).to.equal(1);
    });

    it('lets a lookup through its gate at once in the task that checked, and makes the next task wait again', async () => {
      const cache = new LookupCache(connection);
      const statement = lookup();
      const sameTask = await new Promise<Promise<void> | undefined>((resolve) =>
        setImmediate(() => {
          cache.read(statement, 'q', ['a']);
          void Promise.resolve().then(() => resolve(cache.gate()));
        }),
      );
      expect(sameTask).to.equal(undefined);
      await new Promise((resolve) => setImmediate(resolve));
      const nextTask = cache.gate();
      expect(nextTask).to.be.instanceOf(Promise);
      await nextTask;
    });

    it('starts over when full, and keeps nothing of a lookup that failed', () => {
      const cache = new LookupCache(connection, 2);
      const statement = lookup();
      cache.read(statement, 'q', ['a']);
      cache.read(statement, 'q', ['b']);
      cache.read(statement, 'q', ['c']);
      expect(reads).to.equal(3);
      expect(cache.read(statement, 'q', ['c'])).to.deep.equal([{ read: 3 }]);
      expect(cache.read(statement, 'q', ['a'])).to.deep.equal([{ read: 4 }]);
      const failing = {
        all: () => {
          throw new Error('disk I/O error');
        },
      } as unknown as BetterSqlite3.Statement;
      expect(() => cache.read(failing, 'f', ['a'])).to.throw('disk I/O error');
      expect(cache.read(statement, 'f', ['a'])).to.deep.equal([{ read: 5 }]);
    });
  });

  describe('WalIndexHeader', () => {
    let file: string;
    let connection: BetterSqlite3.Database;
    beforeEach(() => {
      file = path.join(dir, 'header.db');
      connection = new BetterSqlite3(file);
      connection.pragma('journal_mode = WAL');
      connection.exec('create table t (id integer primary key)');
    });
    afterEach(() => {
      if (connection.open) connection.close();
    });
    const insertFrom = (database: BetterSqlite3.Database) => database.prepare('insert into t default values').run();

    it('reports a commit of another connection, of this one, and of another process, once each', () => {
      const header = WalIndexHeader.open(connection);
      expect(header).to.not.equal(undefined);
      const other = new BetterSqlite3(file);
      try {
        expect(header!.changed()).to.equal(false);
        insertFrom(other);
        expect(header!.changed()).to.equal(true);
        expect(header!.changed()).to.equal(false);
        insertFrom(connection);
        expect(header!.changed()).to.equal(true);
        // Reads change nothing.
        other.prepare('select count(*) from t').get();
        expect(header!.changed()).to.equal(false);
        // Another process, through its own mapping of the -shm file.
        const driver = createRequire(import.meta.url).resolve('better-sqlite3');
        execFileSync(process.execPath, [
          '-e',
          `const D = require(${JSON.stringify(driver)}); const d = new D(${JSON.stringify(file)}); d.prepare('insert into t default values').run(); d.close();`,
        ]);
        expect(header!.changed()).to.equal(true);
        expect(header!.changed()).to.equal(false);
        expect(connection.prepare('select count(*) as n from t').get()).to.deep.equal({ n: 3 });
      } finally {
        header?.close();
        other.close();
      }
    });

    it('reports a change on every call once closed', () => {
      const header = WalIndexHeader.open(connection)!;
      header.close();
      expect(header.changed()).to.equal(true);
      expect(header.changed()).to.equal(true);
    });

    it('declines a database whose header is not in a file, or not in WAL mode', () => {
      const memory = new BetterSqlite3(':memory:');
      const rollbackJournal = new BetterSqlite3(path.join(dir, 'journal.db'));
      rollbackJournal.exec('create table t (id integer primary key)');
      try {
        expect(WalIndexHeader.open(memory)).to.equal(undefined);
        expect(WalIndexHeader.open(rollbackJournal)).to.equal(undefined);
      } finally {
        memory.close();
        rollbackJournal.close();
      }
    });

    it('without the header (not in WAL mode) the lookup cache still reads again after another connection committed', async () => {
      const journalFile = path.join(dir, 'journal.db');
      const mine = new BetterSqlite3(journalFile);
      mine.exec('create table t (id integer primary key)');
      const theirs = new BetterSqlite3(journalFile);
      try {
        const cache = new LookupCache(mine);
        let reads = 0;
        const statement = { all: () => [{ read: ++reads }] } as unknown as BetterSqlite3.Statement;
        cache.read(statement, 'q', ['a']);
        await new Promise((resolve) => setImmediate(resolve));
        expect(cache.read(statement, 'q', ['a'])).to.deep.equal([{ read: 1 }]);
        await new Promise((resolve) => setImmediate(resolve));
        insertFrom(theirs);
        await new Promise((resolve) => setImmediate(resolve));
        expect(cache.read(statement, 'q', ['a'])).to.deep.equal([{ read: 2 }]);
        cache.close();
      } finally {
        theirs.close();
        mine.close();
      }
    });
  });

  describe('repositories on one database file, as two server processes', () => {
    let first: SqliteDatabase;
    let second: SqliteDatabase;
    beforeEach(async () => {
      const file = path.join(dir, 'hangar.db');
      first = await openSqliteDatabase({ path: file });
      second = await openSqliteDatabase({ path: file });
    });
    afterEach(async () => {
      await first.close();
      await second.close();
    });

    it('sees a key revoked and a plan changed by the other process on the very next lookup', async () => {
      const here = createSqlRepositories(first);
      const there = createSqlRepositories(second);
      const user = aUser({ planName: 'free' });
      await here.users.create(user);
      const key = anApiKey(user.id, { keyHash: aHash() });
      await here.apiKeys.create(key);
      for (let i = 0; i < 3; i++) {
        expect((await here.apiKeys.findByHash(key.keyHash))?.id).to.equal(key.id);
        expect((await here.users.findById(user.id))?.planName).to.equal('free');
      }
      await there.users.setPlan({ userId: user.id, planName: 'pro', trialEndsAt: null, at: at(5) });
      expect((await here.users.findById(user.id))?.planName).to.equal('pro');
      expect(await there.apiKeys.delete({ userId: user.id, id: key.id })).to.equal(true);
      expect(await here.apiKeys.findByHash(key.keyHash)).to.equal(undefined);
    });

    it('sees its own writes at once, whichever way they were written', async () => {
      const { users, domains } = createSqlRepositories(first);
      const user = aUser({ planName: 'free' });
      await users.create(user);
      expect(await domains.findByUser(user.id)).to.equal(undefined);
      // Through Kysely.
      await users.setPlan({ userId: user.id, planName: 'pro', trialEndsAt: null, at: at(5) });
      expect((await users.findById(user.id))?.planName).to.equal('pro');
      // As a transaction script (the direct, synchronous transaction).
      const executor = new SqlExecutor(first.db, first);
      await executor.transaction(function* () {
        yield sql`update users set plan_name = ${'team'} where id = ${user.id}`.compile(first.db);
      });
      expect((await users.findById(user.id))?.planName).to.equal('team');
      // As a batch on the WAL worker's connection (another connection of this process).
      await executor.batch([sql`update users set plan_name = ${'max'} where id = ${user.id}`.compile(first.db)]);
      expect((await users.findById(user.id))?.planName).to.equal('max');
    });
  });
});
