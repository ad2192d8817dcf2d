// The upgrade path of the SQL schema: a database written by an earlier release, migrated in place.
import BetterSqlite3 from 'better-sqlite3';
import { expect } from 'chai';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { histogramKeysOf } from '../../adapters/persistence/sql/file-histogram.js';
import { createSqlRepositories } from '../../adapters/persistence/sql/create-sql-repositories.js';
import { MIGRATION_NAMES, migrateToLatest, migrationsUpTo } from '../../adapters/persistence/sql/migrate.js';
import type { HangarDatabase } from '../../adapters/persistence/sql/schema.js';
import { aFile, matchesRangeFilter, T0 } from './persistence-fixtures.js';
import { registerFileSearchFunction } from '../../adapters/persistence/sqlite/file-search-tokens.js';
import { createTestSchema, testDatabaseUrl } from '../support/test-database.js';
import { fileSearchGrams, fileSearchText } from '../../adapters/persistence/file-search.js';
import { backfillFileGrams, FILE_GRAM_TABLES } from '../../adapters/persistence/postgres/file-gram-counts.js';
import { sql } from 'kysely';
import type { FileFilter } from '../../core/files/file-repository.js';
import { SqlFileRepository } from '../../adapters/persistence/sql/sql-file-repository.js';
import { SqlExecutor } from '../../adapters/persistence/sql/sql-executor.js';

/** A private in-memory SQLite database with foreign keys on and the search index's function (as openSqliteDatabase opens one), and no migration run yet. */
function emptySqlite(): Kysely<HangarDatabase> {
  const database = new BetterSqlite3(':memory:');
  database.pragma('foreign_keys = ON');
  registerFileSearchFunction(database);
  return new Kysely<HangarDatabase>({ dialect: new SqliteDialect({ database }) });
}

