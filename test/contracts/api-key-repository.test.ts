import { describeApiKeyRepositoryContract } from './api-key-repository.contract.js';
import { onSqlite, openMemory, onPostgres } from './persistence-fixtures.js';
import { testDatabaseUrl } from '../support/test-database.js';

const postgres = testDatabaseUrl();

describeApiKeyRepositoryContract('memory', async () => {
  const { apiKeys, users, close } = await openMemory();
  return { subject: apiKeys, users, close };
});

onSqlite((open) =>
  describeApiKeyRepositoryContract('SQLite', async () => {
    const { apiKeys, users, close } = await open();
    return { subject: apiKeys, users, close };
  }),
);

if (postgres !== undefined) {
  onPostgres(postgres, (open) =>
    describeApiKeyRepositoryContract('Postgres', async () => {
      const { apiKeys, users, close } = await open();
      return { subject: apiKeys, users, close };
    }),
  );
}
