import { describeFileRepositoryContract } from './file-repository.contract.js';
import { openInMemorySqlite, openMemory, onPostgres } from './persistence-fixtures.js';
import { testDatabaseUrl } from '../support/test-database.js';
import { openSqliteDatabase } from '../../adapters/persistence/sqlite/sqlite-database.js';
import { createSqlRepositories } from '../../adapters/persistence/sql/create-sql-repositories.js';

const postgres = testDatabaseUrl();

describeFileRepositoryContract('memory', async () => {
  const { files, users, close } = await openMemory();
  return { subject: files, users, close };
});

describeFileRepositoryContract('SQLite (:memory:)', async () => {
  const { files, users, close } = await openInMemorySqlite();
  return { subject: files, users, close };
});

describeFileRepositoryContract('SQLite (:memory:), written through a second repository', async () => {
  const { db, close } = await openSqliteDatabase({ path: ':memory:' });
  const { files, users } = createSqlRepositories(db);
  return { subject: files, users, other: createSqlRepositories(db).files, close };
});

if (postgres !== undefined) {
  onPostgres(postgres, (open) =>
    describeFileRepositoryContract('Postgres', async () => {
      const { files, users, close } = await open();
      return { subject: files, users, close };
    }),
  );
}
