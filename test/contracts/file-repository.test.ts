import { MemoryFileRepository } from '../../adapters/persistence/memory/memory-file-repository.js';
import { MemoryUserRepository } from '../../adapters/persistence/memory/memory-user-repository.js';
import { describeFileRepositoryContract } from './file-repository.contract.js';
import { openInMemorySqlite } from './persistence-fixtures.js';

describeFileRepositoryContract('memory', async () => ({ subject: new MemoryFileRepository(), users: new MemoryUserRepository() }));

describeFileRepositoryContract('SQLite (:memory:)', async () => {
  const { files, users, close } = await openInMemorySqlite();
  return { subject: files, users, close };
});
