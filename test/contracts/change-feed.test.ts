import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryChangeFeed } from '../../adapters/changes/memory-change-feed.js';
import { createMemoryRepositories } from '../../adapters/persistence/memory/create-memory-repositories.js';
import { openPostgresDatabase } from '../../adapters/persistence/postgres/postgres-database.js';
import type { Repositories } from '../../adapters/persistence/repositories.js';
import { createSqlRepositories } from '../../adapters/persistence/sql/create-sql-repositories.js';
import { openSqliteDatabase } from '../../adapters/persistence/sqlite/sqlite-database.js';
import { createTestSchema, testDatabaseUrl } from '../support/test-database.js';
import { describeChangeFeedContract } from './change-feed.contract.js';

/**
 * The in-memory store has no other process: a test double of one that announces its writes the way
 * the database announces them elsewhere (what a host embedding the memory adapters would publish).
 */
function announcing(repos: Repositories, feed: MemoryChangeFeed): Repositories {
  const override = <T extends object>(target: T, methods: Partial<T>): T => Object.assign(Object.create(target) as T, methods);
  return {
    ...repos,
    users: override(repos.users, {
      setPlan: async (options) => {
        await repos.users.setPlan(options);
        feed.publish({ kind: 'account', accountId: options.userId });
      },
    }),
    apiKeys: override(repos.apiKeys, {
      delete: async (options) => {
        const keys = await repos.apiKeys.list({ userId: options.userId, window: { offset: 0, limit: 1000 } });
        const deleted = await repos.apiKeys.delete(options);
        const key = keys.items.find((item) => item.id === options.id);
        if (deleted && key) feed.publish({ kind: 'api_key', keyHash: key.keyHash });
        return deleted;
      },
    }),
    sessions: override(repos.sessions, {
      revoke: async (options) => {
        await repos.sessions.revoke(options);
        feed.publish({ kind: 'session', sessionId: options.sessionId });
      },
    }),
    domains: override(repos.domains, {
      save: async (domain) => {
        const before = await repos.domains.findByUser(domain.userId);
        const saved = await repos.domains.save(domain);
        for (const hostname of new Set([before?.hostname, domain.hostname]))
          if (hostname) feed.publish({ kind: 'hostname', hostname, accountId: domain.userId });
        return saved;
      },
      delete: async (userId) => {
        const before = await repos.domains.findByUser(userId);
        await repos.domains.delete(userId);
        if (before) feed.publish({ kind: 'hostname', hostname: before.hostname, accountId: userId });
      },
    }),
    planOverrides: override(repos.planOverrides, {
      save: async (options) => {
        await repos.planOverrides.save(options);
        feed.publish({ kind: 'plans' });
      },
    }),
    files: override(repos.files, {
      deleteMany: async (options) => {
        const deleted = await repos.files.deleteMany(options);
        for (const file of deleted) feed.publish({ kind: 'file', fileId: file.fileId });
        return deleted;
      },
    }),
  };
}

describeChangeFeedContract('memory (writes announced by hand)', async () => {
  const feed = new MemoryChangeFeed();
  return { feed, writer: announcing(createMemoryRepositories(), feed), close: async () => {} };
});

describeChangeFeedContract('SQLite (another connection to the file, seen through the WAL index)', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'hangar-changes-'));
  const path = join(dir, 'hangar.db');
  const reader = await openSqliteDatabase({ path });
  const writer = await openSqliteDatabase({ path });
  return {
    feed: reader.changes,
    writer: createSqlRepositories(writer),
    close: async () => {
      await writer.close();
      await reader.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});

const url = testDatabaseUrl();
if (url !== undefined) {
  describeChangeFeedContract('Postgres (LISTEN/NOTIFY, another pool on the schema)', async () => {
    const schema = await createTestSchema(url);
    const reader = await openPostgresDatabase({ url, poolSize: 2, schema: schema.schema });
    const writer = await openPostgresDatabase({ url, poolSize: 2, schema: schema.schema });
    return {
      feed: reader.changes,
      writer: createSqlRepositories(writer),
      close: async () => {
        await writer.close();
        await reader.close();
        await schema.drop();
      },
    };
  });
}
