import { describeActivityLogRepositoryContract, type ActivityLogRepositorySubject } from './activity-log-repository.contract.js';
import { openInMemorySqlite, openMemory, type OpenedRepositories } from './persistence-fixtures.js';

function subjectOf({ logs, users, close }: OpenedRepositories): ActivityLogRepositorySubject {
  return { subject: logs, users, close };
}

describeActivityLogRepositoryContract('memory', async () => subjectOf(await openMemory()));
describeActivityLogRepositoryContract('SQLite (:memory:)', async () => subjectOf(await openInMemorySqlite()));
