import { describeFileRepositoryContract } from './file-repository.contract.js';
import { openInMemorySqlite, openMemory, openPostgres } from './persistence-fixtures.js';
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
  describeFileRepositoryContract('Postgres', async () => {
    const { files, users, close } = await openPostgres(postgres);
    return { subject: files, users, close };
  });
}
