import { testDatabaseUrl } from '../support/test-database.js';
import { onSqlite, openMemory, onPostgres, type OpenedRepositories } from './persistence-fixtures.js';
import { describeUsageRepositoryContract, type UsageRepositorySubject } from './usage-repository.contract.js';

const postgres = testDatabaseUrl();

function subjectOf({ usage, users, close }: OpenedRepositories): UsageRepositorySubject {
  return { subject: usage, users, close };
}

describeUsageRepositoryContract('memory', async () => subjectOf(await openMemory()));
onSqlite((open) => describeUsageRepositoryContract('SQLite', async () => subjectOf(await open())));
if (postgres !== undefined) onPostgres(postgres, (open) => describeUsageRepositoryContract('Postgres', async () => subjectOf(await open())));
