import { MemoryUserRepository } from '../../adapters/persistence/memory/memory-user-repository.js';
import { openInMemorySqlite, openTemporarySqliteFile } from './persistence-fixtures.js';
import { describeUserRepositoryContract } from './user-repository.contract.js';

describeUserRepositoryContract('memory', async () => ({ subject: new MemoryUserRepository() }));

describeUserRepositoryContract('SQLite (:memory:)', async () => {
  const { users, close } = await openInMemorySqlite();
  return { subject: users, close };
});

describeUserRepositoryContract('SQLite (file, WAL)', async () => {
  const { users, close } = await openTemporarySqliteFile();
  return { subject: users, close };
});
