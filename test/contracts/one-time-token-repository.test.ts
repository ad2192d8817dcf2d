import { describeOneTimeTokenRepositoryContract } from './one-time-token-repository.contract.js';
import { openInMemorySqlite, openMemory } from './persistence-fixtures.js';

describeOneTimeTokenRepositoryContract('memory', async () => {
  const { tokens, users, close } = await openMemory();
  return { subject: tokens, users, close };
});

describeOneTimeTokenRepositoryContract('SQLite (:memory:)', async () => {
  const { tokens, users, close } = await openInMemorySqlite();
  return { subject: tokens, users, close };
});
