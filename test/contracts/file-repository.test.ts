import { describeFileRepositoryContract } from './file-repository.contract.js';
import { onSqlite, openMemory, onPostgres } from './persistence-fixtures.js';
import { testDatabaseUrl } from '../support/test-database.js';
import { openSqliteDatabase } from '../../adapters/persistence/sqlite/sqlite-database.js';
import { createSqlRepositories } from '../../adapters/persistence/sql/create-sql-repositories.js';
import { SqlFileRepository } from '../../adapters/persistence/sql/sql-file-repository.js';
import { SqlExecutor } from '../../adapters/persistence/sql/sql-executor.js';

const postgres = testDatabaseUrl();

describeFileRepositoryContract('memory', async () => {
  const { files, users, signingKeys, close } = await openMemory();
  return { subject: files, users, signingKeys, close };
});

onSqlite((open) =>
  describeFileRepositoryContract('SQLite', async () => {
    const { files, users, signingKeys, close } = await open();
    return { subject: files, users, signingKeys, close };
  }),
);

describeFileRepositoryContract('SQLite (:memory:), written through a second repository', async () => {
  const database = await openSqliteDatabase({ path: ':memory:' });
  const { files, users, signingKeys } = createSqlRepositories(database);
  return { subject: files, users, signingKeys, other: createSqlRepositories(database).files, close: database.close };
});

// SQLite chooses how to count and page each listing (listing-plan.ts); small test accounts always
// take one way, so each way is also forced on every listing: the same answers either way.
for (const way of ['index', 'list-order'] as const) {
  describeFileRepositoryContract(`SQLite (:memory:), every listing by way ${way}`, async () => {
    const database = await openSqliteDatabase({ path: ':memory:' });
    const { users, signingKeys } = createSqlRepositories(database);
    const subject = new SqlFileRepository(new SqlExecutor(database.db, { direct: database.direct }), { sqliteListingWay: way });
    return { subject, users, signingKeys, close: database.close };
  });
}

if (postgres !== undefined) {
  onPostgres(postgres, (open) =>
    describeFileRepositoryContract('Postgres', async () => {
      const { files, users, signingKeys, close } = await open();
      return { subject: files, users, signingKeys, close };
    }),
  );
}