describe('SQL migrations (SQLite)', () => {
  let db: Kysely<HangarDatabase>;

  beforeEach(() => {
    db = emptySqlite();
  });
  afterEach(async () => {
    await db.destroy();
  });

  it('runs every migration in name order on an empty database, and none the second time', async () => {
    expect(await migrateToLatest(db)).to.deep.equal([...MIGRATION_NAMES]);
    expect(await migrateToLatest(db)).to.deep.equal([]);
  });

  describe('0002_account_rules on a database of the first release', () => {
    const ada = '00000000-0000-4000-8000-00000000000a';
    const bob = '00000000-0000-4000-8000-00000000000b';
    const eve = '00000000-0000-4000-8000-00000000000e';

    beforeEach(async () => {
      expect(await migrateToLatest(db, migrationsUpTo('0001_initial'))).to.deep.equal(['0001_initial']);
      // Written as the first release wrote them: its columns only.
      for (const [id, createdAt] of [[ada, 1], [bob, 2], [eve, 3]] as const) {
        await db
          .insertInto('users')
          .values({ id, email: `${id}@example.com`, password_hash: 'h', email_confirmed_at: null, max_upload_size_bytes: null, last_email_sent_at: null, created_at: createdAt, updated_at: createdAt })
          .execute();
      }
      const files = [aFile(ada, { size: 5 * 1024 ** 3 }), aFile(ada, { size: 7 }), aFile(bob, { size: 3 })];
      for (const file of files) {
        await db
          .insertInto('files')
          .values({
            id: file.id,
            user_id: file.userId,
            file_id: file.fileId,
            name: file.name,
            content_type: file.contentType,
            size: file.size,
            sha256: file.sha256,
            is_public: 1,
            created_at: T0.getTime(),
            blob_key: file.blobKey,
            search_text: file.fileId.toLowerCase(),
          })
          .execute();
      }
      expect(await migrateToLatest(db)).to.deep.equal(MIGRATION_NAMES.slice(1));
    });

    it('counts the files already stored into the totals of their accounts', async () => {
      const { files } = createSqlRepositories(db);
      expect(await files.totals(ada)).to.deep.equal({ storageBytes: 5 * 1024 ** 3 + 7, filesCount: 2 });
      expect(await files.totals(bob)).to.deep.equal({ storageBytes: 3, filesCount: 1 });
      expect(await files.totals(eve)).to.deep.equal({ storageBytes: 0, filesCount: 0 });
    });

    it('counts the public files already stored (0003), so listings by visibility total them right', async () => {
      const { files } = createSqlRepositories(db);
      const window = { offset: 0, limit: 10 };
      expect((await files.list({ userId: ada, filter: { isPublic: true }, window })).total).to.equal(2);
      expect((await files.list({ userId: ada, filter: { isPublic: false }, window })).total).to.equal(0);
      expect((await files.list({ userId: ada, filter: {}, window })).total).to.equal(2);
      expect((await files.list({ userId: eve, filter: { isPublic: true }, window })).total).to.equal(0);
    });

    it('enforces quotas against those totals from the first upload on', async () => {
      const { files } = createSqlRepositories(db);
      expect(await files.insert(aFile(bob, { size: 1 }), { storageLimitBytes: 100, fileCountLimit: 1 })).to.equal('file_count_limit_reached');
      expect(await files.insert(aFile(bob, { size: 98 }), { storageLimitBytes: 100, fileCountLimit: 2 })).to.equal('storage_limit_reached');
      expect(await files.insert(aFile(bob, { size: 97 }), { storageLimitBytes: 100, fileCountLimit: 2 })).to.equal('inserted');
      expect(await files.totals(bob)).to.deep.equal({ storageBytes: 100, filesCount: 2 });
    });

    it('puts existing accounts on the default plan (empty name) with no trial end and no subscription', async () => {
      const { users } = createSqlRepositories(db);
      const account = await users.findById(ada);
      expect(account).to.include({ planName: '', trialEndsAt: null, accessUntil: null, subscriptionCanceledAt: null });
      expect((await users.list({ window: { offset: 0, limit: 10 } })).items.map((user) => user.id)).to.deep.equal([ada, bob, eve]);
    });

    it('deletes an existing account with its files and totals (the new tables cascade too)', async () => {
      const { users, files, usage, logs } = createSqlRepositories(db);
      await usage.add([{ userId: ada, periodStart: T0, originReads: 1, imageOps: 0 }]);
      await logs.insertMany([{ id: '10000000-0000-4000-8000-000000000001', userId: ada, method: 'GET', path: '/', statusCode: 200, requestSizeBytes: null, createdAt: T0, metadata: {} }]);
      expect(await users.delete(ada)).to.equal(true);
      expect(await files.totals(ada)).to.deep.equal({ storageBytes: 0, filesCount: 0 });
      expect(await db.selectFrom('files').select('id').where('user_id', '=', ada).execute()).to.deep.equal([]);
      expect(await usage.get({ userId: ada, periodStart: T0 })).to.deep.equal({ originReads: 0, imageOps: 0 });
      expect((await logs.list({ userId: ada, window: { offset: 0, limit: 10 } })).total).to.equal(0);
      expect(await files.totals(bob)).to.deep.equal({ storageBytes: 3, filesCount: 1 });
    });
  });
});

/**
 * 0006_file_histogram and 0007_file_histogram_by_type on a database at 0005 that already holds
 * files: the backfills (SQL) must give every file the rows the repository (JavaScript,
 * file-histogram.ts) gives it on insert: its three buckets for all types ('') and for its own type.
 */
