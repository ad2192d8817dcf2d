import { expect } from 'chai';
import { sql } from 'kysely';
import { fileSearchGramsUpTo3 } from '../../adapters/persistence/file-search.js';
import { backfillFileGrams, countGramDays, FILE_GRAM_TABLES, foldFileGrams, gramDay } from '../../adapters/persistence/postgres/file-gram-counts.js';
import { openPostgresDatabase, type PostgresDatabase } from '../../adapters/persistence/postgres/postgres-database.js';
import { createSqlRepositories } from '../../adapters/persistence/sql/create-sql-repositories.js';
import type { Repositories } from '../../adapters/persistence/repositories.js';
import { aFile, at, givenUser, matchesRangeFilter } from '../contracts/persistence-fixtures.js';
import { SqlExecutor } from '../../adapters/persistence/sql/sql-executor.js';
import { SqlFileRepository } from '../../adapters/persistence/sql/sql-file-repository.js';
import type { FileFilter } from '../../core/files/file-repository.js';
import type { StoredFile } from '../../core/files/stored-file.js';
import { createTestSchema, testDatabaseUrl, type TestSchema } from '../support/test-database.js';

const url = testDatabaseUrl();
const ROOMY = { storageLimitBytes: 2 ** 40, fileCountLimit: 1_000_000 };
const DAY = 86_400_000;

type Counts = { grams: Record<string, number>; days: Record<string, number> };

/** `file_gram_days.content_type` of a file of `contentType` holding `gram`: the type when tracked for the gram, else the other types' row (''). */
function dayType(trackedTypes: ReadonlySet<string>, userId: string, gram: string, contentType: string): string {
  return trackedTypes.has(`${userId} ${gram} ${contentType}`) ? contentType : '';
}

/**
 * What the gram tables must hold for the files stored now: every gram by type and visibility; the
 * days of `tracked` grams, by content type for `trackedTypes` (user, gram, type), the others together.
 */
async function bruteForce(database: PostgresDatabase, tracked: ReadonlySet<string>, trackedTypes: ReadonlySet<string> = new Set()): Promise<Counts> {
  const { rows } = await sql<{ user_id: string; search_text: string; content_type: string; is_public: number; created_at: string }>`
    select user_id, search_text, content_type, is_public, created_at from files
  `.execute(database.db);
  const counts: Counts = { grams: {}, days: {} };
  for (const row of rows) {
    for (const gram of fileSearchGramsUpTo3(row.search_text)) {
      const key = `${row.user_id} ${gram} ${row.content_type} ${row.is_public}`;
      counts.grams[key] = (counts.grams[key] ?? 0) + 1;
      if (tracked.has(`${row.user_id} ${gram}`)) {
        const day = `${row.user_id} ${gram} ${dayType(trackedTypes, row.user_id, gram, row.content_type)} ${gramDay(Number(row.created_at))}`;
        counts.days[day] = (counts.days[day] ?? 0) + 1;
      }
    }
  }
  return counts;
}

