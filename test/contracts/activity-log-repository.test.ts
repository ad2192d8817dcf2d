import { describeActivityLogRepositoryContract, type ActivityLogRepositorySubject } from './activity-log-repository.contract.js';
import { onSqlite, openMemory, onPostgres, type OpenedRepositories } from './persistence-fixtures.js';
import { testDatabaseUrl } from '../support/test-database.js';

const postgres = testDatabaseUrl();

function subjectOf({ logs, users, close }: OpenedRepositories): ActivityLogRepositorySubject {
  return { subject: logs, users, close };
}

describeActivityLogRepositoryContract('memory', async () => subjectOf(await openMemory()));
onSqlite((open) => describeActivityLogRepositoryContract('SQLite', async () => subjectOf(await open())));
if (postgres !== undefined) onPostgres(postgres, (open) => describeActivityLogRepositoryContract('Postgres', async () => subjectOf(await open())));