function describeHistogramBackfill(dialect: string, open: () => Promise<{ db: Kysely<HangarDatabase>; migrationTableSchema?: string; close(): Promise<void> }>): void {
  describe(`0006_file_histogram and 0007_file_histogram_by_type backfills (${dialect})`, function () {
    this.timeout(30_000);
    const ada = '00000000-0000-4000-8000-00000000000a';
    const bob = '00000000-0000-4000-8000-00000000000b';
    const HOUR = 3_600_000;
    const DAY = 24 * HOUR;
    const day0 = Math.floor(T0.getTime() / DAY) * DAY;
    const sizes = [0, 1, 31, 63, 64, 65, 66, 127, 128, 4095, 4096, 4097, 2 ** 32 - 1, 2 ** 32, 2 ** 32 + 1, 5 * 1024 ** 3, 2 ** 45, Number.MAX_SAFE_INTEGER];
    const times = [-DAY - 1, -HOUR, -1, 0, 1, day0 - 1, day0, day0 + HOUR - 1, day0 + HOUR, day0 + DAY, T0.getTime()];
    let opened: Awaited<ReturnType<typeof open>>;
    let stored: ReturnType<typeof aFile>[];
    const TYPES = ['image/png', 'image/jpeg', 'application/pdf'];

    beforeEach(async () => {
      opened = await open();
      const { db, migrationTableSchema } = opened;
      await migrateToLatest(db, migrationsUpTo('0005_listing_speed'), { migrationTableSchema });
      for (const id of [ada, bob]) {
        await db.insertInto('users').values({ id, email: `${id}@example.com`, password_hash: 'h', email_confirmed_at: null, max_upload_size_bytes: null, last_email_sent_at: null, created_at: 1, updated_at: 1 }).execute();
      }
      stored = [
        ...sizes.map((size, i) => aFile(ada, { size, createdAt: new Date(times[i % times.length]!), isPublic: i % 3 !== 0, contentType: TYPES[i % 3]! })),
        ...times.map((ms, i) => aFile(i % 2 === 0 ? ada : bob, { size: sizes[(i * 7) % sizes.length]!, createdAt: new Date(ms), isPublic: i % 2 === 0, contentType: TYPES[i % 2]! })),
        // Several files sharing every bucket.
        ...[0, 1, 2].map(() => aFile(bob, { size: 4100, createdAt: new Date(day0 + 5), isPublic: true })),
      ];
      for (const file of stored) {
        await db
          .insertInto('files')
          .values({ id: file.id, user_id: file.userId, file_id: file.fileId, name: file.name, content_type: file.contentType, size: file.size, sha256: file.sha256, is_public: file.isPublic ? 1 : 0, created_at: file.createdAt.getTime(), blob_key: file.blobKey, search_text: file.fileId.toLowerCase() })
          .execute();
      }
      expect(await migrateToLatest(db, migrationsUpTo('0007_file_histogram_by_type'), { migrationTableSchema })).to.deep.equal(['0006_file_histogram', '0007_file_histogram_by_type']);
    });
    afterEach(async () => {
      await opened.close();
    });

    it('counts the files already stored into the rows JavaScript computes for them', async () => {
      const expected = new Map<string, number>();
      for (const file of stored) {
        for (const { dimension, bucket } of histogramKeysOf({ createdAtMs: file.createdAt.getTime(), size: file.size })) {
          for (const contentType of ['', file.contentType]) {
            const key = `${file.userId} ${contentType} ${dimension} ${bucket} ${file.isPublic ? 1 : 0}`;
            expected.set(key, (expected.get(key) ?? 0) + 1);
          }
        }
      }
      const rows = await opened.db.selectFrom('file_histogram').selectAll().execute();
      const actual = new Map(rows.map((row) => [`${row.user_id} ${row.content_type} ${row.dimension} ${Number(row.bucket)} ${row.is_public}`, Number(row.files)]));
      expect([...actual].sort()).to.deep.equal([...expected].sort());
    });

    it('totals ranges over the backfilled files exactly, and stays exact as files come and go', async () => {
      // The repositories of this release read the columns and tables of every later migration too (deleteMany removes image_variants).
      await migrateToLatest(opened.db, undefined, { migrationTableSchema: opened.migrationTableSchema });
      const { files } = createSqlRepositories(opened);
      const check = async (live: typeof stored) => {
        for (const owner of [ada, bob]) {
          for (const filter of [
            { sizeMin: 64 },
            { sizeMax: 4096 },
            { sizeMin: 2 ** 32 },
            { createdAfter: new Date(day0) },
            { createdBefore: new Date(-1) },
            { createdAfter: new Date(-HOUR), createdBefore: new Date(day0 + HOUR) },
            { sizeMin: 1, isPublic: true },
            { type: 'image/png' },
            { type: 'image/jpeg', isPublic: false },
            { type: 'application/pdf', sizeMax: 4096 },
            { type: 'image/png', createdAfter: new Date(-HOUR), isPublic: true },
          ]) {
            const brute = live.filter((file) => matchesRangeFilter(file, owner, filter)).length;
            const { total } = await files.list({ userId: owner, filter, window: { offset: 0, limit: 1 } });
            expect(total, `${owner} ${JSON.stringify(filter)}`).to.equal(brute);
          }
        }
      };
      await check(stored);
      const added = aFile(bob, { size: 64, createdAt: new Date(day0) });
      expect(await files.insert(added, { storageLimitBytes: Number.MAX_SAFE_INTEGER, fileCountLimit: 1000 })).to.equal('inserted');
      const gone = stored.filter((_, i) => i % 4 === 0);
      await files.deleteMany({ userId: ada, fileIds: gone.filter((file) => file.userId === ada).map((file) => file.fileId) });
      await files.deleteMany({ userId: bob, fileIds: gone.filter((file) => file.userId === bob).map((file) => file.fileId) });
      await check([...stored.filter((file) => !gone.includes(file)), added]);
    });
  });
}