/** The gram tables, rows of 0 files left out; with `pending`, the waiting changes added (what a search reads). */
async function stored(database: PostgresDatabase, pending: boolean): Promise<Counts & { tracked: Set<string>; trackedTypes: Set<string> }> {
  const { rows: grams } = await sql<{ user_id: string; gram: string; content_type: string; is_public: number; files: string }>`select * from file_grams`.execute(database.db);
  const { rows: days } = await sql<{ user_id: string; gram: string; content_type: string; day: string; files: string }>`select * from file_gram_days`.execute(database.db);
  const { rows: trackedRows } = await sql<{ user_id: string; gram: string }>`select * from file_grams_tracked`.execute(database.db);
  const tracked = new Set(trackedRows.map((row) => `${row.user_id} ${row.gram}`));
  const { rows: typeRows } = await sql<{ user_id: string; gram: string; content_type: string }>`select * from file_gram_types_tracked`.execute(database.db);
  const trackedTypes = new Set(typeRows.map((row) => `${row.user_id} ${row.gram} ${row.content_type}`));
  for (const row of typeRows) expect(tracked, 'a content type is tracked only for a tracked gram').to.include(`${row.user_id} ${row.gram}`);
  const counts: Counts = { grams: {}, days: {} };
  const add = (map: Record<string, number>, key: string, n: number) => {
    map[key] = (map[key] ?? 0) + n;
    if (map[key] === 0) delete map[key];
  };
  for (const row of grams) add(counts.grams, `${row.user_id} ${row.gram} ${row.content_type} ${row.is_public}`, Number(row.files));
  for (const row of days) add(counts.days, `${row.user_id} ${row.gram} ${row.content_type} ${row.day}`, Number(row.files));
  if (pending) {
    const { rows: changes } = await sql<{ user_id: string; search_text: string; content_type: string; is_public: number; created_at: string; delta: number }>`
      select * from file_gram_pending
    `.execute(database.db);
    const { rows: live } = await sql<{ id: string }>`select id from users`.execute(database.db);
    const accounts = new Set(live.map((row) => row.id));
    for (const change of changes.filter((c) => accounts.has(c.user_id))) {
      for (const gram of fileSearchGramsUpTo3(change.search_text)) {
        add(counts.grams, `${change.user_id} ${gram} ${change.content_type} ${change.is_public}`, Number(change.delta));
        if (tracked.has(`${change.user_id} ${gram}`)) {
          const type = dayType(trackedTypes, change.user_id, gram, change.content_type);
          add(counts.days, `${change.user_id} ${gram} ${type} ${gramDay(Number(change.created_at))}`, Number(change.delta));
        }
      }
    }
  }
  return { ...counts, tracked, trackedTypes };
}

async function pendingRows(database: PostgresDatabase): Promise<number> {
  const { rows } = await sql<{ n: string }>`select count(*) as n from file_gram_pending`.execute(database.db);
  return Number(rows[0]!.n);
}

async function foldAll(database: PostgresDatabase, trackFrom: number): Promise<void> {
  while ((await foldFileGrams(database.db, { trackFrom, wait: true })) > 0);
}

