import { expect } from 'chai';
import { MemoryChangeFeed } from '../../adapters/changes/memory-change-feed.js';
import { PostgresLookupCache } from '../../adapters/persistence/postgres/postgres-lookup-cache.js';
import { writesObservedRows } from '../../adapters/persistence/postgres/write-observer.js';

describe('PostgresLookupCache', () => {
  const put = (cache: PostgresLookupCache, key: string, tag: string, rows: unknown[] = [{ id: key }], stamp = cache.stamp()) =>
    cache.put({ stamp, key, tag, kind: tag.split(':')[0] as 'account', rows });

  it('keeps a lookup until the change feed announces a change of its key, and drops only that one', () => {
    const changes = new MemoryChangeFeed();
    const cache = new PostgresLookupCache(changes);
    put(cache, 'user a', 'account:a');
    put(cache, 'user b', 'account:b');
    put(cache, 'key h', 'api_key:h');
    changes.publish({ kind: 'account', accountId: 'a' });
    expect(cache.get('user a')).to.equal(undefined);
    expect(cache.get('user b')).to.deep.equal([{ id: 'user b' }]);
    changes.publish({ kind: 'api_key', keyHash: 'h' });
    expect(cache.get('key h')).to.equal(undefined);
    expect(cache.get('user b')).to.deep.equal([{ id: 'user b' }]);
  });

  it('drops a custom domain by hostname and by account on one hostname change, and everything on `everything`', () => {
    const changes = new MemoryChangeFeed();
    const cache = new PostgresLookupCache(changes);
    put(cache, 'by name', 'hostname:files.example.com');
    put(cache, 'by account', 'domain_of:a');
    put(cache, 'file', 'file:f');
    changes.publish({ kind: 'hostname', hostname: 'files.example.com', accountId: 'a' });
    expect([cache.get('by name'), cache.get('by account')]).to.deep.equal([undefined, undefined]);
    expect(cache.get('file')).to.deep.equal([{ id: 'file' }]);
    changes.publish({ kind: 'everything' });
    expect(cache.size).to.equal(0);
  });

  it('tags a lookup by the rows it read when asked (an API key by id, announced by its hash): one read, kept until that hash changes', async () => {
    const changes = new MemoryChangeFeed();
    const cache = new PostgresLookupCache(changes);
    let reads = 0;
    const load = () =>
      cache.load({
        key: 'key by id 7',
        kind: 'api_key',
        tag: (rows) => ((rows[0] as { key_hash?: string } | undefined)?.key_hash ? `api_key:${(rows[0] as { key_hash: string }).key_hash}` : undefined),
        read: async () => {
          reads += 1;
          return [{ id: '7', key_hash: 'h7' }];
        },
      });
    await load();
    await load();
    expect(reads, 'the second lookup is answered from the cache').to.equal(1);
    changes.publish({ kind: 'api_key', keyHash: 'other' });
    await load();
    expect(reads).to.equal(1);
    changes.publish({ kind: 'api_key', keyHash: 'h7' });
    await load();
    expect(reads, 'read again once its hash was announced').to.equal(2);
    const missing = () => cache.load({ key: 'key by id 8', kind: 'api_key', tag: () => undefined, read: async () => ((reads += 1), []) });
    await missing();
    await missing();
    expect(reads, 'rows without a tag are not kept').to.equal(4);
  });

  it('does not keep rows read while anything was invalidated (they may predate the change)', () => {
    const changes = new MemoryChangeFeed();
    const cache = new PostgresLookupCache(changes);
    const stamp = cache.stamp();
    changes.publish({ kind: 'session', sessionId: 's' });
    put(cache, 'session s', 'session:s', [{ id: 's' }], stamp);
    expect(cache.get('session s')).to.equal(undefined);
    cache.dropAll();
    put(cache, 'session t', 'session:t', [{ id: 't' }], stamp);
    expect(cache.get('session t')).to.equal(undefined);
  });

  it('keeps "not found" only where creations are announced (hostnames, custom domains by account)', () => {
    const cache = new PostgresLookupCache(new MemoryChangeFeed());
    for (const tag of ['account:a', 'api_key:h', 'session:s', 'file:f', 'hostname:x.example.com', 'domain_of:a']) put(cache, tag, tag, []);
    expect(['hostname:x.example.com', 'domain_of:a'].map((key) => cache.get(key))).to.deep.equal([[], []]);
    expect(['account:a', 'api_key:h', 'session:s', 'file:f'].map((key) => cache.get(key))).to.deep.equal([undefined, undefined, undefined, undefined]);
  });

  it('starts over when full', () => {
    const cache = new PostgresLookupCache(new MemoryChangeFeed(), 3);
    for (const key of ['1', '2', '3', '4']) put(cache, key, `account:${key}`);
    expect(cache.size).to.equal(1);
    expect(cache.get('4')).to.deep.equal([{ id: '4' }]);
  });

  it('holds the lookups of one turn at one gate until its check phase, lets the rest of that task through, and holds the next task again', async () => {
    const cache = new PostgresLookupCache(new MemoryChangeFeed());
    const order: string[] = [];
    // Queued before the gate: the check phase's callbacks run in order, so the requests come after it.
    setImmediate(() => order.push('check phase'));
    const first = cache.gate();
    const second = cache.gate();
    expect(first).to.be.instanceOf(Promise);
    expect(second).to.equal(first);
    const requests = [first, second].map(async (gate, i) => {
      await gate;
      order.push(`request ${i}`);
      // The same request's next lookup, in the task that passed the gate, goes on at once.
      expect(cache.gate()).to.equal(undefined);
    });
    await Promise.resolve();
    expect(order, 'nothing passes before the check phase').to.deep.equal([]);
    await Promise.all(requests);
    expect(order).to.deep.equal(['check phase', 'request 0', 'request 1']);
    await new Promise<void>((resolve) => setTimeout(resolve, 0));
    expect(cache.gate()).to.be.instanceOf(Promise);
  });

  it('shows a change announced while a lookup waits at the gate to that lookup', async () => {
    const changes = new MemoryChangeFeed();
    const cache = new PostgresLookupCache(changes);
    put(cache, 'user a', 'account:a');
    const lookup = (async () => {
      await cache.gate();
      return cache.get('user a');
    })();
    changes.publish({ kind: 'account', accountId: 'a' });
    expect(await lookup).to.equal(undefined);
  });
});

