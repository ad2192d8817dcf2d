import { describeInviteRepositoryContract } from './invite-repository.contract.js';
import { openInMemorySqlite, openMemory, onPostgres } from './persistence-fixtures.js';
import { testDatabaseUrl } from '../support/test-database.js';

const postgres = testDatabaseUrl();

describeInviteRepositoryContract('memory', async () => {
  const { invites, close } = await openMemory();
  return { subject: invites, close };
});

describeInviteRepositoryContract('SQLite (:memory:)', async () => {
  const { invites, close } = await openInMemorySqlite();
  return { subject: invites, close };
});

if (postgres !== undefined) {
  onPostgres(postgres, (open) =>
    describeInviteRepositoryContract('Postgres', async () => {
      const { invites, close } = await open();
      return { subject: invites, close };
    }),
  );
}
