import { openSqliteDatabase } from '../../adapters/persistence/sqlite/sqlite-database.js';
import { createSqlRepositories } from '../../adapters/persistence/sql/create-sql-repositories.js';
import { testDatabaseUrl } from '../support/test-database.js';
import { describeImageVariantRepositoryContract } from './image-variant-repository.contract.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onPostgres, onSqlite, openMemory, type OpenedRepositories } from './persistence-fixtures.js';

const postgres = testDatabaseUrl();

function subjectOf({ imageVariants, users, files, close }: OpenedRepositories) {
  return { subject: imageVariants, users, files, close };
}

describeImageVariantRepositoryContract('memory', async () => subjectOf(await openMemory()));
onSqlite((open) => describeImageVariantRepositoryContract('SQLite', async () => subjectOf(await open())));
describeImageVariantRepositoryContract('SQLite (file, WAL), two connections (two processes)', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'hangar-variants-'));
  const first = await openSqliteDatabase({ path: join(dir, 'hangar.sqlite') });
  const second = await openSqliteDatabase({ path: join(dir, 'hangar.sqlite') });
  const { imageVariants, users, files } = createSqlRepositories(first);
  return {
    subject: imageVariants,
    other: createSqlRepositories(second).imageVariants,
    users,
    files,
    close: async () => {
      await second.close();
      await first.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});
if (postgres !== undefined) {
  onPostgres(postgres, (open) =>
    describeImageVariantRepositoryContract('Postgres', async () => {
      const opened = await open();
      // A second repository over the same pool: its statements run on other connections, as another process's would.
      return { ...subjectOf(opened), other: createSqlRepositories(opened.db!).imageVariants };
    }),
  );
}
