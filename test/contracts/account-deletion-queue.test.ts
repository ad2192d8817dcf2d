import { describeAccountDeletionQueueContract } from './account-deletion-queue.contract.js';
import { openInMemorySqlite, openMemory, onPostgres } from './persistence-fixtures.js';
import { testDatabaseUrl } from '../support/test-database.js';

const postgres = testDatabaseUrl();

describeAccountDeletionQueueContract('memory', async () => {
  const { accountDeletions, close } = await openMemory();
  return { subject: accountDeletions, close };
});

describeAccountDeletionQueueContract('SQLite (:memory:)', async () => {
  const { accountDeletions, close } = await openInMemorySqlite();
  return { subject: accountDeletions, close };
});

if (postgres !== undefined) {
  onPostgres(postgres, (open) =>
    describeAccountDeletionQueueContract('Postgres', async () => {
      const { accountDeletions, close } = await open();
      return { subject: accountDeletions, close };
    }),
  );
}
