import { describeSessionRepositoryContract } from './session-repository.contract.js';
import { onSqlite, openMemory, onPostgres } from './persistence-fixtures.js';
import { testDatabaseUrl } from '../support/test-database.js';
import { SqlSessionRepository } from '../../adapters/persistence/sql/sql-session-repository.js';

/** Two rows per purge transaction, so that a few sessions and tokens take several (see SqlSessionRepository.purge). */
const SMALL_CHUNKS = { purgeChunk: 2 };

const postgres = testDatabaseUrl();

describeSessionRepositoryContract('memory', async () => {
  const { sessions, users, close } = await openMemory();
  return { subject: sessions, users, close };
});

onSqlite((open) =>
  describeSessionRepositoryContract('SQLite', async () => {
    const { users, close, executor } = await open();
    return { subject: new SqlSessionRepository(executor!, SMALL_CHUNKS), users, close };
  }),
);

if (postgres !== undefined) {
  onPostgres(postgres, (open) =>
    describeSessionRepositoryContract('Postgres', async () => {
      const { users, close, executor } = await open();
      return { subject: new SqlSessionRepository(executor!, SMALL_CHUNKS), users, close };
    }),
  );
}
