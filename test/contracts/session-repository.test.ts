import { MemorySessionRepository } from '../../adapters/persistence/memory/memory-session-repository.js';
import { MemoryUserRepository } from '../../adapters/persistence/memory/memory-user-repository.js';
import { openInMemorySqlite } from './persistence-fixtures.js';
import { describeSessionRepositoryContract } from './session-repository.contract.js';

describeSessionRepositoryContract('memory', async () => ({ subject: new MemorySessionRepository(), users: new MemoryUserRepository() }));

describeSessionRepositoryContract('SQLite (:memory:)', async () => {
  const { sessions, users, close } = await openInMemorySqlite();
  return { subject: sessions, users, close };
});
