import { describeOneTimeTokenRepositoryContract } from './one-time-token-repository.contract.js';
import { onSqlite, openMemory, onPostgres } from './persistence-fixtures.js';
import { testDatabaseUrl } from '../support/test-database.js';

const postgres = testDatabaseUrl();

describeOneTimeTokenRepositoryContract('memory', async () => {
  const { tokens, users, close } = await openMemory();
  return { subject: tokens, users, close };
});

onSqlite((open) =>
  describeOneTimeTokenRepositoryContract('SQLite', async () => {
    const { tokens, users, close } = await open();
    return { subject: tokens, users, close };
  }),
);

if (postgres !== undefined) {
  onPostgres(postgres, (open) =>
    describeOneTimeTokenRepositoryContract('Postgres', async () => {
      const { tokens, users, close } = await open();
      return { subject: tokens, users, close };
    }),
  );
}
