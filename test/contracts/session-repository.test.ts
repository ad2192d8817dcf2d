import { describeSessionRepositoryContract } from './session-repository.contract.js';
import { openInMemorySqlite, openMemory } from './persistence-fixtures.js';

describeSessionRepositoryContract('memory', async () => {
  const { sessions, users, close } = await openMemory();
  return { subject: sessions, users, close };
});

describeSessionRepositoryContract('SQLite (:memory:)', async () => {
  const { sessions, users, close } = await openInMemorySqlite();
  return { subject: sessions, users, close };
});
