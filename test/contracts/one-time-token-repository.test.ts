import { MemoryOneTimeTokenRepository } from '../../adapters/persistence/memory/memory-one-time-token-repository.js';
import { MemoryUserRepository } from '../../adapters/persistence/memory/memory-user-repository.js';
import { describeOneTimeTokenRepositoryContract } from './one-time-token-repository.contract.js';
import { openInMemorySqlite } from './persistence-fixtures.js';

describeOneTimeTokenRepositoryContract('memory', async () => ({ subject: new MemoryOneTimeTokenRepository(), users: new MemoryUserRepository() }));

describeOneTimeTokenRepositoryContract('SQLite (:memory:)', async () => {
  const { tokens, users, close } = await openInMemorySqlite();
  return { subject: tokens, users, close };
});