/**
 * 0008_activity_log_totals on a database at 0007 that already holds activity log entries: each
 * account's total is its number of entries, and stays so as entries are added and pruned.
 */
function describeLogTotalsBackfill(dialect: string, open: () => Promise<{ db: Kysely<HangarDatabase>; migrationTableSchema?: string; close(): Promise<void> }>): void {
  describe(`0008_activity_log_totals backfill (${dialect})`, function () {
    this.timeout(30_000);
    const ada = '00000000-0000-4000-8000-00000000000a';
    const bob = '00000000-0000-4000-8000-00000000000b';
    const cid = '00000000-0000-4000-8000-00000000000c';
    let opened: Awaited<ReturnType<typeof open>>;
    afterEach(async () => {
      await opened.close();
    });

    it('counts the entries already stored per account, and keeps counting', async () => {
      opened = await open();
      const { db, migrationTableSchema } = opened;
      await migrateToLatest(db, migrationsUpTo('0007_file_histogram_by_type'), { migrationTableSchema });
      for (const id of [ada, bob, cid]) {
        await db.insertInto('users').values({ id, email: `${id}@example.com`, password_hash: 'h', email_confirmed_at: null, max_upload_size_bytes: null, last_email_sent_at: null, created_at: 1, updated_at: 1 }).execute();
      }
      const entry = (userId: string, i: number) => ({ id: `10000000-0000-4000-8000-${userId.slice(-2)}${String(i).padStart(10, '0')}`, user_id: userId, method: 'GET', path: '/', status_code: 200, request_size_bytes: null, created_at: 1000 + i, metadata: '{}' });
      await db.insertInto('activity_logs').values([...[0, 1, 2].map((i) => entry(ada, i)), entry(bob, 0)]).execute();
      expect(await migrateToLatest(db, migrationsUpTo('0008_activity_log_totals'), { migrationTableSchema })).to.deep.equal(['0008_activity_log_totals']);
      const { logs } = createSqlRepositories(db);
      const totals = async () => Promise.all([ada, bob, cid].map(async (userId) => (await logs.list({ userId, window: { offset: 0, limit: 1 } })).total));
      expect(await totals()).to.deep.equal([3, 1, 0]);
      await logs.insertMany([{ id: '20000000-0000-4000-8000-000000000001', userId: cid, method: 'GET', path: '/', statusCode: 200, requestSizeBytes: null, createdAt: new Date(5000), metadata: {} }]);
      expect(await logs.deleteBefore(new Date(1002))).to.equal(3);
      expect(await totals()).to.deep.equal([1, 0, 1]);
    });
  });
}

/** Names whose folded search text is awkward: combining marks, characters beyond the BMP, LIKE's metacharacters, case folds that change length. */
const AWKWARD_NAMES = [
  'Résumé.pdf', 'e\u0301te\u0301.txt', '\u{1F4F7}\u{1F4F7}x.png', '100%_\\done', 'İstanbul', 'Straße', 'ǅ', '\u{10400}\u{10428}', 'a', '', null,
  'ａｂ', '\u{1F469}\u200D\u{1F4BB}', "it's \"quoted\" {braces},", 'tab\tand spaces  ', 'aaaa',
];

