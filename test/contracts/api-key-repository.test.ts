import { describeApiKeyRepositoryContract } from './api-key-repository.contract.js';
import { openInMemorySqlite, openMemory } from './persistence-fixtures.js';

describeApiKeyRepositoryContract('memory', async () => {
  const { apiKeys, users, close } = await openMemory();
  return { subject: apiKeys, users, close };
});

describeApiKeyRepositoryContract('SQLite (:memory:)', async () => {
  const { apiKeys, users, close } = await openInMemorySqlite();
  return { subject: apiKeys, users, close };
});
