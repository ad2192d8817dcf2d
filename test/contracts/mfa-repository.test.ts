import { describeMfaRepositoryContract } from './mfa-repository.contract.js';
import { openInMemorySqlite, openMemory, onPostgres } from './persistence-fixtures.js';
import { testDatabaseUrl } from '../support/test-database.js';
import { SqlMfaRepository } from '../../adapters/persistence/sql/sql-mfa-repository.js';

const postgres = testDatabaseUrl();

describeMfaRepositoryContract('memory', async () => {
  const { mfa, users, close } = await openMemory();
  return { subject: mfa, users, deleteUser: async (id) => void (await users.delete(id)), close };
});

describeMfaRepositoryContract('SQLite (:memory:)', async () => {
  const { users, close, db } = await openInMemorySqlite();
  return { subject: new SqlMfaRepository(db!), users, deleteUser: async (id) => void (await users.delete(id)), close };
});

if (postgres !== undefined) {
  onPostgres(postgres, (open) =>
    describeMfaRepositoryContract('Postgres', async () => {
      const { users, close, db } = await open();
      return { subject: new SqlMfaRepository(db!), users, deleteUser: async (id) => void (await users.delete(id)), close };
    }),
  );
}