/**
 * 0031_search_grams (Postgres) on a database at 0030 that already holds files: its SQL function
 * gives every stored search text exactly the grams JavaScript computes (fileSearchGrams), and the
 * index built over those files answers short needles as a brute-force search does. The same again
 * after 0034_search_grams_plpgsql, which replaces the function under the index without rebuilding
 * it: files indexed before the upgrade must still be found, so the new function must give what the
 * old one gave.
 */
function describeSearchGramsMigration(dialect: string, open: () => Promise<{ db: Kysely<HangarDatabase>; migrationTableSchema?: string; close(): Promise<void> }>): void {
  for (const through of ['0031_search_grams', '0034_search_grams_plpgsql', '0039_postgres_gram_days_by_type']) describeSearchGramsThrough(dialect, open, through);
}

function describeSearchGramsThrough(dialect: string, open: () => Promise<{ db: Kysely<HangarDatabase>; migrationTableSchema?: string; close(): Promise<void> }>, through: string): void {
  describe(`0031_search_grams over files stored before it, migrated through ${through} (${dialect})`, function () {
    this.timeout(30_000);
    const ada = '00000000-0000-4000-8000-00000000000a';
    let opened: Awaited<ReturnType<typeof open>>;
    let stored: ReturnType<typeof aFile>[];

    beforeEach(async () => {
      opened = await open();
      const { db, migrationTableSchema } = opened;
      await migrateToLatest(db, migrationsUpTo('0030_invites'), { migrationTableSchema });
      await db.insertInto('users').values({ id: ada, email: 'ada@example.com', password_hash: 'h', email_confirmed_at: null, max_upload_size_bytes: null, last_email_sent_at: null, created_at: 1, updated_at: 1 }).execute();
      stored = AWKWARD_NAMES.map((name, i) => aFile(ada, { name, createdAt: new Date(T0.getTime() + i * 1000) }));
      // The transaction script: the one-statement upload of Postgres needs migration 0038's function.
      const { files } = createSqlRepositories(db, { files: { singleStatementInsert: false } });
      for (const file of stored) expect(await files.insert(file, { fileCountLimit: 100, storageLimitBytes: 10 ** 12 })).to.equal('inserted');
      expect(await migrateToLatest(db, migrationsUpTo('0031_search_grams'), { migrationTableSchema })).to.deep.equal(['0031_search_grams']);
      if (through !== '0031_search_grams') expect(await migrateToLatest(db, migrationsUpTo(through), { migrationTableSchema })).to.include(through);
    });
    afterEach(async () => {
      await opened.close();
    });

    it('gives every stored search text the grams JavaScript computes (as a set)', async () => {
      const { rows } = await sql<{ search_text: string; grams: string[] }>`select search_text, hangar_search_grams(search_text) as grams from files`.execute(opened.db);
      expect(rows).to.have.length(stored.length);
      const expected = new Map(stored.map((file) => [fileSearchText(file), [...fileSearchGrams(fileSearchText(file))].sort()]));
      for (const row of rows) expect([...new Set(row.grams)].sort(), JSON.stringify(row.search_text)).to.deep.equal(expected.get(row.search_text));
    });

    it('finds the files stored before it by every one- and two-code-point needle, as a brute-force search does', async () => {
      // A probe of one file, and counts never walking: the files are found through the index.
      const needles = new Set(stored.flatMap((file) => fileSearchGrams(fileSearchText(file)).filter((gram) => !gram.includes('\n'))));
      const check = async (files: SqlFileRepository) => {
        for (const needle of [...needles, 'zq', '\u{1F4F8}']) {
          const expected = stored.filter((file) => fileSearchText(file).includes(needle)).map((file) => file.fileId).sort();
          const page = await files.list({ userId: ada, filter: { q: needle }, window: { offset: 0, limit: 100 } });
          expect(page.items.map((file) => file.fileId).sort(), JSON.stringify(needle)).to.deep.equal(expected);
          expect(page.total, JSON.stringify(needle)).to.equal(expected.length);
        }
      };
      await check(new SqlFileRepository(new SqlExecutor(opened.db), { postgresSearch: { probeFiles: 1, walkShare: Number.POSITIVE_INFINITY, gramCounts: false } }));
      if (through === '0039_postgres_gram_days_by_type') {
        // Counted from what the backfills of 0036 and 0039 wrote for these files (no gram of 5,000 files: none by day)…
        const counted = new SqlFileRepository(new SqlExecutor(opened.db), { postgresSearch: { walkFiles: 0 } });
        await check(counted);
        // …and with every gram counted by day (the backfill again, threshold 1), pages placed by day.
        for (const table of FILE_GRAM_TABLES) await sql`delete from ${sql.table(table)}`.execute(opened.db);
        await backfillFileGrams(opened.db, 1);
        await check(counted);
      }
    });
  });
}

