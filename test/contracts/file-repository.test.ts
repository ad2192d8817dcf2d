import { describeFileRepositoryContract } from './file-repository.contract.js';
import { onSqlite, openMemory } from './persistence-fixtures.js';
import { openSqliteDatabase } from '../../adapters/persistence/sqlite/sqlite-database.js';
import { createSqlRepositories } from '../../adapters/persistence/sql/create-sql-repositories.js';

// The file repository's contract on memory and SQLite. SQLite with each listing way forced and
// Postgres run in files of their own (file-repository-ways.test.ts, file-repository-postgres.test.ts),
// so that a parallel run's workers share the contract's brute-force search between them.

describeFileRepositoryContract('memory', async () => {
  const { files, users, signingKeys, close } = await openMemory();
  return { subject: files, users, signingKeys, close };
});

onSqlite((open) =>
  describeFileRepositoryContract('SQLite', async () => {
    const { files, users, signingKeys, close } = await open();
    return { subject: files, users, signingKeys, close };
  }),
);

describeFileRepositoryContract('SQLite (:memory:), written through a second repository', async () => {
  const database = await openSqliteDatabase({ path: ':memory:' });
  const { files, users, signingKeys } = createSqlRepositories(database);
  return { subject: files, users, signingKeys, other: createSqlRepositories(database).files, close: database.close };
});
