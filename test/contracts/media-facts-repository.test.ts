import { testDatabaseUrl } from '../support/test-database.js';
import { describeMediaFactsRepositoryContract } from './media-facts-repository.contract.js';
import { onPostgres, onSqlite, openMemory, type OpenedRepositories } from './persistence-fixtures.js';

const postgres = testDatabaseUrl();

function subjectOf({ mediaFacts, users, files, close }: OpenedRepositories) {
  return { subject: mediaFacts, users, files, close };
}

describeMediaFactsRepositoryContract('memory', async () => subjectOf(await openMemory()));
onSqlite((open) => describeMediaFactsRepositoryContract('SQLite', async () => subjectOf(await open())));
// Without TEST_DATABASE_URL, testDatabaseUrl() prints the one line that says Postgres was left out.
if (postgres !== undefined) onPostgres(postgres, (open) => describeMediaFactsRepositoryContract('Postgres', async () => subjectOf(await open())));
