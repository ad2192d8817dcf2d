// openPostgresDatabase: migrations under an advisory lock, timeouts, sslmode, the search index.
import { expect } from 'chai';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { groupCommit } from '../../adapters/persistence/postgres/group-commit.js';
import { openPostgresDatabase, postgresConnectionString } from '../../adapters/persistence/postgres/postgres-database.js';
import { redactPostgresUrl } from '../../adapters/persistence/postgres/postgres-url.js';
import { MIGRATION_NAMES } from '../../adapters/persistence/sql/migrate.js';
import { createSqlRepositories } from '../../adapters/persistence/sql/create-sql-repositories.js';
import type { HangarDatabase } from '../../adapters/persistence/sql/schema.js';
import { listFiles } from '../../adapters/persistence/sql/sql-file-listing.js';
import { POSTGRES_BATCH_INSERT_SQL } from '../../adapters/persistence/sql/postgres-upload-batches.js';
import { aCustomDomain } from './custom-domain-repository.contract.js';
import { aFile, aRefreshToken, aSession, anApiKey, givenUser } from './persistence-fixtures.js';
import { createTestSchema, type TestSchema, testDatabaseUrl } from '../support/test-database.js';

/** The advisory lock key openPostgresDatabase migrates under (the bytes of "HANGAR"). */
const MIGRATION_LOCK_KEY = '79445323366738';

describe('postgresConnectionString', () => {
  it('gives sslmode its libpq meaning unless the URL chooses otherwise', () => {
    expect(postgresConnectionString('postgres://u:p@db:5432/hangar?sslmode=require')).to.equal(
      'postgres://u:p@db:5432/hangar?sslmode=require&uselibpqcompat=true',
    );
    expect(postgresConnectionString('postgres://db/hangar?sslmode=require&uselibpqcompat=false')).to.equal(
      'postgres://db/hangar?sslmode=require&uselibpqcompat=false',
    );
    expect(postgresConnectionString('postgresql://db/hangar')).to.equal('postgresql://db/hangar');
  });

  it('puts a schema on the search_path through the options parameter, after options already given', () => {
    expect(postgresConnectionString('postgres://db/hangar', { schema: 'tenant_1' })).to.equal('postgres://db/hangar?options=-c+search_path%3Dtenant_1');
    expect(postgresConnectionString('postgres://db/hangar?options=-c%20jit%3Doff', { schema: 's' })).to.equal(
      'postgres://db/hangar?options=-c+jit%3Doff+-c+search_path%3Ds',
    );
    expect(() => postgresConnectionString('postgres://db/hangar', { schema: 'x; drop table users' })).to.throw('Invalid Postgres schema name');
  });

  it('keeps a Unix-socket URL with an empty host as it is', () => {
    expect(postgresConnectionString('postgres://hangar@/hangar?host=/run/postgresql')).to.equal('postgres://hangar@/hangar?host=%2Frun%2Fpostgresql');
  });

  it('hides the password in messages', () => {
    expect(redactPostgresUrl('postgres://hangar:s3cret@db:5432/hangar')).to.equal('postgres://hangar:***@db:5432/hangar');
    expect(redactPostgresUrl('postgresql://hangar@db/hangar')).to.equal('postgresql://hangar@db/hangar');
  });
});

const url = testDatabaseUrl();

