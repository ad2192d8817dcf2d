// PostgresUploadBatches: uploads of one account that wait together are written by one statement.
import { expect } from 'chai';
import { CompiledQuery, type Kysely, type QueryResult } from 'kysely';
import type { InsertResult, QuotaLimits } from '../../core/files/file-repository.js';
import type { StoredFile } from '../../core/files/stored-file.js';
import { openPostgresDatabase, type PostgresDatabase } from '../../adapters/persistence/postgres/postgres-database.js';
import { createSqlRepositories } from '../../adapters/persistence/sql/create-sql-repositories.js';
import { POSTGRES_BATCH_INSERT_SQL, PostgresUploadBatches } from '../../adapters/persistence/sql/postgres-upload-batches.js';
import type { HangarDatabase } from '../../adapters/persistence/sql/schema.js';
import type { Repositories } from '../../adapters/persistence/repositories.js';
import { aFile, givenUser } from '../contracts/persistence-fixtures.js';
import { createTestSchema, testDatabaseUrl, type TestSchema } from '../support/test-database.js';

const url = testDatabaseUrl();
const ROOMY: QuotaLimits = { storageLimitBytes: 2 ** 40, fileCountLimit: 1_000_000 };

/** The statements `db` is asked to run, counted by text: a hand-written wrapper around the real database. */
function counting(db: Kysely<HangarDatabase>): { db: Kysely<HangarDatabase>; batches: () => number } {
  let batches = 0;
  const wrapper = {
    executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
      if (query.sql === POSTGRES_BATCH_INSERT_SQL) batches += 1;
      return db.executeQuery<R>(query);
    },
  };
  return { db: wrapper as unknown as Kysely<HangarDatabase>, batches: () => batches };
}

describe('PostgresUploadBatches', () => {
  it('answers every upload of a batch with the failure of its statement when the failure is not about one upload', async () => {
    const unavailable = Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });
    const db = { executeQuery: () => Promise.reject(unavailable) } as unknown as Kysely<HangarDatabase>;
    let alone = 0;
    const batches = new PostgresUploadBatches(db, async () => {
      alone += 1;
      return 'inserted';
    });
    const userId = '6f1c1a52-7a3e-4c1e-9f42-3b3f1c8e2a10';
    const settled = await Promise.allSettled(Array.from({ length: 5 }, () => batches.insert(aFile(userId), ROOMY)));
    expect(settled.map((s) => (s.status === 'rejected' ? s.reason : s.value))).to.deep.equal(Array(5).fill(unavailable));
    expect(alone).to.equal(0);
  });

  if (url === undefined) return;

  describe('on Postgres (TEST_DATABASE_URL)', function () {
    this.timeout(30_000);
    let schema: TestSchema;
    let database: PostgresDatabase;
    let repositories: Repositories;
    let userId: string;

    beforeEach(async () => {
      schema = await createTestSchema(url);
      database = await openPostgresDatabase({ url, poolSize: 4, schema: schema.schema });
      // One upload at a time: the single statement that a lone upload and a failed batch's uploads use.
      repositories = createSqlRepositories(database, { files: { uploadBatches: false } });
      userId = (await givenUser(repositories.users)).id;
    });
    afterEach(async () => {
      await database.close();
      await schema.drop();
    });

    /** Batches over the test's database, counting the uploads sent one at a time. */
    function batchesOf(options: { maxBatch?: number; maxInFlight?: number }) {
      const { db, batches } = counting(database.db);
      const counts = { alone: 0 };
      const subject = new PostgresUploadBatches(
        db,
        (file: StoredFile, limits: QuotaLimits): Promise<InsertResult> => {
          counts.alone += 1;
          return repositories.files.insert(file, limits);
        },
        options,
      );
      return { subject, batches, counts };
    }

    it('writes 20 uploads that wait together in statements of at most maxBatch, one running at a time', async () => {
      const { subject, batches, counts } = batchesOf({ maxBatch: 8, maxInFlight: 1 });
      const created = Array.from({ length: 20 }, (_, i) => aFile(userId, { size: i, isPublic: i % 3 === 0 }));
      expect(await Promise.all(created.map((file) => subject.insert(file, ROOMY)))).to.deep.equal(Array(20).fill('inserted'));
      expect(batches()).to.equal(3);
      expect(counts.alone).to.equal(0);
      for (const file of created) expect(await repositories.files.findByFileId(file.fileId)).to.deep.equal(file);
      expect(await repositories.files.totals(userId)).to.deep.equal({ storageBytes: 190, filesCount: 20 });
      const publicOnly = await repositories.files.list({ userId, filter: { isPublic: true }, window: { offset: 0, limit: 1 } });
      expect(publicOnly.total).to.equal(7);
    });

    it('sends a lone upload by the single statement', async () => {
      const { subject, batches, counts } = batchesOf({});
      expect(await subject.insert(aFile(userId), ROOMY)).to.equal('inserted');
      expect([batches(), counts.alone]).to.deep.equal([0, 1]);
    });

    it('sends a batch that the limits refuse partway again one upload at a time: exactly as many as fit', async () => {
      const { subject, batches, counts } = batchesOf({ maxInFlight: 1 });
      const limits = { storageLimitBytes: 2 ** 40, fileCountLimit: 5 };
      const results = await Promise.all(Array.from({ length: 12 }, () => subject.insert(aFile(userId, { size: 2 }), limits)));
      expect(results.filter((r) => r === 'inserted')).to.have.length(5);
      expect(results.filter((r) => r === 'file_count_limit_reached')).to.have.length(7);
      expect([batches(), counts.alone]).to.deep.equal([1, 12]);
      expect(await repositories.files.totals(userId)).to.deep.equal({ storageBytes: 10, filesCount: 5 });
    });

    it('keeps uploads of different accounts, or under different limits, in different statements', async () => {
      const { subject, batches, counts } = batchesOf({ maxInFlight: 1 });
      const otherId = (await givenUser(repositories.users)).id;
      const smaller = { storageLimitBytes: 2 ** 30, fileCountLimit: 100 };
      const uploads = [
        ...Array.from({ length: 3 }, () => subject.insert(aFile(userId), ROOMY)),
        ...Array.from({ length: 3 }, () => subject.insert(aFile(otherId), ROOMY)),
        ...Array.from({ length: 3 }, () => subject.insert(aFile(userId), smaller)),
      ];
      expect(await Promise.all(uploads)).to.deep.equal(Array(9).fill('inserted'));
      expect([batches(), counts.alone]).to.deep.equal([3, 0]);
      expect((await repositories.files.totals(userId)).filesCount).to.equal(6);
      expect((await repositories.files.totals(otherId)).filesCount).to.equal(3);
    });
  });
});
