/**
 * What a cached lookup depends on, and so which change drops it: the kind of key its keying
 * parameter is (`account` a user id, `api_key` a key hash, `session` a session id, `hostname` a
 * hostname, `domain_of` the account of a custom domain, `file` a file id). The cache tag is
 * `<kind>:<value of that parameter>`, as `changeTags` in core/shared/change-feed.ts names the tags a change invalidates.
 */
export type LookupKind = 'account' | 'api_key' | 'session' | 'hostname' | 'domain_of' | 'file';

/** Lookup kinds whose rows are announced when created (migration 0010), so that "not found" may be kept too. */
const CREATION_ANNOUNCED: ReadonlySet<LookupKind> = new Set(['hostname', 'domain_of']);

/**
 * Rows of lookups kept in this process between requests on a database shared with other processes
 * (Postgres), dropped by tag when the change feed announces a change, and entirely when this
 * process writes to a table whose rows are cached (read your own writes before the notification
 * comes back) or the feed delivers `everything`.
 */
export interface SharedLookupCache {
  /** The rows kept for `key`, or undefined. Rows are shared: callers must not modify them. */
  get(key: string): readonly unknown[] | undefined;
  /** A stamp to pass to {@link put}, taken before the read whose rows will be kept. */
  stamp(): number;
  /**
   * Keeps `rows` under `key`, tagged `tag`, unless anything was invalidated since `stamp` (the rows
   * may predate that change), or `rows` is empty and the kind's creations are not announced.
   */
  put(options: { stamp: number; key: string; tag: string; kind: LookupKind; rows: readonly unknown[] }): void;
  /**
   * The rows kept for `key`, else those `read` returns, kept as {@link put} keeps them. Concurrent
   * misses of one key share one read while nothing is invalidated (a miss after an invalidation
   * starts a read of its own, so it sees the change). `tag` may be a function of the rows read, for
   * a lookup by another key than the one change notifications name (an API key by id, announced by
   * its hash): rows it gives no tag for (undefined) are not kept.
   * @throws what `read` throws (nothing is kept)
   */
  load(options: {
    key: string;
    tag: string | ((rows: readonly unknown[]) => string | undefined);
    kind: LookupKind;
    read: () => Promise<readonly unknown[]>;
  }): Promise<readonly unknown[]>;
  /** Drops the entries of `tags` (`<kind>:<key>`), as a change notification of them does. */
  drop(tags: readonly string[]): void;
  /**
   * Undefined when a lookup may go on at once (a lookup of the current task already passed);
   * otherwise a promise, shared by every lookup that reaches it in one turn of the event loop, that
   * resolves in that turn's check phase (`setImmediate`), so that the requests' work after their
   * lookups runs back to back. Never rejects. See {@link PostgresLookupCache.gate}.
   */
  gate(): Promise<void> | undefined;
}

/** Runs a read-only statement as a prepared statement named after its SQL (Postgres: one parse per connection). */
export type PreparedRead = (sql: string, parameters: readonly unknown[]) => Promise<unknown[]>;

/**
 * What the Postgres adapter offers its repositories for lookups (`PostgresDatabase.lookups`, handed
 * to them by the composition through their `SqlExecutor`): a cache of lookups invalidated by the
 * change feed (absent when switched off, `lookupCache: false`) and a way to run lookups as named
 * prepared statements. `PrecompiledQuery` uses them for queries that are lookups (`cacheable` or
 * `invalidatedBy`).
 */
export interface SharedLookups {
  cache?: SharedLookupCache;
  prepared?: PreparedRead;
}

/** Whether an empty answer of a lookup of `kind` may be kept (see {@link CREATION_ANNOUNCED}). */
export function keepsNotFound(kind: LookupKind): boolean {
  return CREATION_ANNOUNCED.has(kind);
}
