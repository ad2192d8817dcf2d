import { describeSessionRepositoryContract } from './session-repository.contract.js';
import { openInMemorySqlite, openMemory, openPostgres } from './persistence-fixtures.js';
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
  describeSessionRepositoryContract('Postgres', async () => {
    const { sessions, users, close } = await openPostgres(postgres);
    return { subject: sessions, users, close };
  });
}
