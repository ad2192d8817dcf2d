// The upgrade path of the SQL schema: a database written by an earlier release, migrated in place.
import BetterSqlite3 from 'better-sqlite3';
import { expect } from 'chai';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { createSqlRepositories } from '../../adapters/persistence/sql/create-sql-repositories.js';
import { MIGRATION_NAMES, migrateToLatest, migrationsUpTo } from '../../adapters/persistence/sql/migrate.js';
import type { HangarDatabase } from '../../adapters/persistence/sql/schema.js';
import { aFile, matchesRangeFilter, T0 } from './persistence-fixtures.js';
import { createTestSchema, testDatabaseUrl } from '../support/test-database.js';
import { fileSearchNeedle, fileSearchText } from '../../adapters/persistence/file-search.js';
import { sql } from 'kysely';
import type { FileFilter } from '../../core/files/file-repository.js';

/** A private in-memory SQLite database with foreign keys on (as openSqliteDatabase opens one), and no migration run yet. */
function emptySqlite(): Kysely<HangarDatabase> {
  const database = new BetterSqlite3(':memory:');
  database.pragma('foreign_keys = ON');
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
      for (const [id, createdAt] of [
        [ada, 1],
        [bob, 2],
        [eve, 3],
      ] as const) {
        await db
          .insertInto('users')
          .values({
            id,
            email: `${id}@example.com`,
            password_hash: 'h',
            email_confirmed_at: null,
            max_upload_size_bytes: null,
            last_email_sent_at: null,
            created_at: createdAt,
            updated_at: createdAt,
          })
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
      await logs.insertMany([
        {
          id: '10000000-0000-4000-8000-000000000001',
          userId: ada,
          method: 'GET',
          path: '/',
          statusCode: 200,
          requestSizeBytes: null,
          createdAt: T0,
          metadata: {},
        },
      ]);
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
 * 0008_activity_log_totals on a database at 0007 that already holds activity log entries: each
 * account's total is its number of entries, and stays so as entries are added and pruned.
 */
function describeLogTotalsBackfill(
  dialect: string,
  open: () => Promise<{ db: Kysely<HangarDatabase>; migrationTableSchema?: string; close(): Promise<void> }>,
): void {
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
        await db
          .insertInto('users')
          .values({
            id,
            email: `${id}@example.com`,
            password_hash: 'h',
            email_confirmed_at: null,
            max_upload_size_bytes: null,
            last_email_sent_at: null,
            created_at: 1,
            updated_at: 1,
          })
          .execute();
      }
      const entry = (userId: string, i: number) => ({
        id: `10000000-0000-4000-8000-${userId.slice(-2)}${String(i).padStart(10, '0')}`,
        user_id: userId,
        method: 'GET',
        path: '/',
        status_code: 200,
        request_size_bytes: null,
        created_at: 1000 + i,
        metadata: '{}',
      });
      await db
        .insertInto('activity_logs')
        .values([...[0, 1, 2].map((i) => entry(ada, i)), entry(bob, 0)])
        .execute();
      expect(await migrateToLatest(db, migrationsUpTo('0008_activity_log_totals'), { migrationTableSchema })).to.deep.equal(['0008_activity_log_totals']);
      const { logs } = createSqlRepositories(db);
      const totals = async () => Promise.all([ada, bob, cid].map(async (userId) => (await logs.list({ userId, window: { offset: 0, limit: 1 } })).total));
      expect(await totals()).to.deep.equal([3, 1, 0]);
      await logs.insertMany([
        {
          id: '20000000-0000-4000-8000-000000000001',
          userId: cid,
          method: 'GET',
          path: '/',
          statusCode: 200,
          requestSizeBytes: null,
          createdAt: new Date(5000),
          metadata: {},
        },
      ]);
      expect(await logs.deleteBefore(new Date(1002))).to.equal(3);
      expect(await totals()).to.deep.equal([1, 0, 1]);
    });
  });
}

/** Names whose folded search text is awkward: combining marks, characters beyond the BMP, LIKE's metacharacters, case folds that change length. */
const AWKWARD_NAMES = [
  'Résumé.pdf',
  'e\u0301te\u0301.txt',
  '\u{1F4F7}\u{1F4F7}x.png',
  '100%_\\done',
  'İstanbul',
  'Straße',
  'ǅ',
  '\u{10400}\u{10428}',
  'a',
  '',
  null,
  'ａｂ',
  '\u{1F469}\u200D\u{1F4BB}',
  'it\'s "quoted" {braces},',
  'tab\tand spaces  ',
  'aaaa',
];

/**
 * 0042_search_on_database_indexes on a database at 0041 that holds files whose `search_text` was
 * folded the way before it (lower case and NFC, accents kept), with the old search structures in
 * place: they are gone afterwards, every `search_text` is folded again (accents dropped), and every
 * needle finds what a brute-force search of the new fold finds, through the new indexes.
 */
