import { describeFileRepositoryContract } from './file-repository.contract.js';
import { onPostgres } from './persistence-fixtures.js';
import { testDatabaseUrl } from '../support/test-database.js';

// The file repository's contract on Postgres (with TEST_DATABASE_URL; docs/tests.md), apart from
// the other adapters' (file-repository.test.ts) so that a parallel run can run them side by side.
const postgres = testDatabaseUrl();

if (postgres !== undefined) {
  onPostgres(postgres, (open) =>
    describeFileRepositoryContract('Postgres', async () => {
      const { files, users, signingKeys, close } = await open();
      return { subject: files, users, signingKeys, close };
    }),
  );
}