if (url !== undefined) {
  describe('openPostgresDatabase (TEST_DATABASE_URL)', function () {
    this.timeout(30_000);
    let schema: TestSchema;

    beforeEach(async () => {
      schema = await createTestSchema(url);
    });
    afterEach(async () => {
      await schema.drop();
    });

    it('migrates once when several processes start at the same moment', async () => {
      const opened = await Promise.all(Array.from({ length: 5 }, () => openPostgresDatabase({ url: schema.url, poolSize: 2 })));
      try {
        const { rows } = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(opened[0].db);
        expect(rows.map((row) => row.name)).to.deep.equal([...MIGRATION_NAMES]);
      } finally {
        await Promise.all(opened.map((database) => database.close()));
      }
    });

    it('answers the lookups of an authenticated request and a content read from its cache, without a round trip', async () => {
      const database = await openPostgresDatabase({ url: schema.url, poolSize: 1 });
      try {
        const repos = createSqlRepositories(database);
        const user = await givenUser(repos.users);
        const key = anApiKey(user.id);
        await repos.apiKeys.create(key);
        const session = aSession(user.id);
        await repos.sessions.create({ session, refreshToken: aRefreshToken(session.id) });
        await repos.domains.save(aCustomDomain(user.id, { hostname: 'cached.example.com' }));
        const file = aFile(user.id);
        expect(await repos.files.insert(file, { storageLimitBytes: 2 ** 30, fileCountLimit: 10 })).to.equal('inserted');
        const lookups = async () => [
          (await repos.apiKeys.findByHash(key.keyHash))?.id,
          (await repos.sessions.findById(session.id))?.id,
          (await repos.users.findById(user.id))?.id,
          (await repos.domains.findByUser(user.id))?.hostname,
          (await repos.domains.findByHostname('cached.example.com'))?.userId,
          (await repos.domains.findByHostname('unknown.example.com'))?.userId,
          (await repos.files.findByFileId(file.fileId))?.id,
        ];
        const expected = [key.id, session.id, user.id, 'cached.example.com', user.id, undefined, file.id];
        expect(await lookups()).to.deep.equal(expected);
        // Without a pool, any statement fails: the same lookups answer from the cache.
        await database.pool.end();
        expect(await lookups()).to.deep.equal(expected);
        expect(await repos.users.findById('00000000-0000-4000-8000-000000000000').catch((error: unknown) => error)).to.be.instanceOf(Error);
      } finally {
        await database.close().catch(() => undefined);
      }
    });

    it('writes read counts without dropping the other cached lookups, and answers the counted file with its new counts', async () => {
      const database = await openPostgresDatabase({ url: schema.url, poolSize: 1 });
      try {
        const repos = createSqlRepositories(database);
        const user = await givenUser(repos.users);
        const [counted, other] = [aFile(user.id), aFile(user.id)];
        for (const file of [counted, other]) expect(await repos.files.insert(file, { storageLimitBytes: 2 ** 30, fileCountLimit: 10 })).to.equal('inserted');
        expect((await repos.files.findByFileId(counted.fileId))?.viewCount).to.equal(0);
        expect((await repos.files.findByFileId(other.fileId))?.id).to.equal(other.id);
        expect((await repos.users.findById(user.id))?.id).to.equal(user.id);
        await repos.files.addReadCounts([{ fileId: counted.fileId, views: 3, downloads: 1 }]);
        const after = await repos.files.findByFileId(counted.fileId);
        expect([after?.viewCount, after?.downloadCount]).to.deep.equal([3, 1]);
        // The rest still answers from the cache: without a pool any statement would fail.
        await database.pool.end();
        expect((await repos.files.findByFileId(other.fileId))?.id).to.equal(other.id);
        expect((await repos.users.findById(user.id))?.id).to.equal(user.id);
      } finally {
        await database.close().catch(() => undefined);
      }
    });

    it('shares one read among concurrent misses of one lookup', async () => {
      const database = await openPostgresDatabase({ url: schema.url, poolSize: 4 });
      try {
        const repos = createSqlRepositories(database);
        const user = await givenUser(repos.users);
        const file = aFile(user.id);
        expect(await repos.files.insert(file, { storageLimitBytes: 2 ** 30, fileCountLimit: 10 })).to.equal('inserted');
        let queries = 0;
        database.pool.on('acquire', () => (queries += 1));
        const found = await Promise.all(Array.from({ length: 20 }, () => repos.files.findByFileId(file.fileId)));
        expect(found.map((row) => row?.id)).to.deep.equal(Array(20).fill(file.id));
        expect(queries).to.equal(1);
      } finally {
        await database.close().catch(() => undefined);
      }
    });

    it('commits asynchronously, and answers each write only after a synchronous flush started after it, one flush for the writes that wait together', async () => {
      const opened = await openPostgresDatabase({ url: schema.url, poolSize: 2 });
      try {
        const { rows } = await opened.pool.query<{ synchronous_commit: string }>('show synchronous_commit');
        expect(rows[0]?.synchronous_commit).to.equal('off');
      } finally {
        await opened.close();
      }
      // Switched off (DATABASE_GROUP_COMMIT=false): synchronous commits, nothing sent at startup.
      const plain = await openPostgresDatabase({ url: schema.url, poolSize: 1, groupCommit: false });
      try {
        const { rows } = await plain.pool.query<{ synchronous_commit: string }>('show synchronous_commit');
        expect(rows[0]?.synchronous_commit).to.equal('on');
        const user = await givenUser(createSqlRepositories(plain).users);
        expect(user.id).to.be.a('string');
      } finally {
        await plain.close();
      }

      const pool = new pg.Pool({ connectionString: schema.url, max: 4 });
      const flushes: Array<() => void> = [];
      const db = new Kysely<any>({ dialect: groupCommit(new PostgresDialect({ pool }), () => new Promise<void>((resolve) => flushes.push(resolve))) });
      const settled = new Set<number>();
      const track = (id: number, write: Promise<unknown>) => write.then(() => settled.add(id));
      const until = async (condition: () => boolean) => {
        for (let waited = 0; !condition(); waited += 5) {
          if (waited > 5_000) throw new Error('timed out');
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      };
      try {
        const created = track(0, sql`create table grouped (n int)`.execute(db));
        await until(() => flushes.length === 1);
        expect(settled.has(0)).to.equal(false);
        flushes[0]();
        await created;

        const first = track(1, sql`insert into grouped values (1)`.execute(db));
        await until(() => flushes.length === 2);
        // Committed while flush 2 runs: they wait for one more flush, which starts after it.
        const more = [2, 3, 4].map((n) => track(n, sql`insert into grouped values (${n})`.execute(db)));
        let visible = 0;
        for (let tries = 0; visible < 4 && tries < 1_000; tries++) {
          visible = (await pool.query<{ n: number }>('select count(*)::int as n from grouped')).rows[0].n;
        }
        expect(visible).to.equal(4);
        // Committed is not yet answered: wait until every insert's connection is back in the pool
        // (each asks for its flush right after), so none asks only once flush 3 has started.
        await until(() => pool.idleCount === pool.totalCount && pool.waitingCount === 0);
        await new Promise((resolve) => setTimeout(resolve, 20));
        expect([...settled]).to.deep.equal([0]);
        flushes[1]();
        await first;
        await until(() => flushes.length === 3);
        expect([...settled].sort()).to.deep.equal([0, 1]);
        flushes[2]();
        await Promise.all(more);
        expect(flushes).to.have.length(3);

        // Reads (a `with` of reads only too) and rolled-back transactions wait for no flush.
        await sql`select n from grouped`.execute(db);
        await sql`with recent as materialized (select n from grouped) select count(*) from recent`.execute(db);
        await db.transaction().execute((trx) => sql`with recent as (select n from grouped where n > 0) select n from recent`.execute(trx));
        await db
          .transaction()
          .execute(async (trx) => {
            await sql`insert into grouped values (5)`.execute(trx);
            throw new Error('roll back');
          })
          .catch(() => undefined);
        expect(flushes).to.have.length(3);
        // A committed transaction that wrote waits for one.
        const committed = track(
          6,
          db.transaction().execute((trx) => sql`insert into grouped values (6)`.execute(trx)),
        );
        await until(() => flushes.length === 4);
        expect(settled.has(6)).to.equal(false);
        flushes[3]();
        await committed;
        // So does a `with` whose CTE writes.
        const withInsert = track(7, sql`with added as (insert into grouped values (7) returning n) select n from added`.execute(db));
        await until(() => flushes.length === 5);
        expect(settled.has(7)).to.equal(false);
        flushes[4]();
        await withInsert;
      } finally {
        for (const flush of flushes) flush();
        await db.destroy();
      }
    });

    it("answers a write whose durability flush fails with the flush's error, and flushes again for the next write", async () => {
      const pool = new pg.Pool({ connectionString: schema.url, max: 2 });
      let failures = 1;
      let flushed = 0;
      const db = new Kysely<any>({
        dialect: groupCommit(new PostgresDialect({ pool }), async () => {
          flushed += 1;
          if (failures-- > 0) throw new Error('the flush failed');
        }),
      });
      try {
        expect(
          await sql`create table flushed (n int)`.execute(db).then(
            () => 'answered',
            (error: Error) => error.message,
          ),
        ).to.equal('the flush failed');
        await sql`insert into flushed values (1)`.execute(db);
        expect(flushed).to.equal(2);
        expect((await sql<{ n: number }>`select count(*)::int as n from flushed`.execute(db)).rows[0]?.n).to.equal(1);
      } finally {
        await db.destroy();
      }
    });

    it('keeps answering lookups when a newer release adds a column while it runs (prepared statements are renamed)', async () => {
      const database = await openPostgresDatabase({ url: schema.url, poolSize: 1, lookupCache: false });
      try {
        const users = createSqlRepositories(database).users;
        const first = await givenUser(users);
        expect((await users.findById(first.id))?.id).to.equal(first.id);
        await sql`alter table users add column added_by_a_newer_release text`.execute(database.db);
        const second = await givenUser(users);
        expect((await users.findById(second.id))?.id).to.equal(second.id);
        expect((await users.findById(first.id))?.id).to.equal(first.id);
      } finally {
        await database.close();
      }
    });

    it("runs the upload's statement, precompiled lookups and activity-log batches prepared, once per connection, listing statements unprepared, and keeps working when the schema changes", async () => {
      const database = await openPostgresDatabase({ url: schema.url, poolSize: 1, lookupCache: false });
      try {
        const repos = createSqlRepositories(database);
        const user = await givenUser(repos.users);
        const limits = { storageLimitBytes: 2 ** 30, fileCountLimit: 10 };
        for (let i = 0; i < 2; i++) expect(await repos.files.insert(aFile(user.id), limits)).to.equal('inserted');
        await repos.files.totals(user.id);
        const prepared = async () =>
          (await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(database.db)).rows.map((row) => row.statement);
        expect(await prepared()).to.include(POSTGRES_BATCH_INSERT_SQL);
        expect((await prepared()).some((statement) => statement.includes('from "account_totals"'))).to.equal(true);
        // The activity log's batches too: a few texts (one per batch size), written again and again.
        await repos.logs.insertMany([
          {
            id: crypto.randomUUID(),
            userId: user.id,
            method: 'GET',
            path: '/settings',
            statusCode: 200,
            requestSizeBytes: null,
            createdAt: new Date(),
            metadata: {},
          },
        ]);
        expect((await prepared()).some((statement) => statement.includes('insert into activity_logs'))).to.equal(true);
        expect((await prepared()).some((statement) => statement.includes('insert into activity_log_totals'))).to.equal(true);
        // A search's count and pages are planned for their values each time (a rare needle and a common one want different plans).
        const search = { userId: user.id, filter: { q: 'report' }, window: { offset: 0, limit: 30 }, countLimit: 10_000 };
        await repos.files.list(search);
        await repos.files.list({ ...search, window: { offset: 1, limit: 30 } });
        expect((await prepared()).some((statement) => statement.includes('like'))).to.equal(false);
        await sql`alter table account_totals add column added_by_a_newer_release text`.execute(database.db);
        expect(await repos.files.insert(aFile(user.id), limits)).to.equal('inserted');
        expect((await repos.files.totals(user.id)).filesCount).to.equal(3);
      } finally {
        await database.close();
      }
    });

    it("writes nothing of a refused one-statement upload (record, totals), and writes the record before it waits for the account's totals row", async () => {
      const database = await openPostgresDatabase({ url: schema.url, poolSize: 2, lookupCache: false });
      try {
        const repos = createSqlRepositories(database);
        const user = await givenUser(repos.users);
        const limits = { storageLimitBytes: 100, fileCountLimit: 2 };
        expect(await repos.files.insert(aFile(user.id, { size: 60 }), limits)).to.equal('inserted');
        const snapshot = async () => {
          const { rows } = await sql<{ files: string; totals: string }>`
            select (select count(*) from files) as files,
                   (select storage_bytes || '/' || files_count || '/' || public_files_count from account_totals where user_id = ${user.id}) as totals
          `.execute(database.db);
          return rows[0];
        };
        const before = await snapshot();
        const tooBig = aFile(user.id, { size: 41 });
        expect(await repos.files.insert(tooBig, limits)).to.equal('storage_limit_reached');
        expect(await repos.files.insert(aFile(user.id, { size: 1 }), { storageLimitBytes: 100, fileCountLimit: 1 })).to.equal('file_count_limit_reached');
        expect(await snapshot()).to.deep.equal(before);
        expect(await repos.files.findByFileId(tooBig.fileId)).to.equal(undefined);

        // While another transaction holds the account's totals row, an upload has already written
        // its record and waits only to claim: the holder's own insert of the same file id waits for
        // the upload's transaction (and gives up after lock_timeout). Released, the upload completes.
        const holder = await database.pool.connect();
        try {
          await holder.query('begin');
          await holder.query('select 1 from account_totals where user_id = $1 for update', [user.id]);
          const waiting = aFile(user.id, { size: 10 });
          const upload = repos.files.insert(waiting, limits);
          const deadline = Date.now() + 5_000;
          let blocked = false;
          while (!blocked && Date.now() < deadline) {
            // (A transaction keeps its first view of pg_stat_activity unless told to clear it.)
            await holder.query('select pg_stat_clear_snapshot()');
            const { rows } = await holder.query(
              "select 1 from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and query like 'with batch as%'",
            );
            blocked = rows.length > 0;
            if (!blocked) await new Promise((resolve) => setTimeout(resolve, 20));
          }
          expect(blocked, 'the upload waits for the totals row').to.equal(true);
          await holder.query('savepoint probe');
          await holder.query("set local lock_timeout = '300ms'");
          const probe = await holder
            .query(
              `insert into files (id, user_id, file_id, name, content_type, size, sha256, is_public, created_at, blob_key, search_text)
               values ($1, $2, $3, null, 'image/png', 1, 'x', 1, 1, 'k', '')`,
              [crypto.randomUUID(), user.id, waiting.fileId],
            )
            .then(
              () => 'inserted',
              (error: { code?: string }) => error.code,
            );
          expect(probe, "the upload's record is written while it waits (lock_not_available)").to.equal('55P03');
          await holder.query('rollback to savepoint probe');
          await holder.query('commit');
          expect(await upload).to.equal('inserted');
          expect((await repos.files.totals(user.id)).filesCount).to.equal(2);
        } finally {
          holder.release();
        }
      } finally {
        await database.close();
      }
    });

    it('creates the schema it is given when missing, and keeps every table in it', async () => {
      const name = `${schema.schema}_own`;
      const database = await openPostgresDatabase({ url, poolSize: 1, schema: name });
      try {
        const { rows } = await sql<{ table_name: string }>`
          select table_name from information_schema.tables where table_schema = ${name} and table_name in ('users', 'files', 'account_totals')
        `.execute(database.db);
        expect(rows.map((row) => row.table_name).sort()).to.deep.equal(['account_totals', 'files', 'users']);
      } finally {
        await sql`drop schema ${sql.id(name)} cascade`.execute(database.db);
        await database.close();
      }
    });

    it('waits for the migration lock another process holds, and gives up after its timeout', async () => {
      const holder = new pg.Client({ connectionString: url });
      await holder.connect();
      try {
        await holder.query('select pg_advisory_lock($1::bigint)', [MIGRATION_LOCK_KEY]);
        const started = Date.now();
        let failure: unknown;
        await openPostgresDatabase({ url: schema.url, poolSize: 1, migrationLockTimeoutMs: 300 }).then(
          (db) => db.close(),
          (error) => (failure = error),
        );
        expect(String(failure)).to.match(/lock timeout/);
        expect(Date.now() - started).to.be.below(5_000);
        await holder.query('select pg_advisory_unlock($1::bigint)', [MIGRATION_LOCK_KEY]);
        const database = await openPostgresDatabase({ url: schema.url, poolSize: 1, migrationLockTimeoutMs: 300 });
        await database.close();
      } finally {
        await holder.end();
      }
    });

    it('cancels a statement that runs past the statement timeout, reported as the database being unavailable (503)', async () => {
      const database = await openPostgresDatabase({ url: schema.url, poolSize: 1, statementTimeoutMs: 200 });
      try {
        let failure: unknown;
        await sql`select pg_sleep(2)`.execute(database.db).catch((error) => (failure = error));
        expect(failure).to.have.property('code', 'DATABASE_UNAVAILABLE');
        expect(String((failure as { cause?: unknown }).cause)).to.include('statement timeout');
        expect((await sql<{ one: number }>`select 1 as one`.execute(database.db)).rows).to.deep.equal([{ one: 1 }]);
      } finally {
        await database.close();
      }
    });

    it('fails at once, without the password in the message, when nothing listens at the address', async () => {
      let failure: unknown;
      await openPostgresDatabase({ url: 'postgres://hangar:s3cret@127.0.0.1:1/hangar', poolSize: 1, connectTimeoutMs: 2_000 }).catch(
        (error) => (failure = error),
      );
      expect(String(failure)).to.include('Postgres at postgres://hangar:***@127.0.0.1:1/hangar');
      expect(String(failure)).not.to.include('s3cret');
    });

    it('honours sslmode: require insists on TLS (without verifying the certificate, as libpq), disable uses plain TCP', async () => {
      const query = (mode: string) => `${url}${url.includes('?') ? '&' : '?'}sslmode=${mode}`;
      const plain = await openPostgresDatabase({ url: `${query('disable')}`, poolSize: 1, schema: schema.schema });
      try {
        const { rows } = await sql<{ ssl: boolean | null; server: string }>`
          select (select ssl from pg_stat_ssl where pid = pg_backend_pid()) as ssl, current_setting('ssl') as server
        `.execute(plain.db);
        expect(rows[0].ssl).to.equal(false);
        let failure: unknown;
        const secured = await openPostgresDatabase({ url: query('require'), poolSize: 1, schema: schema.schema }).catch((error) => (failure = error));
        if (rows[0].server === 'on') {
          // A test server with TLS (self-signed, as usual): libpq's `require` encrypts without checking the chain.
          expect(failure).to.equal(undefined);
          await (secured as { close(): Promise<void> }).close();
        } else {
          expect(String(failure)).to.include('does not support SSL');
        }
      } finally {
        await plain.close();
      }
    });

    it('indexes search_text with pg_trgm, and the q filter uses that index', async function () {
      const database = await openPostgresDatabase({ url: schema.url, poolSize: 1 });
      try {
        const { rows } = await sql<{ available: boolean }>`select exists (select 1 from pg_available_extensions where name = 'pg_trgm') as available`.execute(
          database.db,
        );
        if (!rows[0].available) {
          // The migration must then have gone on without it (see 0042_search_on_database_indexes.ts).
          const index = await sql`select 1 from pg_indexes where schemaname = current_schema() and indexname = 'files_search_text_trgm'`.execute(database.db);
          expect(index.rows).to.deep.equal([]);
          return;
        }
        // On this empty table the planner would as soon scan anything: the other ways are switched off
        // here, in a transaction that is rolled back, to show that the index can answer the LIKE (the
        // size index holds the search text since migration 0041, so it goes too).
        const plan = await database.db.connection().execute(async (connection) => {
          await sql`begin`.execute(connection);
          try {
            await sql`drop index files_user_id_size_covering`.execute(connection);
            await sql`drop index files_user_id_created_at_id_covering`.execute(connection);
            await sql`set local enable_seqscan = off`.execute(connection);
            await sql`set local enable_indexscan = off`.execute(connection);
            return await sql<{ 'QUERY PLAN': string }>`explain select count(*) from files where search_text like '%holiday%' escape '\\'`.execute(connection);
          } finally {
            await sql`rollback`.execute(connection);
          }
        });
        expect(plan.rows.map((row) => row['QUERY PLAN']).join('\n')).to.include('files_search_text_trgm');
      } finally {
        await database.close();
      }
    });

    it('answers a needle of 1–2 characters that no file holds from the index of characters (0051), without walking the account', async () => {
      const database = await openPostgresDatabase({ url: schema.url, poolSize: 2 });
      const statements: { sql: string; parameters: readonly unknown[] }[] = [];
      const pool = new pg.Pool({ connectionString: schema.url, max: 1 });
      const logged = new Kysely<HangarDatabase>({
        dialect: new PostgresDialect({ pool }),
        log: (event) => {
          statements.push({ sql: event.query.sql, parameters: event.query.parameters });
        },
      });
      try {
        // 20,000 files named as people name photos and documents ("holiday-2019-1.png"), which hold
        // most letters but no "q", "j" or "z"; one file is also named with a "q".
        const owner = '00000000-0000-4000-8000-00000000000a';
        const words =
          'holiday invoice cat dog report screenshot img scan receipt paris berlin family meeting draft logo banner podcast export backup web'.split(' ');
        await sql`insert into users (id, email, password_hash, created_at, updated_at, plan_name) values (${owner}, 'short@example.com', 'x', 0, 0, 'default')`.execute(
          database.db,
        );
        await sql`
          insert into files (id, user_id, file_id, name, content_type, size, sha256, is_public, created_at, blob_key, search_text)
          select 'f' || g, ${owner}, 'id' || g, n, 'image/png', g, md5(g::text), 1, g, 'k' || g, n
          from generate_series(1, 20000) as g,
            lateral (select case when g = 77 then 'quote-77.pdf' else (${words}::text[])[1 + g % 20] || '-' || (2000 + g % 25) || '-' || g || '.png' end as n) as name
        `.execute(database.db);
        await sql`insert into account_totals (user_id, storage_bytes, files_count, public_files_count) values (${owner}, 0, 20000, 20000)`.execute(database.db);
        // As autovacuum would after such a load: the statistics the planner chooses by, and the
        // new entries moved from the GIN indexes' pending lists into the indexes.
        await sql`vacuum analyze files`.execute(database.db);

        const list = (q: string) => listFiles(logged, { userId: owner, filter: { q }, window: { offset: 0, limit: 10 }, countLimit: 10_000 });
        const plan = async (statement: { sql: string; parameters: readonly unknown[] }) => {
          const { rows } = await pool.query<{ 'QUERY PLAN': string }>(`explain ${statement.sql}`, [...statement.parameters]);
          return rows.map((row) => row['QUERY PLAN']).join('\n');
        };

        for (const q of ['z', 'jz']) {
          statements.length = 0;
          expect((await list(q)).page).to.deep.equal({ items: [], total: 0 });
          // The account's totals, then the one question whether any file matches; no count, no page.
          expect(statements).to.have.length(2);
          expect(statements[1].sql).to.include('string_to_array(files.search_text, null) @>');
          expect(await plan(statements[1])).to.include('files_search_characters');
        }

        statements.length = 0;
        const found = (await list('q')).page;
        expect(found.items.map((file) => file.name)).to.deep.equal(['quote-77.pdf']);
        expect(found.total).to.equal(1);

        // A character every file holds: the planner walks in list order to the first match instead.
        statements.length = 0;
        const common = (await list('-')).page;
        expect(common).to.deep.include({ total: 10_000, totalRelation: 'gte' });
        expect(common.items.map((file) => file.fileId)).to.deep.equal(Array.from({ length: 10 }, (_, i) => `id${20_000 - i}`));
        expect(await plan(statements[1])).not.to.include('files_search_characters');
      } finally {
        await logged.destroy();
        await database.close();
      }
    });

    it('keeps no search structure of its own after 0042: no gram or histogram table, no gram function, the trigram index on search_text alone', async () => {
      const database = await openPostgresDatabase({ url: schema.url, poolSize: 1 });
      try {
        const tables = await sql<{
          name: string;
        }>`select table_name as name from information_schema.tables where table_schema = current_schema() and (table_name like 'file_gram%' or table_name = 'file_histogram')`.execute(
          database.db,
        );
        expect(tables.rows).to.deep.equal([]);
        const functions = await sql<{
          name: string;
        }>`select p.proname as name from pg_proc p join pg_namespace n on n.oid = p.pronamespace where n.nspname = current_schema() and (p.proname like 'hangar_search%' or p.proname like 'hangar_file_grams%')`.execute(
          database.db,
        );
        expect(functions.rows).to.deep.equal([]);
        const index = await sql<{
          definition: string;
        }>`select indexdef as definition from pg_indexes where schemaname = current_schema() and indexname = 'files_search_text_trgm'`.execute(database.db);
        expect(index.rows[0]?.definition).to.match(/USING gin \(search_text [\w.]*gin_trgm_ops\)$/);
      } finally {
        await database.close();
      }
    });
  });
}
