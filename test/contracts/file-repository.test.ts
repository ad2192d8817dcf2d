import { describeFileRepositoryContract } from './file-repository.contract.js';
import { onSqlite, openMemory, onPostgres } from './persistence-fixtures.js';
import { testDatabaseUrl } from '../support/test-database.js';
import { openSqliteDatabase } from '../../adapters/persistence/sqlite/sqlite-database.js';
import { createSqlRepositories } from '../../adapters/persistence/sql/create-sql-repositories.js';
import { SqlFileRepository } from '../../adapters/persistence/sql/sql-file-repository.js';
import { SqlExecutor } from '../../adapters/persistence/sql/sql-executor.js';
import { foldFileGrams } from '../../adapters/persistence/postgres/file-gram-counts.js';

const postgres = testDatabaseUrl();

describeFileRepositoryContract('memory', async () => {
  const { files, users, signingKeys, close } = await openMemory();
  return { subject: files, users, signingKeys, close };
});

/** Deep pages are sought from offset 1 on, so that a few files exercise it (see SqlFileRepository.seek). */
const SEEK_ALWAYS = { seekFromOffset: 1 };

onSqlite((open) =>
  describeFileRepositoryContract('SQLite', async () => {
    const { files, users, signingKeys, close, executor } = await open();
    return { subject: files, users, signingKeys, seeking: new SqlFileRepository(executor!, SEEK_ALWAYS), close };
  }),
);

describeFileRepositoryContract('SQLite (:memory:), written through a second repository', async () => {
  const database = await openSqliteDatabase({ path: ':memory:' });
  const { files, users, signingKeys } = createSqlRepositories(database);
  return { subject: files, users, signingKeys, other: createSqlRepositories(database).files, close: database.close };
});

// `q` on SQLite takes two ways (SqliteFileSearch): with at most one FTS candidate read and sorted,
// beyond it the page walked in list order (every page past the first placed by upload day, as deep
// pages are) and the total counted from the index; and without the index.
describeFileRepositoryContract('SQLite (:memory:), search index with 1 candidate at most, pages placed', async () => {
  const database = await openSqliteDatabase({ path: ':memory:' });
  const { users, signingKeys } = createSqlRepositories(database);
  const subject = new SqlFileRepository(new SqlExecutor(database.db, { direct: database.direct }), { sqliteSearch: { candidateLimit: 1 }, ...SEEK_ALWAYS });
  return { subject, users, signingKeys, close: database.close };
});

describeFileRepositoryContract('SQLite (:memory:), search index off', async () => {
  const database = await openSqliteDatabase({ path: ':memory:' });
  const { users, signingKeys } = createSqlRepositories(database);
  const subject = new SqlFileRepository(new SqlExecutor(database.db, { direct: database.direct }), { sqliteSearch: false });
  return { subject, users, signingKeys, close: database.close };
});

if (postgres !== undefined) {
  onPostgres(postgres, (open) =>
    describeFileRepositoryContract('Postgres', async () => {
      const { files, users, signingKeys, close, executor } = await open();
      const searching = [
        // PostgresFileSearch with a probe of 3 files: counts that walk, counts from the index (pages from the probe, the count's statement or the index).
        new SqlFileRepository(executor!, { postgresSearch: { probeFiles: 3, walkShare: 0 } }),
        new SqlFileRepository(executor!, { postgresSearch: { probeFiles: 3, walkShare: Number.POSITIVE_INFINITY } }),
        // … and with every page the probe does not hold walked while the matches are counted.
        new SqlFileRepository(executor!, { postgresSearch: { probeFiles: 1, walkShare: 0.5, walkAlongside: true } }),
        // Matches of a search with an upload-time or size range collected from the range's index, the needle tested on each file.
        new SqlFileRepository(executor!, { postgresSearch: { probeFiles: 1, walkShare: Number.POSITIVE_INFINITY, rangeFirst: true } }),
        // Longer needles read from the trigram index by their rarest trigram alone, tested whole on each file it yields.
        new SqlFileRepository(executor!, { postgresSearch: { probeFiles: 1, walkShare: Number.POSITIVE_INFINITY, narrowNeedle: true } }),
        // Needles of 1–3 code points from the gram counts, no page walked from the newest file unless
        // collecting would cost more: placed by day when the gram is tracked, else walked or collected.
        new SqlFileRepository(executor!, { postgresSearch: { walkFiles: 0 } }),
        // Pages near either end walked from that end.
        new SqlFileRepository(executor!, { postgresSearch: { walkFiles: 8 } }),
        // Its off switch: the plain LIKE.
        new SqlFileRepository(executor!, { postgresSearch: false }),
      ];
      const foldSearchCounts = async () => {
        while ((await foldFileGrams(executor!.db, { trackFrom: 1, wait: true })) > 0);
      };
      return { subject: files, users, signingKeys, seeking: new SqlFileRepository(executor!, SEEK_ALWAYS), searching, foldSearchCounts, close };
    }),
  );
}
