import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { sql } from 'kysely';
import { createSqlRepositories } from '../../adapters/persistence/sql/create-sql-repositories.js';
import { openSqliteDatabase, type SqliteDatabase } from '../../adapters/persistence/sqlite/sqlite-database.js';
import type { Repositories } from '../../adapters/persistence/repositories.js';
import { aFile, givenUser } from '../contracts/persistence-fixtures.js';

const ROOMY = { storageLimitBytes: 2 ** 40, fileCountLimit: 1_000_000 };

describe('SQLite trigram index of q (files_trigram, migration 0042)', function () {
  this.timeout(30_000);
  let dir: string;
  let database: SqliteDatabase;
  let repositories: Repositories;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'hangar-trigram-'));
    database = await openSqliteDatabase({ path: join(dir, 'hangar.db') });
    repositories = createSqlRepositories(database);
  });
  afterEach(async () => {
    await database.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** The file ids the trigram index itself finds for `needle` (3 code points or more, folded), sorted. */
  async function indexed(needle: string): Promise<string[]> {
    const { rows } = await sql<{ file_id: string }>`
      select f.file_id from files_trigram t cross join files_trigram_keys k cross join files f
      where files_trigram match ${`"${needle}"`} and k.key = t.rowid and f.id = k.file_record_id order by f.file_id`.execute(database.db);
    return rows.map((row) => row.file_id);
  }

  it('keeps the index right through insert, rename, delete and VACUUM, which may renumber the rowids of `files`', async () => {
    const user = await givenUser(repositories.users);
    const names = Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? `holiday-${i}.jpg` : `invoice-${i}.pdf`));
    const stored = names.map((name, i) => aFile(user.id, { name, fileId: `file${String(i).padStart(6, '0')}` }));
    for (const file of stored) expect(await repositories.files.insert(file, ROOMY)).to.equal('inserted');
    // Holes in the rowids of `files`, which VACUUM may close by renumbering.
    await repositories.files.deleteMany({ userId: user.id, fileIds: stored.filter((_, i) => i % 3 === 0).map((file) => file.fileId) });
    const live = stored.filter((_, i) => i % 3 !== 0);
    await repositories.files.update({ userId: user.id, fileId: live[0].fileId, changes: { name: 'Résumé.pdf' } });
    await sql`vacuum`.execute(database.db);
    const expected = (needle: string, names: (file: (typeof stored)[number]) => string) =>
      live
        .filter((file) => names(file).includes(needle))
        .map((file) => file.fileId)
        .sort();
    const nameNow = (file: (typeof stored)[number]) => (file.fileId === live[0].fileId ? 'resume.pdf' : file.name!);
    for (const needle of ['holiday', 'invoice', 'resume', 'y-1', '.pdf']) {
      expect(await indexed(needle), needle).to.deep.equal(expected(needle, nameNow));
      const page = await repositories.files.list({ userId: user.id, filter: { q: needle }, window: { offset: 0, limit: 100 } });
      expect(page.items.map((file) => file.fileId).sort(), needle).to.deep.equal(expected(needle, nameNow));
    }
    // A file added after the VACUUM is found too, and one deleted after it is not.
    const late = aFile(user.id, { name: 'holiday-late.jpg', fileId: 'file999999' });
    expect(await repositories.files.insert(late, ROOMY)).to.equal('inserted');
    await repositories.files.deleteMany({ userId: user.id, fileIds: [live[1].fileId] });
    const now = [...live.filter((file) => file !== live[1]), late];
    expect(await indexed('holiday')).to.deep.equal(
      now
        .filter((file) => file.name!.includes('holiday') && file !== live[0])
        .map((file) => file.fileId)
        .sort(),
    );
    const { rows } = await sql<{
      keys: number;
      files: number;
    }>`select (select count(*) from files_trigram_keys) as keys, (select count(*) from files) as files`.execute(database.db);
    expect(rows[0].keys).to.equal(rows[0].files);
  });

  it('drops the index entries of an account deleted with its files (foreign-key cascade), keeping the others', async () => {
    const [gone, kept] = [await givenUser(repositories.users), await givenUser(repositories.users)];
    expect(await repositories.files.insert(aFile(gone.id, { name: 'holiday-gone.jpg', fileId: 'file000001' }), ROOMY)).to.equal('inserted');
    expect(await repositories.files.insert(aFile(kept.id, { name: 'holiday-kept.jpg', fileId: 'file000002' }), ROOMY)).to.equal('inserted');
    await sql`delete from users where id = ${gone.id}`.execute(database.db);
    expect(await indexed('holiday')).to.deep.equal(['file000002']);
    const { rows } = await sql<{ keys: number }>`select count(*) as keys from files_trigram_keys`.execute(database.db);
    expect(rows[0].keys).to.equal(1);
  });
});
