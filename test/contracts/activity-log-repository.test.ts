import { describeActivityLogRepositoryContract, type ActivityLogRepositorySubject } from './activity-log-repository.contract.js';
import { openInMemorySqlite, openMemory, onPostgres, type OpenedRepositories } from './persistence-fixtures.js';
import { testDatabaseUrl } from '../support/test-database.js';

const postgres = testDatabaseUrl();

function subjectOf({ logs, users, close }: OpenedRepositories): ActivityLogRepositorySubject {
  return { subject: logs, users, close };
}

describeActivityLogRepositoryContract('memory', async () => subjectOf(await openMemory()));
describeActivityLogRepositoryContract('SQLite (:memory:)', async () => subjectOf(await openInMemorySqlite()));
if (postgres !== undefined) onPostgres(postgres, (open) => describeActivityLogRepositoryContract('Postgres', async () => subjectOf(await open())));
