// The SQLite substring index of `q` (files_search, migrations 0032 and 0033): complete on every write
// path once the pending files are indexed, searches complete before that, filled for files stored
// before it, kept by a copy and VACUUM, and both ways of a search.
import { expect } from 'chai';
import fc from 'fast-check';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import type { StoredFile } from '../../core/files/stored-file.js';
import type { FileRepository } from '../../core/files/file-repository.js';
import { copyDatabase } from '../../adapters/persistence/sql/copy-database.js';
import { createSqlRepositories } from '../../adapters/persistence/sql/create-sql-repositories.js';
import { MIGRATION_NAMES, migrateToLatest, migrationsUpTo } from '../../adapters/persistence/sql/migrate.js';
import type { HangarDatabase } from '../../adapters/persistence/sql/schema.js';
import { SqlExecutor } from '../../adapters/persistence/sql/sql-executor.js';
import { SqlFileRepository } from '../../adapters/persistence/sql/sql-file-repository.js';
import { FILE_SEARCH_PENDING_TABLE, FILE_SEARCH_TABLE, flushFileSearch, SqliteFileSearch } from '../../adapters/persistence/sql/sqlite-file-search.js';
import { accountKey, fileSearchDocument, rangeTokens, registerFileSearchFunction } from '../../adapters/persistence/sqlite/file-search-tokens.js';
import { DAY_MS, sizeBucket } from '../../adapters/persistence/sql/file-histogram.js';
import { openSqliteDatabase, type SqliteDatabase } from '../../adapters/persistence/sqlite/sqlite-database.js';
import { aFile, aUser, at } from '../contracts/persistence-fixtures.js';

const ROOMY = { storageLimitBytes: 1024 ** 4, fileCountLimit: 1_000_000 };

/**
 * Whether the index holds exactly one document per file, each the file's current one: the rowids
 * of the table equal those of `files`, and each file is found by the AND of all its tokens.
 * @returns the number of files
 */
async function expectIndexComplete(db: Kysely<HangarDatabase>): Promise<number> {
  await flushFileSearch(db);
  expect(await pendingFiles(db), 'files waiting to be indexed').to.equal(0);
  const files = (await sql<{ r: number; user_id: string; search_text: string; content_type: string; is_public: number; size: number; created_at: number }>`
    select rowid as r, user_id, search_text, content_type, is_public, size, created_at from files order by rowid`.execute(db)).rows;
  const indexed = (await sql<{ r: number }>`select rowid as r from ${sql.table(FILE_SEARCH_TABLE)} order by rowid`.execute(db)).rows;
  expect(indexed.map((row) => row.r), 'one document per file').to.deep.equal(files.map((row) => row.r));
  // Every file's document when they are few, one in 50 otherwise.
  for (const file of files.filter((_, i) => files.length <= 100 || i % 50 === 0)) {
    const document = fileSearchDocument({
      userId: file.user_id, searchText: file.search_text, contentType: file.content_type, isPublic: file.is_public, size: file.size, createdAtMs: file.created_at,
    });
    const match = document.split(' ').map((token) => `"${token}"`).join(' ');
    const found = (await sql<{ r: number }>`select rowid as r from ${sql.table(FILE_SEARCH_TABLE)}(${match})`.execute(db)).rows.map((row) => row.r);
    expect(found, `the document of ${file.search_text}`).to.include(file.r);
  }
  return files.length;
}

/** How many files wait to be indexed. */
async function pendingFiles(db: Kysely<HangarDatabase>): Promise<number> {
  return Number((await sql<{ n: number }>`select count(*) as n from ${sql.table(FILE_SEARCH_PENDING_TABLE)}`.execute(db)).rows[0]!.n);
}

/** The file ids `files` lists for `q` (and the rest of `filter`), one page of 100, and the total. */
async function search(files: FileRepository, userId: string, filter: Record<string, unknown>, countLimit?: number) {
  const page = await files.list({ userId, filter, window: { offset: 0, limit: 100 }, countLimit });
  return { ids: page.items.map((file) => file.fileId), total: page.total, relation: page.totalRelation ?? 'eq' };
}