for (const describeBackfill of [describeHistogramBackfill, describeLogTotalsBackfill]) {
  describeBackfill('SQLite', async () => {
    const db = emptySqlite();
    return { db, close: () => db.destroy() };
  });
}

/**
 * A migration that makes list indexes covering (0035 on SQLite, 0037 on Postgres), run on a database
 * that holds files: `expectIndexes` checks the indexes it leaves, and every page (at every depth,
 * placed, walked or by ids first) and total of size, type, visibility and `q` filters is still the
 * brute-force one.
 */
async function expectCoveringListIndexesKeepPages(
  db: Kysely<HangarDatabase>,
  migration: string,
  expectIndexes: () => Promise<void>,
  migrationTableSchema?: string,
): Promise<void> {
  const ada = '00000000-0000-4000-8000-00000000000a';
  const TYPES = ['image/png', 'image/jpeg', 'application/pdf'];
  const previous = MIGRATION_NAMES.filter((name) => name < migration).at(-1)!;
  await migrateToLatest(db, migrationsUpTo(previous), { migrationTableSchema });
  await db.insertInto('users').values({ id: ada, email: 'ada@example.com', password_hash: 'h', email_confirmed_at: null, max_upload_size_bytes: null, last_email_sent_at: null, created_at: 1, updated_at: 1 }).execute();
  // The transaction script: the one-statement upload of Postgres needs migration 0038's function.
  const { files: before } = createSqlRepositories(db, { files: { singleStatementInsert: false } });
  // Ties in upload time (every third file shares its neighbour's), sizes on both sides of each bound.
  const stored = Array.from({ length: 240 }, (_, i) =>
    aFile(ada, { name: i % 5 === 0 ? `cat-${i}.png` : `file-${i}.bin`, size: (i * 7919) % 5_000, createdAt: new Date(T0.getTime() + Math.floor(i / 3) * 1000), isPublic: i % 4 !== 0, contentType: TYPES[i % 3]! }),
  );
  for (const file of stored) expect(await before.insert(file, { storageLimitBytes: Number.MAX_SAFE_INTEGER, fileCountLimit: 1_000 })).to.equal('inserted');

  expect(await migrateToLatest(db, migrationsUpTo(migration), { migrationTableSchema })).to.deep.equal([migration]);
  await expectIndexes();

  const executor = new SqlExecutor(db);
  const newestFirst = [...stored].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  for (const seekFromOffset of [1, 1_000]) {
    const files = new SqlFileRepository(executor, { seekFromOffset });
    const filters: FileFilter[] = [{ sizeMin: 2_500 }, { sizeMin: 1_000, sizeMax: 3_000, isPublic: true }, { type: 'image/png', sizeMax: 4_000 }, { sizeMin: 100, createdBefore: new Date(T0.getTime() + 50_000) }, { q: 'cat', isPublic: true }, { q: 'cat', sizeMin: 1_000 }, { sizeMin: 1_200, isPublic: false }, { sizeMax: 3_333, type: 'image/jpeg', isPublic: true }, {}, { isPublic: true }];
    for (const filter of filters) {
      const expected = newestFirst.filter((file) => matchesRangeFilter(file, ada, filter) && (filter.q === undefined || fileSearchText(file).includes(filter.q))).map((file) => file.fileId);
      for (const offset of [0, 7, 30, 61, expected.length - 3, expected.length + 5]) {
        const page = await files.list({ userId: ada, filter, window: { offset, limit: 10 } });
        expect(page.items.map((file) => file.fileId), `${JSON.stringify(filter)} offset ${offset}`).to.deep.equal(expected.slice(offset, offset + 10));
        expect(page.total).to.equal(expected.length);
      }
    }
  }
}

