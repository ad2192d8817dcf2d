import { MemoryApiKeyRepository } from '../../adapters/persistence/memory/memory-api-key-repository.js';
import { MemoryUserRepository } from '../../adapters/persistence/memory/memory-user-repository.js';
import { describeApiKeyRepositoryContract } from './api-key-repository.contract.js';
import { openInMemorySqlite } from './persistence-fixtures.js';

describeApiKeyRepositoryContract('memory', async () => ({ subject: new MemoryApiKeyRepository(), users: new MemoryUserRepository() }));

describeApiKeyRepositoryContract('SQLite (:memory:)', async () => {
  const { apiKeys, users, close } = await openInMemorySqlite();
  return { subject: apiKeys, users, close };
});
