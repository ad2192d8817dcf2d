import { describeFileRepositoryContract } from './file-repository.contract.js';
import { openInMemorySqlite, openMemory, onPostgres } from './persistence-fixtures.js';
import { testDatabaseUrl } from '../support/test-database.js';
import { openSqliteDatabase } from '../../adapters/persistence/sqlite/sqlite-database.js';
import { createSqlRepositories } from '../../adapters/persistence/sql/create-sql-repositories.js';
import { SqlFileRepository } from '../../adapters/persistence/sql/sql-file-repository.js';

const postgres = testDatabaseUrl();

describeFileRepositoryContract('memory', async () => {
  const { files, users, signingKeys, close } = await openMemory();
  return { subject: files, users, signingKeys, close };
});

/** Deep pages are sought from offset 1 on, so that a few files exercise it (see SqlFileRepository.seek). */
const SEEK_ALWAYS = { seekFromOffset: 1 };

describeFileRepositoryContract('SQLite (:memory:)', async () => {
  const { files, users, signingKeys, close, db } = await openInMemorySqlite();
  return { subject: files, users, signingKeys, seeking: new SqlFileRepository(db!, SEEK_ALWAYS), close };
});

describeFileRepositoryContract('SQLite (:memory:), written through a second repository', async () => {
  const { db, close } = await openSqliteDatabase({ path: ':memory:' });
  const { files, users, signingKeys } = createSqlRepositories(db);
  return { subject: files, users, signingKeys, other: createSqlRepositories(db).files, close };
});

if (postgres !== undefined) {
  onPostgres(postgres, (open) =>
    describeFileRepositoryContract('Postgres', async () => {
      const { files, users, signingKeys, close, db } = await open();
      return { subject: files, users, signingKeys, seeking: new SqlFileRepository(db!, SEEK_ALWAYS), close };
    }),
  );
}