describe('0035_sqlite_covering_list_indexes on a database that holds files (SQLite)', function () {
  this.timeout(30_000);

  it('replaces the list-order and size indexes by covering ones, and every page and total of size, type and visibility filters is still the brute-force page', async () => {
    const db = emptySqlite();
    try {
      await expectCoveringListIndexesKeepPages(db, '0035_sqlite_covering_list_indexes', async () => {
        const indexes = await sql<{ name: string }>`select name from sqlite_master where type = 'index' and tbl_name = 'files' and (name like 'files_user_id_created_at_id%' or name like 'files_user_id_size%') order by name`.execute(db);
        expect(indexes.rows.map((row) => row.name)).to.deep.equal(['files_user_id_created_at_id_is_public_size_content_type_search_text', 'files_user_id_size_is_public_content_type']);
      });
    } finally {
      await db.destroy();
    }
  });
});

const postgresUrl = testDatabaseUrl();
for (const describeBackfill of postgresUrl === undefined ? [] : [describeHistogramBackfill, describeLogTotalsBackfill, describeSearchGramsMigration]) {
  describeBackfill('Postgres', async () => {
    const schema = await createTestSchema(postgresUrl!);
    const db = new Kysely<HangarDatabase>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: schema.url, max: 2 }) }) });
    return {
      db,
      migrationTableSchema: schema.schema,
      close: async () => {
        await db.destroy();
        await schema.drop();
      },
    };
  });
}

// Registered only where a Postgres database is configured, as the backfill suites above.
if (postgresUrl !== undefined) describe('0037_postgres_covering_list_index on a database that holds files (Postgres)', function () {
  this.timeout(60_000);

  it('replaces the list-order index by one that covers visibility, size and content type, and every page and total is still the brute-force page', async () => {
    const schema = await createTestSchema(postgresUrl!);
    const db = new Kysely<HangarDatabase>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: schema.url, max: 2 }) }) });
    try {
      await expectCoveringListIndexesKeepPages(
        db,
        '0037_postgres_covering_list_index',
        async () => {
          const indexes = await sql<{ indexname: string; indexdef: string }>`select indexname, indexdef from pg_indexes where schemaname = current_schema() and tablename = 'files' and indexname like 'files_user_id_created_at_id%'`.execute(db);
          expect(indexes.rows.map((row) => row.indexname)).to.deep.equal(['files_user_id_created_at_id_covering']);
          expect(indexes.rows[0]!.indexdef).to.match(/\(user_id, created_at, id\) INCLUDE \(is_public, size, content_type\)$/);
        },
        schema.schema,
      );
    } finally {
      await db.destroy();
      await schema.drop();
    }
  });
});

