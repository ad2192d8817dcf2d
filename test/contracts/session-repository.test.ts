import { describeSessionRepositoryContract } from './session-repository.contract.js';
import { openInMemorySqlite, openMemory, onPostgres } from './persistence-fixtures.js';
import { testDatabaseUrl } from '../support/test-database.js';

const postgres = testDatabaseUrl();

describeSessionRepositoryContract('memory', async () => {
  const { sessions, users, close } = await openMemory();
  return { subject: sessions, users, close };
});

describeSessionRepositoryContract('SQLite (:memory:)', async () => {
  const { sessions, users, close } = await openInMemorySqlite();
  return { subject: sessions, users, close };
});

if (postgres !== undefined) {
  onPostgres(postgres, (open) =>
    describeSessionRepositoryContract('Postgres', async () => {
      const { sessions, users, close } = await open();
      return { subject: sessions, users, close };
    }),
  );
}
