// The upgrade path of the SQL schema: a database written by an earlier release, migrated in place.
import BetterSqlite3 from 'better-sqlite3';
import { expect } from 'chai';
import { Kysely, SqliteDialect } from 'kysely';
import { createSqlRepositories } from '../../adapters/persistence/sql/create-sql-repositories.js';
import { InCodeMigrationProvider, migrateToLatest, migrations } from '../../adapters/persistence/sql/migrations.js';
import type { HangarDatabase } from '../../adapters/persistence/sql/schema.js';
import { aFile, T0 } from './persistence-fixtures.js';

/** A private in-memory SQLite database with foreign keys on, and no migration run yet. */
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
    expect(await migrateToLatest(db)).to.deep.equal(Object.keys(migrations).sort());
    expect(await migrateToLatest(db)).to.deep.equal([]);
  });

  describe('0002_account_rules on a database of the first release', () => {
    const ada = '00000000-0000-4000-8000-00000000000a';
    const bob = '00000000-0000-4000-8000-00000000000b';
    const eve = '00000000-0000-4000-8000-00000000000e';

    beforeEach(async () => {
      expect(await migrateToLatest(db, new InCodeMigrationProvider({ '0001_initial': migrations['0001_initial'] }))).to.deep.equal(['0001_initial']);
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
      expect(await migrateToLatest(db)).to.deep.equal(Object.keys(migrations).sort().slice(1));
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