function describeSearchOnDatabaseIndexes(
  dialect: string,
  open: () => Promise<{ db: Kysely<HangarDatabase>; migrationTableSchema?: string; close(): Promise<void> }>,
): void {
  describe(`0042_search_on_database_indexes over files stored before it (${dialect})`, function () {
    this.timeout(60_000);
    const ada = '00000000-0000-4000-8000-00000000000a';
    let opened: Awaited<ReturnType<typeof open>>;
    let stored: ReturnType<typeof aFile>[];

    beforeEach(async () => {
      opened = await open();
      const { db, migrationTableSchema } = opened;
      await migrateToLatest(db, migrationsUpTo('0041_postgres_size_covering_index'), { migrationTableSchema });
      await db
        .insertInto('users')
        .values({
          id: ada,
          email: 'ada@example.com',
          password_hash: 'h',
          email_confirmed_at: null,
          max_upload_size_bytes: null,
          last_email_sent_at: null,
          created_at: 1,
          updated_at: 1,
        })
        .execute();
      stored = [...AWKWARD_NAMES, 'RÉSUMÉ 日本.pdf', 'がぎ.txt', 'Crème brûlée.jpg'].map((name, i) =>
        aFile(ada, { name, createdAt: new Date(T0.getTime() + i * 1000) }),
      );
      // As the release before 0042 stored them: its fold kept accents.
      await db
        .insertInto('files')
        .values(
          stored.map((file) => ({
            id: file.id,
            user_id: ada,
            file_id: file.fileId,
            name: file.name,
            content_type: file.contentType,
            size: file.size,
            sha256: file.sha256,
            is_public: file.isPublic ? 1 : 0,
            created_at: file.createdAt.getTime(),
            blob_key: file.blobKey,
            search_text: `${file.name ?? ''}\n${file.fileId}`.toLowerCase().normalize('NFC'),
            expires_at: null,
          })),
        )
        .execute();
      await db
        .insertInto('account_totals')
        .values({
          user_id: ada,
          storage_bytes: stored.reduce((sum, file) => sum + file.size, 0),
          files_count: stored.length,
          public_files_count: stored.filter((file) => file.isPublic).length,
        })
        .execute();
      // The later migrations run too; 0042 is the first of them.
      expect((await migrateToLatest(db, undefined, { migrationTableSchema }))[0]).to.equal('0042_search_on_database_indexes');
    });
    afterEach(async () => {
      await opened.close();
    });

    it('drops the old search structures and folds every search text again, accents dropped', async () => {
      const postgres = dialect === 'Postgres';
      const leftovers = postgres
        ? await sql<{
            name: string;
          }>`select table_name as name from information_schema.tables where table_schema = current_schema() and (table_name like 'file_gram%' or table_name = 'file_histogram')`.execute(
            opened.db,
          )
        : await sql<{ name: string }>`select name from sqlite_master where name like 'files_search%' or name = 'file_histogram'`.execute(opened.db);
      expect(leftovers.rows).to.deep.equal([]);
      const rows = await opened.db.selectFrom('files').select(['id', 'search_text']).execute();
      expect(new Map(rows.map((row) => [row.id, row.search_text]))).to.deep.equal(new Map(stored.map((file) => [file.id, fileSearchText(file)])));
      expect(rows.find((row) => row.search_text.startsWith('resume '))?.search_text).to.match(/^resume 日本\.pdf\n/);
    });

    it('finds the files stored before it by every needle, short and long, with or without accents, as a brute-force search does', async () => {
      const { files } = createSqlRepositories(opened.db);
      const texts = stored.map((file) => fileSearchText(file));
      const needles = new Set<string>(['resume', 'RÉSUMÉ', 'résumé 日本', 'creme brulee', 'が', 'か', 'ぎ.t', 'zq', '\u{1F4F7}', '%_\\']);
      for (const points of texts.map((text) => Array.from(text))) for (let i = 0; i + 3 <= points.length; i += 2) needles.add(points.slice(i, i + 3).join(''));
      for (const needle of needles) {
        const folded = fileSearchNeedle(needle);
        const expected = stored
          .filter((_, i) => folded !== undefined && texts[i].includes(folded))
          .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())
          .map((file) => file.fileId);
        const page = await files.list({ userId: ada, filter: { q: needle }, window: { offset: 0, limit: 100 } });
        expect(
          page.items.map((file) => file.fileId),
          JSON.stringify(needle),
        ).to.deep.equal(expected);
        expect(page.total, JSON.stringify(needle)).to.equal(expected.length);
      }
    });
  });
}

for (const describeBackfill of [describeLogTotalsBackfill, describeSearchOnDatabaseIndexes]) {
  describeBackfill('SQLite', async () => {
    const db = emptySqlite();
    return { db, close: () => db.destroy() };
  });
}

