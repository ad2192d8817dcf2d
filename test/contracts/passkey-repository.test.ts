import { describePasskeyRepositoryContract } from './passkey-repository.contract.js';
import { openInMemorySqlite, openMemory, onPostgres } from './persistence-fixtures.js';
import { testDatabaseUrl } from '../support/test-database.js';

const postgres = testDatabaseUrl();

describePasskeyRepositoryContract('memory', async () => {
  const { passkeys, passkeyChallenges, users, close } = await openMemory();
  return { subject: passkeys, challenges: passkeyChallenges, users, close };
});

describePasskeyRepositoryContract('SQLite (:memory:)', async () => {
  const { passkeys, passkeyChallenges, users, close } = await openInMemorySqlite();
  return { subject: passkeys, challenges: passkeyChallenges, users, close };
});

if (postgres !== undefined) {
  onPostgres(postgres, (open) =>
    describePasskeyRepositoryContract('Postgres', async () => {
      const { passkeys, passkeyChallenges, users, close } = await open();
      return { subject: passkeys, challenges: passkeyChallenges, users, close };
    }),
  );
}
