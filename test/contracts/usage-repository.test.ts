import { openInMemorySqlite, openMemory, type OpenedRepositories } from './persistence-fixtures.js';
import { describeUsageRepositoryContract, type UsageRepositorySubject } from './usage-repository.contract.js';

function subjectOf({ usage, users, close }: OpenedRepositories): UsageRepositorySubject {
  return { subject: usage, users, close };
}

describeUsageRepositoryContract('memory', async () => subjectOf(await openMemory()));
describeUsageRepositoryContract('SQLite (:memory:)', async () => subjectOf(await openInMemorySqlite()));