(url === undefined ? describe.skip : describe)('Postgres gram counts of `q` (migration 0036, file-gram-counts.ts)', function () {
  this.timeout(60_000);
  let schema: TestSchema;
  let database: PostgresDatabase;
  let repositories: Repositories;

  beforeEach(async () => {
    schema = await createTestSchema(url!);
    database = await openPostgresDatabase({ url: url!, poolSize: 4, schema: schema.schema, fileGramFolding: false });
    repositories = createSqlRepositories(database);
  });
  afterEach(async () => {
    await database?.close();
    await schema?.drop();
  });

  /** Files with names from a few letters (so grams repeat), over four days, two content types, both visibilities. */
  async function givenFiles(userId: string, count: number, seed: number) {
    const files = Array.from({ length: count }, (_, i) => {
      const n = seed + i * 7;
      return aFile(userId, {
        name: n % 7 === 5 ? null : `${['cat', 'Cab', 'éa', 'a.b', 'xcat', '', 'ab ab'][n % 7]}-${n % 5}`,
        contentType: n % 2 === 0 ? 'image/png' : 'text/plain',
        isPublic: n % 3 !== 0,
        createdAt: at((n % 4) * DAY + i),
      });
    });
    for (const file of files) expect(await repositories.files.insert(file, ROOMY)).to.equal('inserted');
    return files;
  }

  it('counts every gram by content type and visibility, and tracked grams by day, as brute force does: waiting, folded, and through renames, visibility changes, deletes and an account deletion', async () => {
    const alice = await givenUser(repositories.users);
    const bob = await givenUser(repositories.users);
    const aliceFiles = await givenFiles(alice.id, 30, 0);
    await givenFiles(bob.id, 12, 3);

    // Waiting only: nothing counted yet, and what a search adds up is exact.
    expect(await pendingRows(database)).to.equal(42);
    let now = await stored(database, true);
    expect(now.tracked.size).to.equal(0);
    expect({ grams: now.grams, days: now.days }).to.deep.equal(await bruteForce(database, now.tracked, now.trackedTypes));

    await foldAll(database, 5);
    expect(await pendingRows(database)).to.equal(0);
    now = await stored(database, false);
    expect(now.tracked.size, 'the commonest grams (20 per fold) are tracked').to.equal(20);
    expect({ grams: now.grams, days: now.days }).to.deep.equal(await bruteForce(database, now.tracked, now.trackedTypes));

    await repositories.files.update({ userId: alice.id, fileId: aliceFiles[0]!.fileId, changes: { name: 'zzz cat' } });
    await repositories.files.update({ userId: alice.id, fileId: aliceFiles[1]!.fileId, changes: { isPublic: !aliceFiles[1]!.isPublic } });
    await repositories.files.update({ userId: alice.id, fileId: aliceFiles[2]!.fileId, changes: { name: null, isPublic: false } });
    // Only the view counters: no change to count.
    await repositories.files.addReadCounts([{ fileId: aliceFiles[3]!.fileId, views: 2, downloads: 1 }]);
    await repositories.files.deleteMany({ userId: alice.id, fileIds: [aliceFiles[4]!.fileId, aliceFiles[5]!.fileId] });
    expect(await pendingRows(database)).to.equal(2 + 2 + 2 + 2);
    now = await stored(database, true);
    expect({ grams: now.grams, days: now.days }, 'folded and waiting').to.deep.equal(await bruteForce(database, now.tracked, now.trackedTypes));

    await foldAll(database, 5);
    now = await stored(database, false);
    expect(now.tracked.size).to.be.greaterThan(20);
    // The changed files offered their tracked grams' content types (`cat` is in 15 PNGs of
    // Alice's, and each of its grams with it): one fold tracks five of them, the commonest.
    expect(now.trackedTypes.size).to.equal(5);
    expect({ grams: now.grams, days: now.days }, 'folded').to.deep.equal(await bruteForce(database, now.tracked, now.trackedTypes));

    // An account deleted with changes still waiting: its counts go with it, its waiting changes are dropped by the fold.
    await givenFiles(bob.id, 3, 100);
    expect(await repositories.users.delete(bob.id)).to.equal(true);
    await foldAll(database, 5);
    expect(await pendingRows(database)).to.equal(0);
    now = await stored(database, false);
    expect(Object.keys(now.grams).some((key) => key.startsWith(bob.id))).to.equal(false);
    expect([...now.tracked].some((key) => key.startsWith(bob.id))).to.equal(false);
    expect({ grams: now.grams, days: now.days }).to.deep.equal(await bruteForce(database, now.tracked, now.trackedTypes));
  });

  it('counts by day the promoted grams that hold LIKE\'s wildcards and escape (%, _, \\) exactly, not the files they would match as patterns', async () => {
    const alice = await givenUser(repositories.users);
    const names = ['50%_off\\x', 'a_%\\b', '%_\\', 'plain'];
    for (let i = 0; i < 40; i++) {
      const file = aFile(alice.id, { name: names[i % names.length]!, createdAt: at((i % 5) * DAY + i) });
      expect(await repositories.files.insert(file, ROOMY)).to.equal('inserted');
    }
    // Batches of 8 (two files of each name): every batch offers the grams again to the promotions.
    while ((await foldFileGrams(database.db, { trackFrom: 5, batch: 8, wait: true })) > 0);
    const now = await stored(database, false);
    for (const gram of ['%', '_', '\\', '%_']) expect(now.tracked, gram).to.include(`${alice.id} ${gram}`);
    expect(now.days).to.deep.equal((await bruteForce(database, now.tracked, now.trackedTypes)).days);
  });

  it('counts the files stored before the migration: every gram, and by day every gram of at least the threshold (backfill)', async () => {
    const alice = await givenUser(repositories.users);
    await givenFiles(alice.id, 25, 1);
    for (const table of FILE_GRAM_TABLES) await sql`delete from ${sql.table(table)}`.execute(database.db);
    await backfillFileGrams(database.db, 4);
    const now = await stored(database, false);
    const all = await bruteForce(database, new Set());
    expect(now.grams).to.deep.equal(all.grams);
    const perGram = new Map<string, number>();
    for (const [key, n] of Object.entries(all.grams)) {
      const gram = key.split(' ').slice(0, 2).join(' ');
      perGram.set(gram, (perGram.get(gram) ?? 0) + n);
    }
    expect([...now.tracked].sort()).to.deep.equal([...perGram].filter(([, n]) => n >= 4).map(([gram]) => gram).sort());
    const perType = new Map<string, number>();
    for (const [key, n] of Object.entries(all.grams)) {
      const type = key.split(' ').slice(0, 3).join(' ');
      perType.set(type, (perType.get(type) ?? 0) + n);
    }
    // A type is tracked when it holds 4 of a tracked gram's files, unless it holds all of them.
    const types = [...perType]
      .filter(([type, n]) => {
        const gram = type.split(' ').slice(0, 2).join(' ');
        return n >= 4 && n < perGram.get(gram)! && now.tracked.has(gram);
      })
      .map(([type]) => type);
    expect(types.length).to.be.greaterThan(0);
    expect([...now.trackedTypes].sort()).to.deep.equal(types.sort());
    expect(now.days).to.deep.equal((await bruteForce(database, now.tracked, now.trackedTypes)).days);
  });

  it('counts the day rows anew by content type with changes still waiting (migration 0039), as brute force does', async () => {
    const alice = await givenUser(repositories.users);
    const bob = await givenUser(repositories.users);
    const aliceFiles = await givenFiles(alice.id, 30, 0);
    await givenFiles(bob.id, 20, 3);
    await foldAll(database, 4);
    // Waiting: an upload, a rename, a deletion, and the changes of an account deleted since.
    await givenFiles(alice.id, 3, 200);
    await repositories.files.update({ userId: alice.id, fileId: aliceFiles[0]!.fileId, changes: { name: 'a.b' } });
    await repositories.files.deleteMany({ userId: alice.id, fileIds: [aliceFiles[1]!.fileId] });
    await givenFiles(bob.id, 2, 300);
    expect(await repositories.users.delete(bob.id)).to.equal(true);
    expect(await pendingRows(database)).to.be.greaterThan(0);
    await countGramDays(database.db, 4);
    let now = await stored(database, true);
    expect(now.trackedTypes).to.include(`${alice.id} cat image/png`);
    expect(now.trackedTypes).to.include(`${alice.id} cat text/plain`);
    expect({ grams: now.grams, days: now.days }).to.deep.equal(await bruteForce(database, now.tracked, now.trackedTypes));
    await foldAll(database, 4);
    now = await stored(database, false);
    expect({ grams: now.grams, days: now.days }, 'folded after').to.deep.equal(await bruteForce(database, now.tracked, now.trackedTypes));
  });

  it('places deep pages of a needle with a tracked content type by day, alone and in an upload-time range, as a brute-force search does, folded and waiting', async () => {
    const alice = await givenUser(repositories.users);
    const types = ['image/png', 'image/jpeg', 'text/plain'];
    const early: StoredFile[] = [];
    for (let i = 0; i < 60; i++) {
      const contentType = types[i % 7 === 0 ? 2 : i % 2]!;
      const file = aFile(alice.id, {
        // `png` is only in PNGs: its one type holds all of its files.
        name: `${['cat', 'cab', 'act'][i % 3]}-${i}${contentType === 'image/png' ? '.png' : ''}`,
        // PNGs are most, plain text rare: `a` is tracked for PNG and JPEG, not for text.
        contentType,
        createdAt: at(((i * 5) % 6) * DAY + i * 1000),
      });
      expect(await repositories.files.insert(file, ROOMY)).to.equal('inserted');
      early.push(file);
    }
    // Files are offered to the promotions fold by fold: the grams first, their types at the next fold.
    while ((await foldFileGrams(database.db, { trackFrom: 10, batch: 6, wait: true })) > 0);
    const late: StoredFile[] = [];
    for (let i = 60; i < 70; i++) {
      const file = aFile(alice.id, { name: `cat-${i}`, contentType: types[i % 2]!, createdAt: at((i % 6) * DAY + i * 1000) });
      expect(await repositories.files.insert(file, ROOMY)).to.equal('inserted');
      late.push(file);
    }
    const now = await stored(database, true);
    for (const type of ['a image/png', 'a image/jpeg', 'ca image/png']) expect(now.trackedTypes).to.include(`${alice.id} ${type}`);
    expect(now.trackedTypes).to.not.include(`${alice.id} a text/plain`);
    expect(now.tracked).to.include(`${alice.id} png`);
    expect(now.trackedTypes, 'a type that holds every file of the gram: placed by the gram\'s days').to.not.include(`${alice.id} png image/png`);

    // Never walked from either end unless collecting costs more: placed by day where the counts can.
    const placing = new SqlFileRepository(new SqlExecutor(database.db), { postgresSearch: { walkFiles: 0 } });
    const check = async (files: StoredFile[]) => {
      const inListOrder = [...files].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (b.id < a.id ? -1 : 1));
      const filters: FileFilter[] = [
        { type: 'image/png' },
        { type: 'image/jpeg' },
        { type: 'text/plain' },
        { type: 'image/png', createdAfter: at(DAY + 1500), createdBefore: at(4 * DAY + 30_000) },
        { type: 'image/jpeg', createdAfter: at(2 * DAY) },
        { type: 'image/png', isPublic: true },
      ];
      for (const q of ['a', 'ca', 'cat', 't-', 'png', '.p']) {
        for (const filter of filters) {
          const all = inListOrder.filter((file) => `${file.name}\n${file.fileId}`.toLowerCase().includes(q) && matchesRangeFilter(file, alice.id, filter));
          for (let offset = 0; offset <= all.length; offset += 2) {
            const page = await placing.list({ userId: alice.id, filter: { ...filter, q }, window: { offset, limit: 3 } });
            expect({ ids: page.items.map((file) => file.fileId), total: page.total }, `${q} ${JSON.stringify(filter)} ${offset}`).to.deep.equal({
              ids: all.slice(offset, offset + 3).map((file) => file.fileId),
              total: all.length,
            });
          }
        }
      }
    };
    await check([...early, ...late]);
    await foldAll(database, 10);
    await repositories.files.deleteMany({ userId: alice.id, fileIds: [early[4]!.fileId, late[0]!.fileId] });
    await check([...early, ...late].filter((file) => file !== early[4] && file !== late[0]));
  });

  it('counts each change once when two processes fold at the same time (one fold at a time per schema)', async () => {
    const second = await openPostgresDatabase({ url: url!, poolSize: 2, schema: schema.schema, fileGramFolding: false });
    try {
      const alice = await givenUser(repositories.users);
      await givenFiles(alice.id, 40, 5);
      const folds = await Promise.all([
        ...[1, 2, 3].map(() => foldFileGrams(database.db, { batch: 7, trackFrom: 4 })),
        ...[1, 2, 3].map(() => foldFileGrams(second.db, { batch: 7, trackFrom: 4 })),
      ]);
      expect(folds.filter((n) => n > 0).length, 'the others found the lock taken').to.be.lessThan(6);
      await Promise.all([foldAll(database, 4), (async () => {
        while ((await foldFileGrams(second.db, { batch: 7, trackFrom: 4, wait: true })) > 0);
      })()]);
      expect(await pendingRows(database)).to.equal(0);
      const now = await stored(database, false);
      expect({ grams: now.grams, days: now.days }).to.deep.equal(await bruteForce(database, now.tracked, now.trackedTypes));
    } finally {
      await second.close();
    }
  });

  it('folds in the background when the database is opened as a server opens it, and vacuums the pending table after', async () => {
    const failures: Error[] = [];
    const served = await openPostgresDatabase({ url: url!, poolSize: 2, schema: schema.schema, onFileGramFoldFailed: (error) => failures.push(error) });
    try {
      const alice = await givenUser(repositories.users);
      await givenFiles(alice.id, 10, 2);
      const vacuumed = async () => {
        const { rows } = await sql<{ at: Date | null }>`select last_vacuum as at from pg_stat_user_tables where schemaname = current_schema() and relname = 'file_gram_pending'`.execute(database.db);
        return rows[0]?.at != null;
      };
      const deadline = Date.now() + 10_000;
      while (((await pendingRows(database)) > 0 || !(await vacuumed())) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(await pendingRows(database)).to.equal(0);
      expect(await vacuumed(), 'the folder vacuums the pending table after its folds').to.equal(true);
      expect(failures).to.deep.equal([]);
      const now = await stored(database, false);
      expect({ grams: now.grams, days: now.days }).to.deep.equal(await bruteForce(database, now.tracked, now.trackedTypes));
    } finally {
      await served.close();
    }
  });
});
