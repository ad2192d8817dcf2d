import { testDatabaseUrl } from '../support/test-database.js';
import { openInMemorySqlite, openMemory, onPostgres, type OpenedRepositories } from './persistence-fixtures.js';
import { describeUsageRepositoryContract, type UsageRepositorySubject } from './usage-repository.contract.js';

const postgres = testDatabaseUrl();

function subjectOf({ usage, users, close }: OpenedRepositories): UsageRepositorySubject {
  return { subject: usage, users, close };
}

describeUsageRepositoryContract('memory', async () => subjectOf(await openMemory()));
describeUsageRepositoryContract('SQLite (:memory:)', async () => subjectOf(await openInMemorySqlite()));
if (postgres !== undefined) onPostgres(postgres, (open) => describeUsageRepositoryContract('Postgres', async () => subjectOf(await open())));
