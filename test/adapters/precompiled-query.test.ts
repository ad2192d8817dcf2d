import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { expect } from 'chai';
import { PrecompiledQuery } from '../../adapters/persistence/sql/precompiled-query.js';
import { openSqliteDatabase, type SqliteDatabase } from '../../adapters/persistence/sqlite/sqlite-database.js';
import { createSqlRepositories } from '../../adapters/persistence/sql/create-sql-repositories.js';
import { DIRECT_BUSY, DIRECT_BUSY_WAIT_MS, type DirectTransaction } from '../../adapters/persistence/sql/direct-access.js';
import { SqlExecutor } from '../../adapters/persistence/sql/sql-executor.js';
import { type CompiledQuery, type QueryResult, sql } from 'kysely';
import { aUser } from '../contracts/persistence-fixtures.js';

/** An insert of a user with `id` and `email`, compiled once. */
function anInsertOfUsers() {
  return new PrecompiledQuery((db, p: { id: string; email: string }) =>
    db.insertInto('users').values({ id: p.id, email: p.email, password_hash: 'x', created_at: 0, updated_at: 0, plan_name: 'default' }),
  );
}

for (const fastPath of [true, false])
  describe(`PrecompiledQuery (SQLite, fast path ${fastPath ? 'on' : 'off'})`, () => {
    let database: SqliteDatabase;
    /** The executor the composition builds for `database`: with the fast path, or plain Kysely. */
    let executor: SqlExecutor;
    beforeEach(async () => {
      database = await openSqliteDatabase({ path: ':memory:', fastPath });
      executor = new SqlExecutor(database.db, database);
      const { users } = createSqlRepositories(database);
      for (const email of ['ann@example.com', 'bob@example.com', 'cid@example.com']) await users.create(aUser({ email }));
    });
    afterEach(() => database.close());

    it('answers each call with the rows for its own arguments, as the built query would', async () => {
      const byEmail = new PrecompiledQuery((db, p: { email: string }) => db.selectFrom('users').select(['email']).where('email', '=', p.email));
      for (const email of ['bob@example.com', 'ann@example.com', 'nobody@example.com', 'cid@example.com']) {
        const built = await database.db.selectFrom('users').select(['email']).where('email', '=', email).execute();
        expect(await byEmail.execute(executor, { email })).to.deep.equal(built);
      }
    });

    it('puts named parameters in their places, whatever the order they are given in, and keeps constants the builder bound', async () => {
      const range = new PrecompiledQuery((db, p: { from: string; to: string }) =>
        db.selectFrom('users').select(['email']).where('email', '>=', p.from).where('email', '<', p.to).orderBy('email').limit(1),
      );
      expect(await range.execute(executor, { to: 'z', from: 'b' })).to.deep.equal([{ email: 'bob@example.com' }]);
      expect(await range.execute(executor, { from: 'a', to: 'b' })).to.deep.equal([{ email: 'ann@example.com' }]);
      expect(await range.first(executor, { from: 'd', to: 'z' })).to.equal(undefined);
    });

    it('binds one named parameter used in several places to each of them', async () => {
      const either = new PrecompiledQuery((db, p: { email: string; other: string }) =>
        db
          .selectFrom('users')
          .select(['email'])
          .where((eb) => eb.or([eb('email', '=', p.email), eb('email', '=', p.other), eb('email', '=', sql<string>`lower(${p.email})`)]))
          .orderBy('email'),
      );
      expect(await either.execute(executor, { email: 'CID@example.com', other: 'ann@example.com' })).to.deep.equal([
        { email: 'ann@example.com' },
        { email: 'cid@example.com' },
      ]);
      expect(either.compiled(database.db, { email: 'a', other: 'b' }).parameters).to.deep.equal(['a', 'b', 'a']);
    });

    it('refuses a query that does not bind a parameter it is given as a value', async () => {
      const careless = new PrecompiledQuery((db, _p: { email: string }) => db.selectFrom('users').select(['email']));
      let failure: unknown;
      await careless.execute(executor, { email: 'ann@example.com' }).catch((error) => (failure = error));
      expect(failure)
        .to.be.instanceOf(Error)
        .with.property('message')
        .that.matches(/must bind each of its parameters as a value \(email\)/);
    });

    describe('reads and transaction scripts beside other transactions and connections', () => {
      /** Runs a transaction that creates `user`, pauses until `release` settles, then commits or rolls back. */
      function pausedTransaction(user: ReturnType<typeof aUser>, outcome: 'commit' | 'rollback') {
        let release!: () => void;
        let inserted!: () => void;
        const held = new Promise<void>((resolve) => (release = resolve));
        const insertedNow = new Promise<void>((resolve) => (inserted = resolve));
        const done = database.db
          .transaction()
          .execute(async (trx) => {
            await createSqlRepositories(trx).users.create(user);
            inserted();
            await held;
            if (outcome === 'rollback') throw new Error('rolled back on purpose');
          })
          .then(
            () => 'committed',
            () => 'rolled back',
          );
        return { insertedNow, release, done };
      }

      it('never reads a row another transaction has not committed, and sees it once committed', async () => {
        const { users } = createSqlRepositories(database);
        const dropped = aUser({ email: 'dropped@example.com' });
        const rollingBack = pausedTransaction(dropped, 'rollback');
        await rollingBack.insertedNow;
        const lookup = users.findById(dropped.id);
        rollingBack.release();
        expect(await rollingBack.done).to.equal('rolled back');
        expect(await lookup).to.equal(undefined);

        const kept = aUser({ email: 'kept@example.com' });
        const committing = pausedTransaction(kept, 'commit');
        await committing.insertedNow;
        const lookupDuring = users.findById(kept.id);
        committing.release();
        expect(await committing.done).to.equal('committed');
        expect((await lookupDuring)?.email).to.equal('kept@example.com');
      });

      it('runs a transaction script at once, all or nothing, and reports a failing statement as the driver does', async () => {
        const { users } = createSqlRepositories(database);
        const insertUser = anInsertOfUsers();
        const fresh = aUser({ email: 'fresh@example.com' });
        const db = database.db;
        let failure: unknown;
        await executor
          .transaction(function* () {
            yield insertUser.compiled(db, { id: fresh.id, email: 'fresh@example.com' });
            yield insertUser.compiled(db, { id: aUser().id, email: 'ann@example.com' }); // the e-mail is taken: unique violation
          })
          .catch((error) => (failure = error));
        expect(String((failure as { code?: string })?.code)).to.match(/^SQLITE_CONSTRAINT/);
        expect(await users.findById(fresh.id)).to.equal(undefined);

        const outcome = await executor.transaction(function* () {
          const inserted = yield insertUser.compiled(db, { id: fresh.id, email: 'fresh@example.com' });
          return inserted.numAffectedRows;
        });
        expect(outcome).to.equal(1n);
        expect((await users.findById(fresh.id))?.email).to.equal('fresh@example.com');
      });

      it('lets a Kysely transaction that is open finish before a transaction script runs (never inside it)', async () => {
        const { users } = createSqlRepositories(database);
        const insertUser = anInsertOfUsers();
        const held = aUser({ email: 'held@example.com' });
        const open = pausedTransaction(held, 'rollback');
        await open.insertedNow;
        const db = database.db;
        // Run inside the open transaction, its row would go with that transaction's rollback.
        const own = aUser({ email: 'own@example.com' });
        const script = executor.transaction(function* () {
          yield insertUser.compiled(db, { id: own.id, email: own.email });
          return 'done';
        });
        open.release();
        expect(await open.done).to.equal('rolled back');
        expect(await script).to.equal('done');
        expect(await users.findById(held.id)).to.equal(undefined);
        expect((await users.findById(own.id))?.email).to.equal('own@example.com');
      });

      if (fastPath)
        it('tries the direct way again while the write lock is held elsewhere, and hands over to Kysely after DIRECT_BUSY_WAIT_MS', async () => {
          const db = database.db;
          let calls = 0;
          const busyThrice: DirectTransaction = ((work: (execute: (query: CompiledQuery) => QueryResult<unknown>) => unknown) => {
            calls += 1;
            return calls <= 3 ? DIRECT_BUSY : Promise.resolve(work(() => ({ rows: [{ n: 'direct' }] })));
          }) as DirectTransaction;
          const direct = await new SqlExecutor(db, { direct: { read: () => undefined, transaction: busyThrice } }).transaction(function* () {
            const result = yield sql`select 'kysely' as n`.compile(db);
            return (result.rows[0] as { n: string }).n;
          });
          expect(direct).to.equal('direct');
          expect(calls).to.equal(4);

          calls = 0;
          const alwaysBusy: DirectTransaction = () => {
            calls += 1;
            return DIRECT_BUSY;
          };
          const started = Date.now();
          const viaKysely = await new SqlExecutor(db, { direct: { read: () => undefined, transaction: alwaysBusy } }).transaction(function* () {
            const result = yield sql`select 'kysely' as n`.compile(db);
            return (result.rows[0] as { n: string }).n;
          });
          expect(viaKysely).to.equal('kysely');
          expect(Date.now() - started).to.be.at.least(DIRECT_BUSY_WAIT_MS - 5);
          expect(calls).to.be.greaterThan(3);
        });

      if (fastPath)
        it('polls a write lock held elsewhere with one transaction at a time: the others wait for it, then each commits once', async () => {
          const db = database.db;
          let locked = true;
          let busyAnswers = 0;
          let ran = 0;
          const heldFor20ms: DirectTransaction = ((work: (execute: (query: CompiledQuery) => QueryResult<unknown>) => unknown) => {
            if (locked) {
              busyAnswers += 1;
              return DIRECT_BUSY;
            }
            ran += 1;
            return Promise.resolve(work(() => ({ rows: [{ n: 'direct' }] })));
          }) as DirectTransaction;
          const executor = new SqlExecutor(db, { direct: { read: () => undefined, transaction: heldFor20ms } });
          setTimeout(() => (locked = false), 20);
          const script = function* (): Generator<CompiledQuery, string, QueryResult<unknown>> {
            const result = yield sql`select 'kysely' as n`.compile(db);
            return (result.rows[0] as { n: string }).n;
          };
          const results = await Promise.all(Array.from({ length: 20 }, () => executor.transaction(script)));
          expect(results).to.deep.equal(Array(20).fill('direct'));
          expect(ran).to.equal(20);
          // One poller's attempts (a pause of 0–8 ms each), not twenty.
          expect(busyAnswers).to.be.within(1, 15);

          locked = true;
          busyAnswers = 0;
          const started = Date.now();
          const viaKysely = await Promise.all(Array.from({ length: 5 }, () => executor.transaction(script)));
          expect(viaKysely).to.deep.equal(Array(5).fill('kysely'));
          expect(Date.now() - started).to.be.at.least(DIRECT_BUSY_WAIT_MS - 5);
          expect(busyAnswers).to.be.below(5 * 10);
        });

      it(`waits for another process’s write lock and then commits${fastPath ? ', the direct way (within DIRECT_BUSY_WAIT_MS)' : ' (through Kysely, which waits up to 5 s)'}`, async () => {
        const dir = await mkdtemp(path.join(os.tmpdir(), 'hangar-direct-busy-'));
        const onDisk = await openSqliteDatabase({ path: path.join(dir, 'hangar.db'), fastPath });
        const other = new BetterSqlite3(path.join(dir, 'hangar.db'));
        try {
          const insertUser = anInsertOfUsers();
          const db = onDisk.db;
          const user = aUser({ email: 'waited@example.com' });
          // What each try of the direct way answered: busy, ran (a promise), or handed to Kysely.
          const directTries: string[] = [];
          const original = onDisk.direct;
          const transaction = original?.transaction;
          const direct = original &&
            transaction && {
              ...original,
              transaction: ((work: Parameters<DirectTransaction>[0]) => {
                const outcome = transaction(work);
                directTries.push(outcome === DIRECT_BUSY ? 'busy' : outcome === undefined ? 'kysely' : 'ran');
                return outcome;
              }) as DirectTransaction,
            };
          other.exec('begin immediate');
          setTimeout(() => other.exec('commit'), 30);
          const started = Date.now();
          const outcome = await new SqlExecutor(db, { ...onDisk, direct }).transaction(function* () {
            const inserted = yield insertUser.compiled(db, { id: user.id, email: user.email });
            return inserted.numAffectedRows;
          });
          expect(outcome).to.equal(1n);
          expect(Date.now() - started).to.be.at.least(25);
          // The direct way kept trying while the lock was held, then ran the transaction itself (on a
          // busy machine that may take longer than DIRECT_BUSY_WAIT_MS; the outcome is what counts).
          if (fastPath) expect([directTries[0], directTries.at(-1), directTries.includes('kysely')]).to.deep.equal(['busy', 'ran', false]);
          expect((await createSqlRepositories(onDisk).users.findById(user.id))?.email).to.equal('waited@example.com');
        } finally {
          other.close();
          await onDisk.close();
          await rm(dir, { recursive: true, force: true });
        }
      });

      it('sees what another connection (another process, the admin CLI) committed, with nothing stale kept', async () => {
        const dir = await mkdtemp(path.join(os.tmpdir(), 'hangar-direct-'));
        const onDisk = await openSqliteDatabase({ path: path.join(dir, 'hangar.db'), fastPath });
        const other = new BetterSqlite3(path.join(dir, 'hangar.db'));
        try {
          const { users } = createSqlRepositories(onDisk);
          const user = aUser({ email: 'first@example.com' });
          await users.create(user);
          expect((await users.findById(user.id))?.email).to.equal('first@example.com');
          // Each lookup comes in a later turn of the event loop than the other connection's commit, as
          // a request received after that commit does (the lookup cache checks once per turn).
          const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
          other.prepare('update users set email = ? where id = ?').run('second@example.com', user.id);
          await nextTurn();
          expect((await users.findById(user.id))?.email).to.equal('second@example.com');
          other.prepare('delete from users where id = ?').run(user.id);
          await nextTurn();
          expect(await users.findById(user.id)).to.equal(undefined);
        } finally {
          other.close();
          await onDisk.close();
          await rm(dir, { recursive: true, force: true });
        }
      });
    });
  });
