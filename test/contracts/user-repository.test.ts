import { testDatabaseUrl } from '../support/test-database.js';
import type { OpenedRepositories } from './persistence-fixtures.js';
import { onSqlite, openMemory, onPostgres } from './persistence-fixtures.js';
import { describeUserRepositoryContract, type UserRepositorySubject } from './user-repository.contract.js';

const postgres = testDatabaseUrl();

function subjectOf(repos: OpenedRepositories): UserRepositorySubject {
  const { users, tokens, sessions, apiKeys, files, usage, logs, close } = repos;
  return { subject: users, related: { tokens, sessions, apiKeys, files, usage, logs }, close };
}

describeUserRepositoryContract('memory', async () => subjectOf(await openMemory()));
onSqlite((open) => describeUserRepositoryContract('SQLite', async () => subjectOf(await open())));
if (postgres !== undefined) onPostgres(postgres, (open) => describeUserRepositoryContract('Postgres', async () => subjectOf(await open())));