/**
 * A migration that makes list indexes covering (0035 on SQLite, 0037 on Postgres), run on a database
 * that holds files: `expectIndexes` checks the indexes it leaves; then, migrated to the latest
 * schema, every page (at every depth) and total of size, type, visibility and `q` filters over
 * those files is still the brute-force one.
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
  await db
    .insertInto('users')
    .values({
      id: ada,
      email: 'ada@example.com',
      password_hash: 'h',
      email_confirmed_at: null,
      max_upload_size_bytes: null,
      last_email_sent_at: null,
      created_at: 1,
      updated_at: 1,
    })
    .execute();
  // The transaction script: the one-statement upload of Postgres needs migration 0038's function.
  const { files: before } = createSqlRepositories(db, { files: { singleStatementInsert: false } });
  // Ties in upload time (every third file shares its neighbour's), sizes on both sides of each bound.
  const stored = Array.from({ length: 240 }, (_, i) =>
    aFile(ada, {
      name: i % 5 === 0 ? `cat-${i}.png` : `file-${i}.bin`,
      size: (i * 7919) % 5_000,
      createdAt: new Date(T0.getTime() + Math.floor(i / 3) * 1000),
      isPublic: i % 4 !== 0,
      contentType: TYPES[i % 3],
    }),
  );
  for (const file of stored) expect(await before.insert(file, { storageLimitBytes: Number.MAX_SAFE_INTEGER, fileCountLimit: 1_000 })).to.equal('inserted');

  expect(await migrateToLatest(db, migrationsUpTo(migration), { migrationTableSchema })).to.deep.equal([migration]);
  await expectIndexes();
  await migrateToLatest(db, undefined, { migrationTableSchema });

  const newestFirst = [...stored].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  {
    const { files } = createSqlRepositories(db);
    const filters: FileFilter[] = [
      { sizeMin: 2_500 },
      { sizeMin: 1_000, sizeMax: 3_000, isPublic: true },
      { type: 'image/png', sizeMax: 4_000 },
      { sizeMin: 100, createdBefore: new Date(T0.getTime() + 50_000) },
      { q: 'cat', isPublic: true },
      { q: 'cat', sizeMin: 1_000 },
      { sizeMin: 1_200, isPublic: false },
      { sizeMax: 3_333, type: 'image/jpeg', isPublic: true },
      {},
      { isPublic: true },
    ];
    for (const filter of filters) {
      const expected = newestFirst
        .filter((file) => matchesRangeFilter(file, ada, filter) && (filter.q === undefined || fileSearchText(file).includes(filter.q)))
        .map((file) => file.fileId);
      for (const offset of [0, 7, 30, 61, expected.length - 3, expected.length + 5]) {
        const page = await files.list({ userId: ada, filter, window: { offset, limit: 10 } });
        expect(
          page.items.map((file) => file.fileId),
          `${JSON.stringify(filter)} offset ${offset}`,
        ).to.deep.equal(expected.slice(offset, offset + 10));
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
        const indexes = await sql<{
          name: string;
        }>`select name from sqlite_master where type = 'index' and tbl_name = 'files' and (name like 'files_user_id_created_at_id%' or name like 'files_user_id_size%') order by name`.execute(
          db,
        );
        expect(indexes.rows.map((row) => row.name)).to.deep.equal([
          'files_user_id_created_at_id_is_public_size_content_type_search_text',
          'files_user_id_size_is_public_content_type',
        ]);
      });
    } finally {
      await db.destroy();
    }
  });
});

const postgresUrl = testDatabaseUrl();
for (const describeBackfill of postgresUrl === undefined ? [] : [describeLogTotalsBackfill, describeSearchOnDatabaseIndexes]) {
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
if (postgresUrl !== undefined)
  describe('0037_postgres_covering_list_index on a database that holds files (Postgres)', function () {
    this.timeout(60_000);

    it('replaces the list-order index by one that covers visibility, size and content type, and every page and total is still the brute-force page', async () => {
      const schema = await createTestSchema(postgresUrl);
      const db = new Kysely<HangarDatabase>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: schema.url, max: 2 }) }) });
      try {
        await expectCoveringListIndexesKeepPages(
          db,
          '0037_postgres_covering_list_index',
          async () => {
            const indexes = await sql<{
              indexname: string;
              indexdef: string;
            }>`select indexname, indexdef from pg_indexes where schemaname = current_schema() and tablename = 'files' and indexname like 'files_user_id_created_at_id%'`.execute(
              db,
            );
            expect(indexes.rows.map((row) => row.indexname)).to.deep.equal(['files_user_id_created_at_id_covering']);
            expect(indexes.rows[0].indexdef).to.match(/\(user_id, created_at, id\) INCLUDE \(is_public, size, content_type\)$/);
          },
          schema.schema,
        );
      } finally {
        await db.destroy();
        await schema.drop();
      }
    });
  });
