import { testDatabaseUrl } from '../support/test-database.js';
import { openInMemorySqlite, openMemory, onPostgres, openTemporarySqliteFile } from './persistence-fixtures.js';
import { describeResumableUploadRepositoryContract } from './resumable-upload-repository.contract.js';

const postgres = testDatabaseUrl();

describeResumableUploadRepositoryContract('memory', async () => {
  const { resumableUploads, files, users, close } = await openMemory();
  return { subject: resumableUploads, files, users, close };
});

describeResumableUploadRepositoryContract('SQLite (:memory:)', async () => {
  const { resumableUploads, files, users, close } = await openInMemorySqlite();
  return { subject: resumableUploads, files, users, close };
});

describeResumableUploadRepositoryContract('SQLite (file, WAL)', async () => {
  const { resumableUploads, files, users, close } = await openTemporarySqliteFile();
  return { subject: resumableUploads, files, users, close };
});

if (postgres !== undefined) {
  onPostgres(postgres, (open) =>
    describeResumableUploadRepositoryContract('Postgres', async () => {
      const { resumableUploads, files, users, close } = await open();
      return { subject: resumableUploads, files, users, close };
    }),
  );
}