describe('SQLite search index (files_search)', () => {
  let database: SqliteDatabase;
  let repositories: ReturnType<typeof createSqlRepositories>;

  beforeEach(async () => {
    database = await openSqliteDatabase({ path: ':memory:' });
    repositories = createSqlRepositories(database);
  });
  afterEach(async () => {
    await database.close();
  });

  async function givenFiles(userId: string, overrides: Partial<StoredFile>[]): Promise<StoredFile[]> {
    const created = overrides.map((o) => aFile(userId, o));
    for (const file of created) expect(await repositories.files.insert(file, ROOMY)).to.equal('inserted');
    return created;
  }

  it('finds a file by q from its upload on, before and after it is indexed, and keeps it found through a rename and a delete of either kind', async () => {
    const ada = aUser();
    await repositories.users.create(ada);
    const [indexed, other] = await givenFiles(ada.id, [{ name: 'cat-indexed.png', createdAt: at(1000) }, { name: 'dog.png', createdAt: at(1500) }]);
    await flushFileSearch(database.db);
    const [waiting] = await givenFiles(ada.id, [{ name: 'cat-waiting.png', createdAt: at(2000) }]);
    expect(await pendingFiles(database.db)).to.equal(1);
    expect(await search(repositories.files, ada.id, { q: 'cat' })).to.deep.equal({ ids: [waiting!.fileId, indexed!.fileId], total: 2, relation: 'eq' });
    expect((await search(repositories.files, ada.id, { q: 'at-', type: 'application/pdf', isPublic: true })).ids).to.deep.equal([waiting!.fileId, indexed!.fileId]);
    // A rename of an indexed file takes it out of the index until it is indexed again: still found.
    await repositories.files.update({ userId: ada.id, fileId: other!.fileId, changes: { name: 'cat-renamed.png' } });
    expect(await pendingFiles(database.db)).to.equal(2);
    expect((await search(repositories.files, ada.id, { q: 'cat' })).total).to.equal(3);
    expect((await search(repositories.files, ada.id, { q: 'dog' })).total).to.equal(0);
    await repositories.files.deleteMany({ userId: ada.id, fileIds: [waiting!.fileId, indexed!.fileId] });
    expect(await pendingFiles(database.db)).to.equal(1);
    expect((await search(repositories.files, ada.id, { q: 'cat' })).ids).to.deep.equal([other!.fileId]);
    expect(await expectIndexComplete(database.db)).to.equal(1);
    expect((await search(repositories.files, ada.id, { q: 'cat' })).ids).to.deep.equal([other!.fileId]);
  });

  it('indexes the waiting files in the background within a second, in memory and in a file (on the checkpoint worker)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hangar-search-'));
    const onFile = await openSqliteDatabase({ path: join(dir, 'hangar.db') });
    try {
      for (const opened of [database, onFile]) {
        const repos = createSqlRepositories(opened);
        const ada = aUser();
        await repos.users.create(ada);
        for (const file of Array.from({ length: 50 }, (_, i) => aFile(ada.id, { name: `report-${i}.pdf` }))) await repos.files.insert(file, ROOMY);
        const deadline = Date.now() + 1_000;
        while ((await pendingFiles(opened.db)) > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
        expect(await pendingFiles(opened.db), 'files still waiting after 1 s').to.equal(0);
        expect(await expectIndexComplete(opened.db)).to.equal(50);
        expect((await search(repos.files, ada.id, { q: 'report-4' })).total).to.equal(11);
      }
    } finally {
      await onFile.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('drops the documents of an account deleted with its files (foreign-key cascade), keeping the others', async () => {
    const ada = aUser();
    const bob = aUser();
    await repositories.users.create(ada);
    await repositories.users.create(bob);
    await givenFiles(ada.id, [{ name: 'cat.png' }, { name: 'dog.png' }]);
    const [bobs] = await givenFiles(bob.id, [{ name: 'cat-too.png' }]);
    expect(await repositories.users.delete(ada.id)).to.equal(true);
    expect(await expectIndexComplete(database.db)).to.equal(1);
    expect((await search(repositories.files, bob.id, { q: 'cat' })).ids).to.deep.equal([bobs!.fileId]);
  });

  it('follows renames and visibility changes: found by the new name and visibility only', async () => {
    const ada = aUser();
    await repositories.users.create(ada);
    const [file] = await givenFiles(ada.id, [{ name: 'holiday-summer.png', isPublic: true }]);
    await repositories.files.update({ userId: ada.id, fileId: file!.fileId, changes: { name: 'invoice-winter.png' } });
    await expectIndexComplete(database.db);
    expect((await search(repositories.files, ada.id, { q: 'invoice-winter' })).ids).to.deep.equal([file!.fileId]);
    expect((await search(repositories.files, ada.id, { q: 'nv' })).ids).to.deep.equal([file!.fileId]);
    await repositories.files.update({ userId: ada.id, fileId: file!.fileId, changes: { isPublic: false } });
    await expectIndexComplete(database.db);
    expect((await search(repositories.files, ada.id, { q: 'invoice-winter' })).ids).to.deep.equal([file!.fileId]);
    expect((await search(repositories.files, ada.id, { q: 'wi', isPublic: false })).ids).to.deep.equal([file!.fileId]);
    expect((await search(repositories.files, ada.id, { q: 'wi', isPublic: true })).ids).to.deep.equal([]);
    expect((await search(repositories.files, ada.id, { q: 'holiday' })).ids).to.deep.equal([]);
  });

  it('answers the same whether the candidates are at most the limit or more: page, exact total, and totals past countLimit', async () => {
    const ada = aUser();
    const bob = aUser();
    await repositories.users.create(ada);
    await repositories.users.create(bob);
    const cats = await givenFiles(ada.id, Array.from({ length: 8 }, (_, i) => ({ name: `cat-${i}.png`, createdAt: at(i * 1000), contentType: i % 2 ? 'image/png' : 'text/plain' })));
    await givenFiles(ada.id, [{ name: 'rare-owl.png', createdAt: at(9000) }, { name: 'cap.png' }]);
    await givenFiles(bob.id, [{ name: 'cat-of-bob.png' }]);
    const newestFirst = cats.map((file) => file.fileId).reverse();
    const executor = new SqlExecutor(database.db, { direct: database.direct });
    const walked = new SqlFileRepository(executor, { sqliteSearch: false });
    const queries: [Record<string, unknown>, number | undefined][] = [
      [{ q: 'cat' }, undefined], [{ q: 'cat' }, 5], [{ q: 'ca' }, 20], [{ q: 'c' }, 4], [{ q: 'cat-', type: 'image/png' }, 3],
      [{ q: 'cat-', createdAfter: at(5000) }, 2], [{ q: 'cat', isPublic: true }, 2], [{ q: 'owl' }, 2], [{ q: 'dog' }, 2], [{ q: 'p' }, undefined],
      [{ q: 'cat', sizeMin: 5, sizeMax: 5_000 }, 3], [{ q: 'c', createdBefore: at(4500), isPublic: true }, undefined], [{ q: 'cat', sizeMin: 10, sizeMax: 5 }, undefined],
    ];
    for (const candidateLimit of [100, 3]) {
      const files = new SqlFileRepository(executor, { sqliteSearch: { candidateLimit } });
      for (const [filter, countLimit] of queries) {
        expect(await search(files, ada.id, filter, countLimit), `${JSON.stringify(filter)} ${countLimit} with candidate limit ${candidateLimit}`).to.deep.equal(
          await search(walked, ada.id, filter, countLimit),
        );
      }
      expect(await search(files, ada.id, { q: 'cat' }, 5)).to.deep.equal({ ids: newestFirst, total: 5, relation: 'gte' });
      expect(await search(files, ada.id, { q: 'cat-', type: 'image/png' })).to.deep.equal({ ids: newestFirst.filter((_, i) => i % 2 === 0), total: 4, relation: 'eq' });
    }
  });

  it('places deep pages of a needle of up to 3 characters by upload day: every page as skipping gives, with type and visibility, files indexed and waiting', async () => {
    const ada = aUser();
    const bob = aUser();
    await repositories.users.create(ada);
    await repositories.users.create(bob);
    const DAY0 = Date.UTC(2024, 0, 1);
    // Uploads over three years: several a day, gaps of days and years, ties on a day's last and first millisecond.
    const times = [
      ...Array.from({ length: 30 }, (_, i) => DAY0 + Math.floor(i / 3) * 37 * DAY_MS + (i % 3) * 3_600_000),
      DAY0 + DAY_MS - 1, DAY0 + DAY_MS - 1, DAY0 + DAY_MS, DAY0 - 1, DAY0 + 900 * DAY_MS, DAY0 - 400 * DAY_MS,
    ];
    const names = ['cat.png', 'Cap.txt', 'dog.png', 'ca-t.pdf', 'éca.png', null];
    const overrides = times.map((time, i) => ({
      name: names[i % names.length]!,
      fileId: `F${String(i).padStart(8, '0')}x`,
      createdAt: new Date(time),
      contentType: i % 2 ? 'image/png' : 'text/plain',
      isPublic: i % 3 !== 0,
    }));
    await givenFiles(ada.id, overrides.slice(0, 20));
    await givenFiles(bob.id, times.map((time) => ({ name: 'cat.png', createdAt: new Date(time) })));
    await flushFileSearch(database.db);
    // The rest wait to be indexed, and so does a renamed indexed file.
    const waiting = await givenFiles(ada.id, overrides.slice(20));
    await repositories.files.update({ userId: ada.id, fileId: 'F00000003x', changes: { name: 'cat-renamed' } });
    expect(await pendingFiles(database.db)).to.be.above(waiting.length);
    const executor = new SqlExecutor(database.db, { direct: database.direct });
    const walked = new SqlFileRepository(executor, { sqliteSearch: false });
    const placing = new SqlFileRepository(executor, { sqliteSearch: { candidateLimit: 1 }, seekFromOffset: 1 });
    const wrong: string[] = [];
    const filters = [{ q: 'ca' }, { q: 'C' }, { q: 'cat' }, { q: 'a', type: 'image/png' }, { q: 'ca', isPublic: false }, { q: 'é', type: 'text/plain', isPublic: true }, { q: 'x' }];
    for (const filter of filters) {
      const all = (await walked.list({ userId: ada.id, filter, window: { offset: 0, limit: 100 } })).items.map((file) => file.fileId);
      for (let offset = 0; offset <= all.length + 1; offset++) {
        for (const limit of [1, 4]) {
          const page = (await placing.list({ userId: ada.id, filter, window: { offset, limit } })).items.map((file) => file.fileId);
          if (JSON.stringify(page) !== JSON.stringify(all.slice(offset, offset + limit))) wrong.push(`${JSON.stringify(filter)} ${offset} ${limit}: ${page} instead of ${all.slice(offset, offset + limit)}`);
        }
      }
    }
    expect(wrong, 'pages that differ from skipping').to.deep.equal([]);

    // The day that holds the match, and the matches of that day before it (ties ordered by id).
    const search = new SqliteFileSearch(executor, ['id', 'file_id', 'created_at']);
    // The account's files per day, as file_histogram's day rows give them.
    const perDay = new Map<number, number>();
    for (const time of times) perDay.set(Math.floor(time / DAY_MS), (perDay.get(Math.floor(time / DAY_MS)) ?? 0) + 1);
    const dayFiles = async () => [...perDay].map(([bucket, files]) => ({ bucket, files }));
    const cats = (await walked.list({ userId: ada.id, filter: { q: 'cat' }, window: { offset: 0, limit: 100 } })).items;
    for (let offset = 0; offset < cats.length; offset++) {
      const day = Math.floor(cats[offset]!.createdAt.getTime() / DAY_MS);
      const sameDayBefore = cats.slice(0, offset).filter((file) => Math.floor(file.createdAt.getTime() / DAY_MS) === day).length;
      expect(await search.place({ userId: ada.id, filter: { q: 'cat' }, offset, dayFiles }), `offset ${offset}`).to.deep.equal({ before: (day + 1) * DAY_MS - 1, offset: sameDayBefore });
    }
    expect(await search.place({ userId: ada.id, filter: { q: 'cat' }, offset: cats.length, dayFiles })).to.equal(undefined);
    // Not placed: longer needles and other filters.
    expect(await search.place({ userId: ada.id, filter: { q: 'cat.' }, offset: 1, dayFiles })).to.equal(undefined);
    expect(await search.place({ userId: ada.id, filter: { q: 'cat', sizeMin: 1 }, offset: 1, dayFiles })).to.equal(undefined);
  });

  it('indexes VACUUMed and copied databases: rowids kept by VACUUM, documents written by the copy into SQLite', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hangar-search-'));
    try {
      const source = await openSqliteDatabase({ path: join(dir, 'source.db') });
      const sourceRepositories = createSqlRepositories(source);
      const ada = aUser();
      await sourceRepositories.users.create(ada);
      const files = Array.from({ length: 30 }, (_, i) => aFile(ada.id, { name: `scan-${i}.pdf`, createdAt: at(i) }));
      for (const file of files) await sourceRepositories.files.insert(file, ROOMY);
      await sourceRepositories.files.deleteMany({ userId: ada.id, fileIds: files.filter((_, i) => i % 3 === 0).map((file) => file.fileId) });
      await sql`vacuum`.execute(source.db);
      expect(await expectIndexComplete(source.db)).to.equal(20);
      const copy = await openSqliteDatabase({ path: join(dir, 'copy.db') });
      try {
        await copyDatabase({ from: source.db, to: copy.db });
        expect(await expectIndexComplete(copy.db)).to.equal(20);
        expect((await search(createSqlRepositories(copy).files, ada.id, { q: 'scan-2' })).total).to.equal(8);
      } finally {
        await copy.close();
        await source.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('range tokens of the search index', () => {
  const key = accountKey('someone');
  /** Whether the file's document has a token of `cover` (the FTS OR would select it). */
  const selected = (cover: string[], file: { size: number; createdAtMs: number }) => {
    const document = new Set(fileSearchDocument({ userId: 'someone', searchText: 'x', contentType: 'text/plain', isPublic: 1, ...file }).split(' '));
    return cover.some((token) => document.has(token));
  };

  it('select every file in a date range, and none outside the days it touches (property)', () => {
    const day = fc.integer({ min: -40_000, max: 40_000 });
    const ms = fc.tuple(day, fc.integer({ min: 0, max: DAY_MS - 1 })).map(([d, within]) => d * DAY_MS + within);
    fc.assert(
      fc.property(fc.option(ms, { nil: undefined }), fc.option(ms, { nil: undefined }), ms, (from, to, createdAtMs) => {
        const cover = rangeTokens(key, 'day', from, to)!;
        const inRange = (from === undefined || createdAtMs >= from) && (to === undefined || createdAtMs <= to);
        const onTouchedDay = (from === undefined || Math.floor(createdAtMs / DAY_MS) >= Math.floor(from / DAY_MS)) && (to === undefined || Math.floor(createdAtMs / DAY_MS) <= Math.floor(to / DAY_MS));
        const hit = selected(cover, { size: 1, createdAtMs });
        if (inRange) expect(hit, 'in the range').to.equal(true);
        if (!onTouchedDay) expect(hit, 'outside the days of the range').to.equal(false);
      }),
      { numRuns: 2_000 },
    );
  });

  it('select every file in a size range, and none outside the size classes it touches (property)', () => {
    const size = fc.oneof(fc.integer({ min: 0, max: 5_000 }), fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), fc.constantFrom(0, 1, 31, 32, 33, 2 ** 32, Number.MAX_SAFE_INTEGER));
    fc.assert(
      fc.property(fc.option(size, { nil: undefined }), fc.option(size, { nil: undefined }), size, (from, to, bytes) => {
        const cover = rangeTokens(key, 'size', from, to)!;
        const inRange = (from === undefined || bytes >= from) && (to === undefined || bytes <= to);
        const touched = (from === undefined || sizeBucket(bytes) >= sizeBucket(from)) && (to === undefined || sizeBucket(bytes) <= sizeBucket(to));
        const hit = selected(cover, { size: bytes, createdAtMs: 0 });
        if (inRange) expect(hit, 'in the range').to.equal(true);
        if (!touched) expect(hit, 'outside the classes of the range').to.equal(false);
      }),
      { numRuns: 2_000 },
    );
  });
});

describe('migration 0032_sqlite_file_search', () => {
  it('indexes the files stored before it, and the triggers keep them indexed afterwards', async () => {
    const connection = new BetterSqlite3(':memory:');
    connection.pragma('foreign_keys = ON');
    registerFileSearchFunction(connection);
    const db = new Kysely<HangarDatabase>({ dialect: new SqliteDialect({ database: connection }) });
    try {
      await migrateToLatest(db, migrationsUpTo('0031_search_grams'));
      const { users, files } = createSqlRepositories(db);
      const ada = aUser();
      await users.create(ada);
      const before = Array.from({ length: 2_500 }, (_, i) => aFile(ada.id, { name: i === 7 ? 'Résumé 2024.pdf' : `file-${i}.bin`, createdAt: at(i) }));
      for (const file of before) expect(await files.insert(file, ROOMY)).to.equal('inserted');
      expect(await migrateToLatest(db)).to.deep.equal(MIGRATION_NAMES.filter((name) => name >= '0032'));
      expect(await pendingFiles(db), 'every file stored before is indexed by the migration').to.equal(0);
      expect(await expectIndexComplete(db)).to.equal(2_500);
      expect((await search(files, ada.id, { q: 'RÉSUMÉ' })).ids).to.deep.equal([before[7]!.fileId]);
      expect((await search(files, ada.id, { q: 'é' })).ids).to.deep.equal([before[7]!.fileId]);
      const [later] = [aFile(ada.id, { name: 'résumé-new.pdf', createdAt: at(10_000) })];
      await files.insert(later!, ROOMY);
      expect((await search(files, ada.id, { q: 'résumé' })).ids).to.deep.equal([later!.fileId, before[7]!.fileId]);
    } finally {
      await db.destroy();
    }
  });

  it('lets a connection without the function write files, which wait until a connection with it indexes them', async () => {
    const connection = new BetterSqlite3(':memory:');
    const db = new Kysely<HangarDatabase>({ dialect: new SqliteDialect({ database: connection }) });
    try {
      await migrateToLatest(db);
      const { users, files } = createSqlRepositories(db);
      const ada = aUser();
      await users.create(ada);
      const file = aFile(ada.id, { name: 'owl.png' });
      expect(await files.insert(file, ROOMY)).to.equal('inserted');
      let failure: unknown;
      await flushFileSearch(db).catch((error: unknown) => (failure = error));
      expect(String(failure)).to.match(/no such function/);
      expect(await pendingFiles(db), 'nothing lost by the failed batch').to.equal(1);
      expect((await search(files, ada.id, { q: 'owl' })).ids).to.deep.equal([file.fileId]);
      registerFileSearchFunction(connection);
      expect(await expectIndexComplete(db)).to.equal(1);
    } finally {
      await db.destroy();
    }
  });
});
