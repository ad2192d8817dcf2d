import { describeFileRepositoryContract } from './file-repository.contract.js';
import { openInMemorySqlite, openMemory, onPostgres } from './persistence-fixtures.js';
import { testDatabaseUrl } from '../support/test-database.js';

const postgres = testDatabaseUrl();

describeFileRepositoryContract('memory', async () => {
  const { files, users, close } = await openMemory();
  return { subject: files, users, close };
});

describeFileRepositoryContract('SQLite (:memory:)', async () => {
  const { files, users, close } = await openInMemorySqlite();
  return { subject: files, users, close };
});

if (postgres !== undefined) {
  onPostgres(postgres, (open) =>
    describeFileRepositoryContract('Postgres', async () => {
      const { files, users, close } = await open();
      return { subject: files, users, close };
    }),
  );
}