describe('writesObservedRows (what drops the lookup cache of the process that writes)', () => {
  it('sees updates and deletes of the cached tables and inserts of custom domains, as Kysely compiles them', () => {
    for (const sql of [
      'update "users" set "plan_name" = $1 where "id" = $2',
      'delete from "api_keys" where "id" = $1 and "user_id" = $2',
      'update "sessions" set "revoked_at" = $1 where "id" = $2',
      'insert into "custom_domains" ("user_id", "hostname") values ($1, $2) on conflict ("user_id") do update set "hostname" = $3',
      'delete from "files" where "user_id" = $1 and "file_id" in ($2, $3) returning "id"',
      'update "files" set "name" = $1 where "file_id" = $2',
    ]) {
      expect(writesObservedRows(sql), sql).to.equal(true);
    }
  });

  it('ignores reads, uploads (inserts into files) and the other tables', () => {
    for (const sql of [
      'select * from "users" where "id" = $1',
      'insert into "files" ("id", "user_id") values ($1, $2)',
      'insert into "sessions" ("id") values ($1)',
      'update "account_totals" set "files_count" = files_count + 1 where "user_id" = $1',
      'update "users_archive" set x = 1',
      'insert into "activity_log_totals" ("user_id") values ($1)',
    ]) {
      expect(writesObservedRows(sql), sql).to.equal(false);
    }
  });
});
