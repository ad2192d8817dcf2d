import { describeFileRepositoryContract } from './file-repository.contract.js';
import { openInMemorySqlite, openMemory } from './persistence-fixtures.js';

describeFileRepositoryContract('memory', async () => {
  const { files, users, close } = await openMemory();
  return { subject: files, users, close };
});

describeFileRepositoryContract('SQLite (:memory:)', async () => {
  const { files, users, close } = await openInMemorySqlite();
  return { subject: files, users, close };
});