// Registered only where a Postgres database is configured, as the backfill suites above.
if (postgresUrl !== undefined) describe('0040_postgres_trigram_index_by_type on a database that holds files (Postgres)', function () {
  this.timeout(60_000);
  const owners = ['00000000-0000-4000-8000-0000000000a1', '00000000-0000-4000-8000-0000000000a2'];
  const types = ['image/png', 'image/jpeg', 'application/pdf'];
  const words = ['holiday', 'invoice', 'cat', 'Résumé'];
  let schema: Awaited<ReturnType<typeof createTestSchema>>;
  let db: Kysely<HangarDatabase>;
  let stored: ReturnType<typeof aFile>[];

  beforeEach(async () => {
    schema = await createTestSchema(postgresUrl!);
    db = new Kysely<HangarDatabase>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: schema.url, max: 2 }) }) });
    await migrateToLatest(db, migrationsUpTo('0039_postgres_gram_days_by_type'), { migrationTableSchema: schema.schema });
    for (const id of owners) {
      await db.insertInto('users').values({ id, email: `${id}@example.com`, password_hash: 'h', email_confirmed_at: null, max_upload_size_bytes: null, last_email_sent_at: null, created_at: 1, updated_at: 1 }).execute();
    }
    // Every combination of owner, word, content type and visibility, in an order that mixes them; the
    // first owner's files are mostly public, the second's mostly private (a visibility that most of
    // an account's files have is tested file by file, the other one in the index: SqlFileRepository.searchList).
    stored = [];
    let i = 0;
    for (const word of words) {
      for (const contentType of types) {
        for (const isPublic of [true, false]) {
          for (const userId of owners) {
            for (let copies = isPublic === (userId === owners[0]) ? 2 : 1; copies > 0; copies--) {
              stored.push(aFile(userId, { name: `${word}-${i}.bin`, contentType, isPublic, createdAt: new Date(T0.getTime() + i * 1000) }));
              i++;
            }
          }
        }
      }
    }
    const { files } = createSqlRepositories(db);
    for (const file of stored) expect(await files.insert(file, { fileCountLimit: 1_000, storageLimitBytes: 10 ** 12 })).to.equal('inserted');
    expect(await migrateToLatest(db, migrationsUpTo('0040_postgres_trigram_index_by_type'), { migrationTableSchema: schema.schema })).to.deep.equal(['0040_postgres_trigram_index_by_type']);
  });
  afterEach(async () => {
    await db.destroy();
    await schema.drop();
  });

  it('replaces the trigram index by one that also holds content type and visibility, and a search with them reads only their entries', async () => {
    const indexes = await sql<{ indexname: string; indexdef: string }>`select indexname, indexdef from pg_indexes where schemaname = current_schema() and tablename = 'files' and indexdef like '%gin_trgm_ops%'`.execute(db);
    expect(indexes.rows.map((row) => row.indexname)).to.deep.equal(['files_search_text_trgm']);
    expect(indexes.rows[0]!.indexdef).to.match(/USING gin \(search_text \S*gin_trgm_ops, content_type, is_public\)$/);
    // The plan with the btree indexes of visibility and content type out of the way (dropped in a
    // transaction that is rolled back): the trigram index alone answers all three conditions.
    const text = await db.connection().execute(async (connection) => {
      await sql`begin`.execute(connection);
      try {
        await sql`drop index files_user_id_is_public_created_at_id`.execute(connection);
        await sql`drop index files_user_id_content_type`.execute(connection);
        await sql`set local enable_seqscan = off`.execute(connection);
        const plan = await sql<{ 'QUERY PLAN': string }>`explain (costs off) select id from files where search_text like '%holiday%' and content_type = 'image/png' and is_public = 0`.execute(connection);
        return plan.rows.map((row) => row['QUERY PLAN']).join('\n');
      } finally {
        await sql`rollback`.execute(connection);
      }
    });
    expect(text).to.match(/Bitmap Index Scan on files_search_text_trgm\s+Index Cond: \(\(search_text ~~ '%holiday%'::text\) AND \(content_type = 'image\/png'::text\) AND \(is_public = 0\)\)/);
  });

  it('finds the files stored before it by needle, content type and visibility, as a brute-force search does', async () => {
    // Pages and totals from the index (a probe of one file, counts never walking, no gram counts), for each owner.
    const files = new SqlFileRepository(new SqlExecutor(db), { postgresSearch: { probeFiles: 1, walkShare: Number.POSITIVE_INFINITY, gramCounts: false } });
    for (const userId of owners) {
      for (const needle of [...words.map((word) => word.toLowerCase()), 'olid', 'nothing']) {
        for (const type of [undefined, ...types]) {
          for (const isPublic of [undefined, true, false]) {
            const filter: FileFilter = { q: needle, ...(type === undefined ? {} : { type }), ...(isPublic === undefined ? {} : { isPublic }) };
            const expected = stored
              .filter((file) => file.userId === userId && fileSearchText(file).includes(needle) && (type === undefined || file.contentType === type) && (isPublic === undefined || file.isPublic === isPublic))
              .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())
              .map((file) => file.fileId);
            const page = await files.list({ userId, filter, window: { offset: 0, limit: 100 } });
            expect(page.items.map((file) => file.fileId), JSON.stringify(filter)).to.deep.equal(expected);
            expect(page.total, JSON.stringify(filter)).to.equal(expected.length);
          }
        }
      }
    }
  });
});
